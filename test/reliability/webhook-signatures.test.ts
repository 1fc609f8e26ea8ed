/**
 * 1,000 webhook deliveries with random payloads, each judged by the public standardwebhooks
 * verifier (test/helpers/signed-deliveries.ts). The server suite sends the first 50 of the same
 * payloads on both backends; this sends them all, on SQLite. The store is in memory (/dev/shm):
 * the suite is about signatures and payloads, not the disk.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'vitest';
import { testEnv } from '../helpers/server.js';
import { signedDeliveriesVerify } from '../helpers/signed-deliveries.js';
import { openSqlite } from '../../src/store/sqlite.js';
import { memTempDir, report } from './helpers.js';

const DELIVERIES = 1000;

it(`${DELIVERIES.toLocaleString('en')} deliveries with random payloads all verify and carry {id, type, created_at, data}`, async () => {
  const mem = memTempDir('mpay-signatures-');
  const env = await testEnv({ openDb: () => openSqlite(join(mem, 'mpay.db')) });
  try {
    const t0 = performance.now();
    const { deliverMs } = await signedDeliveriesVerify(env, DELIVERIES);
    const totalS = ((performance.now() - t0) / 1000).toFixed(1);
    report(`webhook signatures ${DELIVERIES} deliveries of random payloads (16 at once) → ${DELIVERIES} verified by standardwebhooks, data unchanged; delivered in ${(deliverMs / 1000).toFixed(1)} s (${totalS} s in all)`);
  } finally {
    await env.close();
    rmSync(mem, { recursive: true, force: true });
  }
}, 120_000);
