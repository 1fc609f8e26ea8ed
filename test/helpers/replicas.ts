/**
 * Replicas of the service as OS processes on one store, for the multi-process tests: each runs
 * test/fixtures/request-worker.ts (bundled once per test file with `requestWorker()`) on the
 * current backend — the SQLite file of the store's data directory, or its PostgreSQL database —
 * and sends its batch of requests once every replica is up.
 */
import { fork } from 'node:child_process';
import { rmSync } from 'node:fs';
import { expect } from 'vitest';
import { backend } from './backend.js';
import { bundleWorker, root } from './bundle.js';

export interface WorkerRequest {
  method: string;
  path: string;
  body?: unknown;
  /** this request's Authorization header, instead of the job's */
  auth?: string;
}

export interface WorkerJob {
  /** the Authorization header of every request that has none of its own */
  auth: string;
  requests: WorkerRequest[];
  /** one more request, sent once `after` of the batch's answers have arrived */
  late?: { after: number; request: WorkerRequest };
}

export type WorkerResult = { status: number; error: string | null };

/** Bundles the request worker; call in beforeAll and `cleanup` in afterAll. */
export async function requestWorker(name: string): Promise<{ file: string; cleanup(): void }> {
  const { file, outDir } = await bundleWorker('test/fixtures/request-worker.ts', name);
  return { file, cleanup: () => rmSync(outDir, { recursive: true, force: true }) };
}

/**
 * Starts one replica process per job on the store, releases them together once all are ready
 * (each opened the store), and answers each job's results in the order of its requests.
 */
export async function inReplicas(workerFile: string, store: { dir: string; location: string }, jobs: WorkerJob[], timeoutMs = 60_000): Promise<WorkerResult[][]> {
  const workers = jobs.map((job) => {
    const full = { dataDir: store.dir, ...(backend === 'postgres' ? { databaseUrl: store.location } : {}), ...job };
    const child = fork(workerFile, [], { cwd: root, env: { ...process.env, MPAY_WORKER: JSON.stringify(full) }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: [] });
    const messages: Array<{ kind: string; results?: WorkerResult[] }> = [];
    child.on('message', (msg) => messages.push(msg as (typeof messages)[number]));
    return { child, messages, exit: new Promise<void>((res) => child.on('exit', () => res())) };
  });
  const until = async (cond: () => boolean) => {
    const end = Date.now() + timeoutMs;
    while (!cond()) {
      if (Date.now() > end) throw new Error('timed out waiting for the replicas');
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  await until(() => workers.every((w) => w.messages.some((x) => x.kind === 'ready' || x.kind === 'error')));
  for (const w of workers) w.child.send('go');
  await until(() => workers.every((w) => w.messages.some((x) => x.kind === 'done' || x.kind === 'error')));
  await Promise.all(workers.map((w) => w.exit));
  expect(workers.flatMap((w) => w.messages.filter((x) => x.kind === 'error'))).toEqual([]);
  return workers.map((w) => w.messages.find((x) => x.kind === 'done')!.results!);
}
