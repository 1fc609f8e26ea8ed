/**
 * `withdrawals.request_hash` (what tells a retry of a withdrawal's `idempotency_key` from a
 * different request) is keyed with the master key, like the Idempotency-Key hashes: a plain
 * hash of the request would let anyone holding a copy of the database confirm guesses of it.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { WithdrawalCreate } from '../../src/contract/resources/withdrawals.js';
import { openRuntime, type Runtime } from '../../src/server/runtime.js';
import { withdrawalRequestDigest } from '../../src/server/services/withdrawals.js';
import { credit } from '../../src/server/services/ledger.js';
import { createMerchant, type NewMerchant } from '../../src/server/services/merchants.js';
import { testStore, type TestStore } from '../helpers/backend.js';
import { inReplicas, requestWorker } from '../helpers/replicas.js';
import { basic } from '../helpers/server.js';
import { CPF } from '../helpers/money.js';

let store: TestStore;
let rt: Runtime;
let m: NewMerchant;
const others: Array<{ rt: Runtime; dir: string }> = [];

beforeEach(async () => {
  store = await testStore();
  rt = await openRuntime({ dataDir: store.dir, db: await store.open(), rateLimit: null, validateResponses: true });
  m = await rt.deps.db.tx((q) => createMerchant(q, rt.deps, 'Loja Saques', new Date()));
  await rt.deps.db.tx((q) =>
    credit(q, rt.deps.ids, { walletId: m.wallet_id, amount: 100_000, referenceType: 'test', referenceId: rt.deps.ids(), description: 'funding', at: new Date() }),
  );
});
afterEach(async () => {
  for (const o of others.splice(0)) {
    await o.rt.close();
    rmSync(o.dir, { recursive: true, force: true });
  }
  await rt.close();
  await store.cleanup();
});

let worker: Awaited<ReturnType<typeof requestWorker>>;
beforeAll(async () => {
  worker = await requestWorker('request-hash-worker');
}, 60_000);
afterAll(() => worker.cleanup());

/** Another runtime on the same store: with the same data directory (master key), or with its own. */
async function reopen(sameKey: boolean): Promise<Runtime> {
  const dir = sameKey ? store.dir : mkdtempSync(join(tmpdir(), 'mpay-otherkey-'));
  const other = await openRuntime({ dataDir: dir, db: await store.open(), rateLimit: null, validateResponses: true });
  others.push({ rt: other, dir: sameKey ? mkdtempSync(join(tmpdir(), 'mpay-unused-')) : dir });
  return other;
}

const pix = (key: string, over: Record<string, unknown> = {}) => ({
  type: 'pix',
  wallet_id: m.wallet_id,
  amount: 1_000,
  pix_key: 'ana@example.com',
  pix_key_type: 'email',
  holder_document_type: 'cpf',
  holder_document: CPF,
  idempotency_key: key,
  metadata: { order: 'A1' },
  ...over,
});

async function withdraw(on: Runtime, body: unknown, auth = basic(m.public_key, m.secret_key)) {
  const res = await on.app.request('/v1/withdrawals', {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { data: { id: string }; error?: string } };
}

interface Row {
  id: string;
  wallet_id: string;
  amount: number;
  recipient_snapshot: string;
  request_hash: string;
}

/** The unkeyed SHA-256 of the canonical request (without the PIN) that a stored PIX row stands for. */
function plainHash(r: Row, metadata: unknown): string {
  return withdrawalRequestDigest({
    type: 'pix',
    wallet_id: r.wallet_id,
    amount: Number(r.amount),
    destination: JSON.parse(r.recipient_snapshot),
    metadata,
  } as WithdrawalCreate);
}

const rowOf = async (key: string) =>
  (await rt.deps.db.get<Row & { request_hash_alg: string }>(
    'SELECT id, wallet_id, amount, recipient_snapshot, request_hash, request_hash_alg FROM withdrawals WHERE idempotency_key = ?',
    [key],
  ))!;

/** Makes a stored withdrawal what an older version wrote: the plain SHA-256 of its request. */
async function unkey(key: string, metadata: unknown): Promise<string> {
  const plain = plainHash(await rowOf(key), metadata);
  await rt.deps.db.run("UPDATE withdrawals SET request_hash = ?, request_hash_alg = 'sha256' WHERE idempotency_key = ?", [plain, key]);
  return plain;
}

describe('withdrawals.request_hash', () => {
  it('is keyed with the master key: not a plain hash of the request', async () => {
    const body = pix('keyed-1');
    expect((await withdraw(rt, body)).status).toBe(201);
    const row = await rowOf('keyed-1');
    const plain = [plainHash(row, body.metadata), ...['sha256', 'sha1', 'md5'].map((alg) => createHash(alg).update(JSON.stringify(body)).digest('hex'))];
    expect(plain).not.toContain(row.request_hash);
    expect(row.request_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('depends on the master key: a server with another key cannot match the stored request', async () => {
    const body = pix('keyed-2');
    const first = await withdraw(rt, body);
    expect(first.status).toBe(201);
    // the same key on the same store replays the withdrawal
    const same = await withdraw(await reopen(true), body);
    expect(same.status).toBe(200);
    expect(same.body.data.id).toBe(first.body.data.id);
    // under another master key (with a key of the merchant's that it can check) the stored
    // hash is not the one this request makes
    const other = await reopen(false);
    const secret = 'sk_test_other-master-key';
    const publicKey = `pk_test_${'0'.repeat(31)}1`;
    await other.deps.db.run(
      `INSERT INTO api_keys (id, merchant_id, name, public_key, secret_hash, is_active, allowed_ips, created_at) VALUES (?, ?, 'other', ?, ?, 1, '[]', ?)`,
      [other.deps.ids(), m.merchant_id, publicKey, other.deps.keyring.hashSecret(secret), new Date().toISOString()],
    );
    const foreign = await withdraw(other, body, basic(publicKey, secret));
    expect(foreign.status).toBe(409);
    expect(foreign.body.error).toBe('idempotency_conflict');
  });

  it('a row of an older version (plain SHA-256) still replays and conflicts, and is keyed when a server opens the store', async () => {
    const body = pix('old-1');
    const first = await withdraw(rt, body);
    expect(first.status).toBe(201);
    const plain = await unkey('old-1', body.metadata);
    const balance = async () => Number((await rt.deps.db.get<{ b: number }>('SELECT balance AS b FROM wallets WHERE id = ?', [m.wallet_id]))!.b);
    const before = await balance();

    // a running server compares such a row with the plain digest, and leaves it as it is
    const again = await withdraw(rt, body);
    expect(again.status).toBe(200);
    expect(again.body.data.id).toBe(first.body.data.id);
    const other = await withdraw(rt, { ...body, amount: 1_001 });
    expect(other.status).toBe(409);
    expect(other.body.error).toBe('idempotency_conflict');
    expect(await rowOf('old-1')).toMatchObject({ request_hash: plain, request_hash_alg: 'sha256' });

    // a server that opens the store keys it
    const next = await reopen(true);
    const row = await rowOf('old-1');
    expect(row.request_hash_alg).toBe('hmac-sha256');
    expect(row.request_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.request_hash).not.toBe(plain);
    for (const server of [next, rt]) {
      const replay = await withdraw(server, body);
      expect(replay.status).toBe(200);
      expect(replay.body.data.id).toBe(first.body.data.id);
      const conflict = await withdraw(server, { ...body, metadata: { order: 'A2' } });
      expect(conflict.status).toBe(409);
      expect(conflict.body.error).toBe('idempotency_conflict');
    }
    // a withdrawal made after keying is keyed the same way: its hash matches on every server
    expect((await withdraw(next, pix('new-1'))).status).toBe(201);
    expect((await withdraw(rt, pix('new-1'))).status).toBe(200);
    expect(await balance()).toBe(before - 1_000);
  });

  it('two server processes opening a store of old rows at once: every row keyed once, replays and conflicts on both', async () => {
    const body = pix('template');
    expect((await withdraw(rt, body)).status).toBe(201);
    const template = await rowOf('template');
    const ROWS = 3_000;
    await rt.deps.db.run(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < CAST(? AS INTEGER))
       INSERT INTO withdrawals (id, merchant_id, wallet_id, type, acquirer_name, amount, fee, net_amount, status, recipient_snapshot, metadata,
         idempotency_key, request_hash, request_hash_alg, created_at, updated_at)
       SELECT SUBSTR(w.id, 1, 24) || CAST(n.i + 100000000000 AS TEXT), w.merchant_id, w.wallet_id, w.type, w.acquirer_name, w.amount, w.fee, w.net_amount, 'failed',
         w.recipient_snapshot, w.metadata, 'bulk-' || CAST(n.i AS TEXT), ?, 'sha256', w.created_at, w.updated_at
       FROM n, withdrawals w WHERE w.id = ?`,
      [ROWS, plainHash(template, body.metadata), template.id],
    );
    expect(Number((await rt.deps.db.get<{ n: number }>("SELECT COUNT(*) AS n FROM withdrawals WHERE request_hash_alg = 'sha256'"))!.n)).toBe(ROWS);

    // each process keys the old rows as it opens the store, then replays one and conflicts with another
    const requests = [
      { method: 'POST', path: '/v1/withdrawals', body: { ...body, idempotency_key: 'bulk-7' } },
      { method: 'POST', path: '/v1/withdrawals', body: { ...body, amount: 1_001, idempotency_key: 'bulk-8' } },
    ];
    const job = { auth: basic(m.public_key, m.secret_key), requests };
    const results = await inReplicas(worker.file, store, [job, job]);
    for (const r of results) expect(r).toEqual([{ status: 200, error: null }, { status: 409, error: 'idempotency_conflict' }]);
    const hashes = await rt.deps.db.all<{ request_hash: string; request_hash_alg: string }>(
      "SELECT request_hash, request_hash_alg FROM withdrawals WHERE idempotency_key LIKE 'bulk-%'",
    );
    expect(hashes).toHaveLength(ROWS);
    // the same request in every row: one keyed hash, the template's (a row keyed twice would differ)
    expect(new Set(hashes.map((h) => `${h.request_hash_alg} ${h.request_hash}`))).toEqual(new Set([`hmac-sha256 ${template.request_hash}`]));
  }, 60_000);
});
