/**
 * Revoking a merchant's keys from two replicas at once, on the current backend (one SQLite
 * file shared by two processes, or one PostgreSQL database): each merchant holds the most
 * active keys it may and each key revokes itself, half through each replica, all in flight
 * together (several merchants at once, so that several last-key races run in one go). For
 * every merchant exactly one revocation is refused as the last active key (409 conflict) and
 * that key stays active.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openRuntime } from '../../src/server/runtime.js';
import { MAX_ACTIVE_API_KEYS } from '../../src/server/services/apiKeys.js';
import { createMerchant } from '../../src/server/services/merchants.js';
import { backend, testStore } from '../helpers/backend.js';
import { inReplicas, requestWorker } from '../helpers/replicas.js';
import { basic } from '../helpers/server.js';

let worker: Awaited<ReturnType<typeof requestWorker>>;
beforeAll(async () => {
  worker = await requestWorker('keys-race-worker');
}, 60_000);
afterAll(() => worker.cleanup());

const MERCHANTS = 4;

it(`${MERCHANTS} merchants × ${MAX_ACTIVE_API_KEYS} keys, each key revoking itself through two replicas at once (${backend}) → one refused per merchant, one key left active`, async () => {
  const store = await testStore();
  const rt = await openRuntime({ dataDir: store.dir, db: await store.open(), rateLimit: null });
  try {
    const merchants: Array<{ id: string; keys: Array<{ id: string; auth: string }> }> = [];
    for (let n = 0; n < MERCHANTS; n++) {
      const m = await rt.deps.db.tx((q) => createMerchant(q, rt.deps, `Loja Chaves ${n}`, new Date()));
      const first = await rt.deps.db.get<{ id: string }>('SELECT id FROM api_keys WHERE merchant_id = ?', [m.merchant_id]);
      const keys = [{ id: first!.id, auth: basic(m.public_key, m.secret_key) }];
      while (keys.length < MAX_ACTIVE_API_KEYS) {
        const res = await rt.app.request('/v1/api-keys', {
          method: 'POST',
          headers: { authorization: keys[0]!.auth, 'content-type': 'application/json' },
          body: JSON.stringify({ name: `k${keys.length}` }),
        });
        expect(res.status).toBe(201);
        const k = ((await res.json()) as { data: { id: string; public_key: string; secret_key: string } }).data;
        keys.push({ id: k.id, auth: basic(k.public_key, k.secret_key) });
      }
      merchants.push({ id: m.merchant_id, keys });
    }
    // each replica gets half of every merchant's keys, the merchants interleaved
    const half = MAX_ACTIVE_API_KEYS / 2;
    const batch = (from: number) =>
      Array.from({ length: half }, (_, i) => merchants.map((m) => m.keys[from + i]!)).flat();
    const batches = [batch(0), batch(half)];
    const answers = await inReplicas(
      worker.file,
      store,
      batches.map((b) => ({ auth: '', requests: b.map((k) => ({ method: 'DELETE', path: `/v1/api-keys/${k.id}`, auth: k.auth })) })),
    );
    const byKey = new Map(batches.flat().map((k, i) => [k.id, answers.flat()[i]!]));
    expect([...byKey.values()].filter((r) => r.status >= 500)).toEqual([]);
    for (const m of merchants) {
      const results = m.keys.map((k) => byKey.get(k.id)!);
      const active = await rt.deps.db.all<{ id: string }>('SELECT id FROM api_keys WHERE merchant_id = ? AND is_active = 1', [m.id]);
      expect(active, `answers: ${JSON.stringify(results)}`).toHaveLength(1);
      expect(results.filter((r) => r.status === 409)).toEqual([{ status: 409, error: 'conflict' }]);
      expect(results.filter((r) => r.status === 200)).toHaveLength(MAX_ACTIVE_API_KEYS - 1);
      // the refused one is the key left active
      expect(m.keys[results.findIndex((r) => r.status === 409)]!.id).toBe(active[0]!.id);
    }
  } finally {
    await rt.close();
    await store.cleanup();
  }
}, 120_000);
