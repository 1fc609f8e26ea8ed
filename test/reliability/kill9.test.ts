/**
 * kill -9 loop: 8 writer processes create card charges on one data directory (real disk), four
 * at a time each, every one under an Idempotency-Key; each iteration SIGKILLs one of them
 * (round robin) mid-stream and starts a new one in its place. After every kill: PRAGMA
 * integrity_check is ok and every write acknowledged to the killed writer (its id and key
 * appended and fsync'd to a side file after the 201) is in the store, whole (the charge
 * captured, with its receivables and its events, and its key done with the answer that was
 * sent). At the end all writers are killed at once and every acknowledged write of every
 * writer is checked. The other writers are stopped (SIGSTOP) while the store is checked.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openRuntime } from '../../src/server/runtime.js';
import { createMerchant } from '../../src/server/services/merchants.js';
import { basic } from '../helpers/server.js';
import { bundleWorker, root } from '../helpers/bundle.js';
import { report } from './helpers.js';

const WRITERS = 8;
const ITERATIONS = Number(process.env.KILL9_ITERATIONS ?? 100);

let worker: { file: string; outDir: string };
beforeAll(async () => {
  worker = await bundleWorker('test/fixtures/charge-writer.ts', 'charge-writer');
}, 60_000);
afterAll(() => rmSync(worker.outDir, { recursive: true, force: true }));

interface Writer {
  child: ChildProcess;
  ackFile: string;
  ready: boolean;
  errors: unknown[];
  exited: Promise<void>;
}

/** Complete lines only: a line cut by the kill was never acknowledged. */
function acked(file: string): string[] {
  if (!existsSync(file)) return [];
  const text = readFileSync(file, 'utf8');
  return text.slice(0, text.lastIndexOf('\n') + 1).split('\n').filter(Boolean);
}

it(`kill -9 loop, ${WRITERS} writers, ${ITERATIONS} iterations → 0 acknowledged writes lost, integrity ok every time`, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mpay-kill9-'));
  const setup = await openRuntime({ dataDir: dir, rateLimit: null });
  const m = await setup.deps.db.tx((q) => createMerchant(q, setup.deps, 'Loja Kill', new Date()));
  const tok = await setup.app.request('/v1/tokens', {
    method: 'POST',
    headers: { authorization: basic(m.public_key, ''), 'content-type': 'application/json' },
    body: JSON.stringify({ card: { number: '5555555555554444', holderName: 'Ana Souza', expirationMonth: '12', expirationYear: '2030', cvv: '123' } }),
  });
  const token = ((await tok.json()) as any).data.token as string;
  await setup.close();

  let spawned = 0;
  const spawnWriter = (): Writer => {
    const ackFile = join(dir, `acks-${spawned++}.txt`);
    const child = fork(worker.file, [], {
      cwd: root,
      env: { ...process.env, MPAY_WRITER: JSON.stringify({ dataDir: dir, auth: basic(m.public_key, m.secret_key), token, ackFile }) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      execArgv: [],
    });
    const w: Writer = { child, ackFile, ready: false, errors: [], exited: new Promise((res) => child.once('exit', () => res())) };
    child.on('message', (msg: any) => (msg.kind === 'ready' ? (w.ready = true) : w.errors.push(msg)));
    return w;
  };

  const check = new Database(join(dir, 'mpay.db'), { readonly: true, fileMustExist: true });
  check.pragma('busy_timeout = 30000');
  const findCharge = check.prepare("SELECT status, (SELECT COUNT(*) FROM receivables r WHERE r.charge_id = c.id) AS receivables FROM charges c WHERE id = ?");
  const findKey = check.prepare('SELECT state, status_code, response_body FROM idempotency_keys WHERE key = ?');
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  let lost = 0;
  let partial = 0;
  let integrityFailures = 0;
  let verified = 0;
  /** Checks the store and the acknowledged writes of `files`; counts only once the check has run to its end. */
  const verifyOnce = (files: string[]) => {
    const integrity = (check.pragma('integrity_check') as { integrity_check: string }[]).map((r) => r.integrity_check).join('; ');
    const n = { lost: 0, partial: 0, verified: 0 };
    for (const f of files) {
      for (const line of acked(f)) {
        const [id, key] = line.split(' ') as [string, string];
        n.verified++;
        const row = findCharge.get(id) as { status: string; receivables: number } | undefined;
        // the key's kept answer commits with its charge: an acknowledged charge has it, done
        const kept = findKey.get(key) as { state: string; status_code: number; response_body: string } | undefined;
        if (!row) n.lost++;
        else if (row.status !== 'captured' || Number(row.receivables) !== 2) n.partial++;
        else if (kept?.state !== 'done' || kept.status_code !== 201 || JSON.parse(kept.response_body).data.id !== id) n.partial++;
      }
    }
    if (integrity !== 'ok') integrityFailures++;
    lost += n.lost;
    partial += n.partial;
    verified += n.verified;
  };
  // A writer stopped (SIGSTOP) in the middle of SQLite's race for a WAL read lock can leave the
  // check's read losing that race until SQLite gives up with SQLITE_PROTOCOL (its documented
  // back-off, not a broken file): the stopped writers then run a moment and the check starts over.
  let protocolRetries = 0;
  const verify = async (files: string[], stopped: Writer[] = []) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return verifyOnce(files);
      } catch (e) {
        if ((e as { code?: string }).code !== 'SQLITE_PROTOCOL' || attempt === 10) throw e;
        protocolRetries++;
        for (const o of stopped) o.child.kill('SIGCONT');
        await sleep(50);
        for (const o of stopped) o.child.kill('SIGSTOP');
      }
    }
  };

  const writers = Array.from({ length: WRITERS }, spawnWriter);
  const started = performance.now();
  for (let i = 0; i < ITERATIONS; i++) {
    const slot = i % WRITERS;
    const w = writers[slot]!;
    // let it get going (open the store, get a write acknowledged), then kill it mid-stream
    const deadline = Date.now() + 30_000;
    while ((!w.ready || acked(w.ackFile).length === 0) && Date.now() < deadline) await sleep(5);
    await sleep(Math.floor(Math.random() * 50));
    w.child.kill('SIGKILL');
    await w.exited;
    // the other writers stop (SIGSTOP) while the store is checked: integrity_check reads the
    // whole file in one read transaction, and writers going on meanwhile grew the file (and the
    // WAL, which that long read keeps from being checkpointed) faster than it could be read,
    // each check slower than the last (a run stalled at its 85th iteration with 10 GB of WAL)
    const others = writers.filter((x) => x !== w);
    for (const o of others) o.child.kill('SIGSTOP');
    await verify([w.ackFile], others);
    for (const o of others) o.child.kill('SIGCONT');
    writers[slot] = spawnWriter();
  }
  for (const w of writers) w.child.kill('SIGKILL');
  await Promise.all(writers.map((w) => w.exited));
  const files = Array.from({ length: spawned }, (_, i) => join(dir, `acks-${i}.txt`));
  verified = 0;
  await verify(files);
  check.close();
  // the store opens cleanly after all that, and says ok
  const after = await openRuntime({ dataDir: dir, rateLimit: null });
  const finalIntegrity = (await after.deps.db.get<{ integrity_check: string }>('PRAGMA integrity_check'))!.integrity_check;
  const total = Number((await after.deps.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM charges'))!.n);
  await after.close();
  const errors = writers.flatMap((w) => w.errors);
  const secs = (performance.now() - started) / 1000;
  report(
    `kill -9 ${ITERATIONS} iterations × ${WRITERS} writers → ${verified} acknowledged writes, ${lost} lost, ${partial} partial; ${total} charges stored; integrity_check ok ${ITERATIONS + 1 - integrityFailures}/${ITERATIONS + 1}; checks started over after SQLITE_PROTOCOL: ${protocolRetries} (${secs.toFixed(1)} s)`,
  );
  rmSync(dir, { recursive: true, force: true });
  expect(errors).toEqual([]);
  expect(verified).toBeGreaterThan(ITERATIONS);
  expect(lost).toBe(0);
  expect(partial).toBe(0);
  expect(integrityFailures).toBe(0);
  expect(finalIntegrity).toBe('ok');
}, 240_000);
