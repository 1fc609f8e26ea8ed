/**
 * Processes starting at once on a fresh data directory all make or read its master.key: each
 * must come away with the same 32-byte key, never a file another is still writing. Threads of
 * one process race through the same file-system calls as processes would.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bundleWorker } from '../helpers/bundle.js';
import { report } from './helpers.js';

const ROUNDS = 60;
const RACERS = 24;
let bundle: { file: string; outDir: string };
beforeAll(async () => {
  bundle = await bundleWorker('src/server/keyring.ts', 'keyring');
}, 60_000);
afterAll(() => rmSync(bundle.outDir, { recursive: true, force: true }));

const racer = `
const { workerData, parentPort } = require('node:worker_threads');
import(workerData.file).then(({ Keyring }) => {
  try {
    const k = Keyring.fromEnvOrDir(workerData.dir, {});
    parentPort.postMessage({ ok: true, hash: k.hashSecret('probe') });
  } catch (e) {
    parentPort.postMessage({ ok: false, message: e.message });
  }
});`;

it(`${RACERS} starts at once on a fresh data directory, ${ROUNDS} times → one key each time, no partial file read`, async () => {
  const root = mkdtempSync(join(tmpdir(), 'mpay-key-race-'));
  let failures: string[] = [];
  let splitKeys = 0;
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const dir = join(root, `d${round}`);
      const answers = await Promise.all(
        Array.from(
          { length: RACERS },
          () =>
            new Promise<{ ok: boolean; hash?: string; message?: string }>((resolve, reject) => {
              const w = new Worker(racer, { eval: true, workerData: { file: bundle.file, dir } });
              w.once('message', (m) => {
                resolve(m);
                void w.terminate();
              });
              w.once('error', reject);
            }),
        ),
      );
      failures = failures.concat(answers.filter((a) => !a.ok).map((a) => a.message!));
      if (new Set(answers.filter((a) => a.ok).map((a) => a.hash)).size > 1) splitKeys++;
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  report(`master key: ${ROUNDS} fresh data dirs × ${RACERS} starts at once → ${failures.length} refused, ${splitKeys} dirs with two keys`);
  expect(failures).toEqual([]);
  expect(splitKeys).toBe(0);
}, 600_000); // 1,440 threads each load the keyring: minutes on a busy two-core machine
