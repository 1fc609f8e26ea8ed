/**
 * The one idempotency helper (src/server/idempotency.ts) that both the API pipeline
 * (Idempotency-Key) and the hosted checkout (attempt_id) use, and its one rule for which
 * answers are kept: every 2xx and the 4xx of a request that ran; never a request refused
 * before it ran (400/413/415), a 409, a 429 or a 5xx.
 */
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../src/server/errors.js';
import { ANSWER_WAIT_MS, keepsAnswer, keptAnswer, keptText, withIdempotency, withIdempotencyInTx } from '../../src/server/idempotency.js';
import { runDueWork } from '../../src/server/due.js';
import { chargeBody, tokenize } from '../helpers/money.js';
import { basic, testEnv, type TestEnv } from '../helpers/server.js';
import type { Queryable } from '../../src/store/db.js';

let env: TestEnv;
beforeEach(async () => {
  env = await testEnv({ checkoutRateLimit: null });
});
afterEach(async () => env.close());

const ok = (n: number) => async () => ({ value: n, keep: { status: 201, body: JSON.stringify({ n }) } });

describe('withIdempotency', () => {
  it('runs once and replays the kept answer; another request under the key is a 409', async () => {
    const { deps } = env.rt;
    const m = env.merchant.merchant_id;
    const first = await withIdempotency(deps, m, 'k', 'h1', ok(1));
    expect(first).toEqual({ replayed: false, value: 1 });
    const again = await withIdempotency(deps, m, 'k', 'h1', ok(2));
    expect(again).toEqual({ replayed: true, response: { status: 201, body: '{"n":1}' } });
    await expect(withIdempotency(deps, m, 'k', 'h2', ok(3))).rejects.toMatchObject({ code: 'idempotency_conflict' });
  });

  it.each([
    ['not_found', true],
    ['business_rule', true],
    ['card_declined', true],
    ['forbidden', true],
    ['validation_error', false],
    ['invalid_json', false],
    ['payload_too_large', false],
    ['unsupported_media_type', false],
    ['conflict', false],
    ['idempotency_conflict', false],
    ['rate_limited', false],
    ['internal_error', false],
    ['service_unavailable', false],
  ] as const)('%s: kept = %s', async (code, kept) => {
    expect(keepsAnswer(new ApiError(code, 'x'))).toBe(kept);
    const { deps } = env.rt;
    const m = env.merchant.merchant_id;
    await expect(
      withIdempotency(deps, m, `k-${code}`, 'h', async () => {
        throw new ApiError(code, `refused: ${code}`);
      }),
    ).rejects.toMatchObject({ code });
    const next = await withIdempotency(deps, m, `k-${code}`, 'h', ok(7));
    if (kept) {
      expect(next.replayed).toBe(true);
      expect(JSON.parse((next as { response: { body: string } }).response.body)).toEqual({ success: false, message: `refused: ${code}`, error: code });
    } else expect(next).toEqual({ replayed: false, value: 7 });
  });

  it('an unexpected error frees the key', async () => {
    const { deps } = env.rt;
    const m = env.merchant.merchant_id;
    await expect(
      withIdempotency(deps, m, 'boom', 'h', async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await withIdempotency(deps, m, 'boom', 'h', ok(1))).toEqual({ replayed: false, value: 1 });
  });
});

describe('the API pipeline and the checkout keep the same answers', () => {
  it('a validation refusal is not kept by either: the same key / attempt runs again', async () => {
    const api = await env.call('POST', '/v1/api-keys', { name: '' }, { 'idempotency-key': 'same-rule' });
    expect(api.status).toBe(400);
    const apiAgain = await env.call('POST', '/v1/api-keys', { name: '' }, { 'idempotency-key': 'same-rule' });
    expect(apiAgain.headers.get('idempotent-replayed')).toBeNull();

    // a link whose amount is too small for 3 installments: the charge service refuses it (400 installments)
    const link = await env.call('POST', '/v1/payment-links', {
      title: 'Bala',
      product_type: 'digital',
      allowed_payment_methods: ['credit_card'],
      amount: 2,
      max_installments: 3,
    });
    expect(link.status, JSON.stringify(link.body)).toBe(201);
    const body = JSON.stringify({
      attempt_id: 'attempt-same-rule',
      payment_method: 'credit_card',
      token: await tokenize(env),
      installments: 3,
      customer: { name: 'Ana Souza', email: 'ana@example.com', tax_id: '52998224725', phone: '(11) 98765-4321' },
    });
    const pay = () =>
      env.rt.app.request(`/checkout/${link.body.data.id}/pay`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const a = await pay();
    expect(a.status, await a.clone().text()).toBe(400);
    expect((await a.json()).details[0].field).toBe('installments');
    const b = await pay();
    expect(b.status).toBe(400);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
  });
});

const card = (cvv: string, number = '4111111111111111') => ({ card: { number, holderName: 'Ana Souza', expirationMonth: '12', expirationYear: '2030', cvv } });
const publicAuth = () => ({ authorization: basic(env.merchant.public_key, '') });

describe('nothing derived from card data in the idempotency table', () => {
  it('POST /v1/tokens with an Idempotency-Key stores nothing: tokenizing is idempotent by the card (keyed fingerprint)', async () => {
    const a = await env.call('POST', '/v1/tokens', card('123'), { ...publicAuth(), 'idempotency-key': 'tok-1' });
    expect(a.status).toBe(201);
    const rows = await env.rt.deps.db.all<{ key: string }>('SELECT key FROM idempotency_keys');
    expect(rows).toEqual([]);
    // the retry is answered by the card itself: the same token, answered as the first
    const b = await env.call('POST', '/v1/tokens', card('123'), { ...publicAuth(), 'idempotency-key': 'tok-1' });
    expect(b.status).toBe(201);
    expect(b.body.data.token).toBe(a.body.data.token);
    // another card under the same key is its own tokenization (nothing was kept to compare with)
    const c = await env.call('POST', '/v1/tokens', card('456', '5555555555554444'), { ...publicAuth(), 'idempotency-key': 'tok-1' });
    expect(c.status).toBe(201);
    expect(await env.rt.deps.db.all('SELECT key FROM idempotency_keys')).toEqual([]);
  });

  it('request_hash is keyed with the server secret: not a plain hash of the request, different under another master key', async () => {
    const body = { name: 'keyed' };
    const r = await env.call('POST', '/v1/api-keys', body, { 'idempotency-key': 'keyed-1' });
    expect(r.status).toBe(201);
    const row = await env.rt.deps.db.get<{ request_hash: string }>('SELECT request_hash FROM idempotency_keys WHERE key = ?', ['keyed-1']);
    const raw = JSON.stringify(body);
    const plain = ['sha256', 'sha1', 'md5'].flatMap((alg) => [
      createHash(alg).update(raw).digest('hex'),
      createHash(alg).update(`POST /v1/api-keys\n${raw}`).digest('hex'),
    ]);
    expect(plain).not.toContain(row!.request_hash);
    const other = await testEnv();
    try {
      // same request, same merchant-independent inputs, another data directory (another master key)
      const r2 = await other.call('POST', '/v1/api-keys', body, { 'idempotency-key': 'keyed-1' });
      expect(r2.status).toBe(201);
      const row2 = await other.rt.deps.db.get<{ request_hash: string }>('SELECT request_hash FROM idempotency_keys WHERE key = ?', ['keyed-1']);
      expect(row2!.request_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(row2!.request_hash).not.toBe(row!.request_hash);
    } finally {
      await other.close();
    }
  });
});

describe('idempotency keys are scoped by credential kind', () => {
  it("a publishable-key request never occupies (or reveals) the merchant's secret-key Idempotency-Keys", async () => {
    const t = await env.call('POST', '/v1/tokens', card('123'), { ...publicAuth(), 'idempotency-key': 'order-50659' });
    expect(t.status).toBe(201);
    const charge = await env.call('POST', '/v1/charges', chargeBody(4990, { payment_method: 'credit_card', payment_details: { token: t.body.data.token, installments: 1 } }), {
      'idempotency-key': 'order-50659',
    });
    expect(charge.status, JSON.stringify(charge.body)).toBe(201);
    expect(charge.headers.get('idempotent-replayed')).toBeNull();
    // and the other way round: the merchant's key in use tells a publishable-key caller nothing (no 409)
    const probe = await env.call('POST', '/v1/tokens', card('999', '5555555555554444'), { ...publicAuth(), 'idempotency-key': 'order-50659' });
    expect(probe.status).toBe(201);
  });
});

describe('a secret shown once is never kept by an Idempotency-Key (a replay answers without it)', () => {
  it.each([
    ['POST /v1/api-keys', '/v1/api-keys', { name: 'ci' }, 'secret_key', /^sk_/],
    ['POST /v1/postbacks/endpoints', '/v1/postbacks/endpoints', { url: 'https://shop.example.com/hooks', events: ['charge.captured'] }, 'secret', /^whsec_/],
  ] as const)('%s', async (_name, path, body, field, shape) => {
    const first = await env.call('POST', path, body, { 'idempotency-key': `secret-${field}` });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const secret = first.body.data[field] as string;
    expect(secret).toMatch(shape);
    const rows = await env.rt.deps.db.all<{ response_body: string }>('SELECT response_body FROM idempotency_keys');
    expect(rows).toHaveLength(1);
    expect(rows[0]!.response_body).not.toContain(secret);
    expect(rows[0]!.response_body).not.toMatch(/sk_|whsec_/);
    const replay = await env.call('POST', path, body, { 'idempotency-key': `secret-${field}` });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const { [field]: shown, ...rest } = first.body.data;
    expect(shown).toBe(secret);
    expect(replay.body.data).toEqual(rest);
    expect(JSON.stringify(replay.body)).not.toContain(secret);
  });
});

describe('the answer kept of a text already serialised (keptText)', () => {
  it('is the text itself when no key is a secret shown once, and the answer without it when one is', () => {
    const charge = JSON.stringify({ success: true, message: 'ok', data: { id: 'c1', description: 'a "secret" gift', metadata: { note: 'secret_key' } } });
    expect(keptText(charge)).toBe(charge);
    const key = JSON.stringify({ success: true, data: { id: 'k1', secret_key: 'sk_live_x', name: 'ci' } });
    expect(keptText(key)).toBe(JSON.stringify({ success: true, data: { id: 'k1', name: 'ci' } }));
    const endpoint = JSON.stringify({ success: true, data: { id: 'e1', secret: 'whsec_x' } });
    expect(keptText(endpoint)).toBe(JSON.stringify({ success: true, data: { id: 'e1' } }));
    // a nested key of that name: what keptAnswer keeps of the parsed envelope, as before
    const nested = JSON.stringify({ success: true, data: { id: 'c2', metadata: { secret: 'kept' } } });
    expect(keptText(nested)).toBe(keptAnswer(JSON.parse(nested)));
  });
});

describe('expired Idempotency-Keys are purged by the due work', () => {
  it('a key is deleted once its 24 h are over; a younger one stays', async () => {
    await env.call('POST', '/v1/api-keys', { name: 'old' }, { 'idempotency-key': 'old-key' });
    env.clock.advance(12 * 3600_000);
    await env.call('POST', '/v1/api-keys', { name: 'young' }, { 'idempotency-key': 'young-key' });
    const keys = async () => (await env.rt.deps.db.all<{ key: string }>('SELECT key FROM idempotency_keys ORDER BY key')).map((r) => r.key);
    expect(await keys()).toEqual(['old-key', 'young-key']);
    env.clock.advance(12 * 3600_000 + 1000);
    expect((await env.call('GET', '/v1/merchant')).status).toBe(200);
    expect(await keys()).toEqual(['young-key']);
    env.clock.advance(12 * 3600_000);
    await runDueWork(env.rt.deps);
    expect(await keys()).toEqual([]);
  });
});

describe('POST /v1/charges claims its Idempotency-Key in the charge’s own transaction', () => {
  it('concurrent identical requests under one key make one charge and one answer', async () => {
    const token = await tokenize(env);
    const body = chargeBody(1990, { payment_method: 'credit_card', payment_details: { token, installments: 1 } });
    const results = await Promise.all(Array.from({ length: 40 }, () => env.call('POST', '/v1/charges', body, { 'idempotency-key': 'one-charge' })));
    expect(new Set(results.map((r) => r.status))).toEqual(new Set([201]));
    expect(new Set(results.map((r) => r.body.data.id)).size).toBe(1);
    expect(results.filter((r) => r.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    const charges = await env.rt.deps.db.all<{ id: string }>('SELECT id FROM charges WHERE merchant_id = ?', [env.merchant.merchant_id]);
    expect(charges.map((c) => c.id)).toEqual([results[0]!.body.data.id]);
    const keys = await env.rt.deps.db.all<{ state: string; status_code: number }>('SELECT state, status_code FROM idempotency_keys WHERE key = ?', ['one-charge']);
    expect(keys).toEqual([{ state: 'done', status_code: 201 }]);
    // another body under the key is still a conflict, and nothing of its run commits (its
    // transaction, which found the key known at its end, rolled back)
    const other = await env.call('POST', '/v1/charges', { ...body, amount: 2000, items: [{ name: 'Curso', quantity: 1, unit_price: 2000, tangible: false }] }, { 'idempotency-key': 'one-charge' });
    expect(other.status).toBe(409);
    expect(other.body.error).toBe('idempotency_conflict');
    expect(await env.rt.deps.db.all('SELECT id FROM charges WHERE merchant_id = ?', [env.merchant.merchant_id])).toEqual(charges);
    expect(await env.rt.deps.db.all('SELECT id FROM events WHERE merchant_id = ? AND charge_id <> ?', [env.merchant.merchant_id, charges[0]!.id])).toEqual([]);
  });

  it('a refusal of the charge (no such card token) is kept and replayed; a validation refusal is not kept', async () => {
    const body = chargeBody(1990, { payment_method: 'credit_card', payment_details: { token: 'tok_missing', installments: 1 } });
    const a = await env.call('POST', '/v1/charges', body, { 'idempotency-key': 'no-token' });
    expect(a.status).toBe(422);
    const b = await env.call('POST', '/v1/charges', body, { 'idempotency-key': 'no-token' });
    expect(b.status).toBe(422);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(b.body).toEqual(a.body);
    const bad = await env.call('POST', '/v1/charges', { ...body, amount: -1 }, { 'idempotency-key': 'fix-me' });
    expect(bad.status).toBe(400);
    expect(await env.rt.deps.db.all('SELECT key FROM idempotency_keys WHERE key = ?', ['fix-me'])).toEqual([]);
    const good = await cardChargeUnder(env, 'fix-me');
    expect(good.status).toBe(201);
    expect(good.headers.get('idempotent-replayed')).toBeNull();
  });
});

/** Counts the transactions the app's store is asked for (both backends). */
function countTransactions(e: TestEnv): { readonly n: number } {
  const db = e.rt.deps.db;
  const tx = db.tx.bind(db);
  const counter = { n: 0 };
  db.tx = (fn) => {
    counter.n++;
    return tx(fn);
  };
  return counter;
}

const keyRow = (e: TestEnv, key: string) =>
  e.rt.deps.db.get<{ state: string; status_code: number; response_body: string }>(
    'SELECT state, status_code, response_body FROM idempotency_keys WHERE merchant_id = ? AND key = ?',
    [e.merchant.merchant_id, key],
  );

describe('POST /v1/charges keeps its answer in the charge’s own transaction (one transaction per POST)', () => {
  it('one transaction holds the claim, the charge and the kept answer; a replay answers the same', async () => {
    const token = await tokenize(env);
    const body = chargeBody(1990, { payment_method: 'credit_card', payment_details: { token, installments: 1 } });
    const txs = countTransactions(env);
    const res = await env.call('POST', '/v1/charges', body, { 'idempotency-key': 'one-tx' });
    expect(res.status).toBe(201);
    expect(txs.n).toBe(1);
    const row = await keyRow(env, 'one-tx');
    expect(row).toMatchObject({ state: 'done', status_code: 201 });
    expect(JSON.parse(row!.response_body)).toEqual(res.body);
    const again = await env.call('POST', '/v1/charges', body, { 'idempotency-key': 'one-tx' });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(res.body);
  });

  it('the card token is read in that transaction, not before it', async () => {
    // on SQLite a read outside a transaction, while a group commit is open, goes to the reading
    // connection, which every commit leaves cold; inside, it is one read of the writing one
    const token = await tokenize(env);
    const body = chargeBody(1990, { payment_method: 'credit_card', payment_details: { token, installments: 1 } });
    const get = vi.spyOn(env.rt.deps.db, 'get');
    try {
      const res = await env.call('POST', '/v1/charges', body, { 'idempotency-key': 'token-in-tx' });
      expect(res.status).toBe(201);
      expect(res.body.data.card).toMatchObject({ brand: 'visa', last_four: '1111' });
      // read before the restore, which clears them
      const plain = get.mock.calls.map(([sql]) => sql);
      expect(plain.filter((sql) => sql.includes('card_tokens'))).toEqual([]);
    } finally {
      get.mockRestore();
    }
  });

  it('16 concurrent POSTs under 16 keys: 16 transactions, each charge with its own kept answer', async () => {
    const token = await tokenize(env);
    const body = chargeBody(1990, { payment_method: 'credit_card', payment_details: { token, installments: 1 } });
    const txs = countTransactions(env);
    const sqlite = (env.rt.deps.db as { groups?: { commits: number } }).groups;
    const commitsBefore = sqlite?.commits ?? 0;
    const results = await Promise.all(Array.from({ length: 16 }, (_, i) => env.call('POST', '/v1/charges', body, { 'idempotency-key': `many-${i}` })));
    expect(results.map((r) => r.status)).toEqual(Array(16).fill(201));
    expect(txs.n).toBe(16);
    // on SQLite they share group commits (fewer fsyncs than POSTs), each still its own transaction
    if (sqlite) expect(sqlite.commits - commitsBefore).toBeLessThan(16);
    for (const [i, r] of results.entries()) {
      const row = await keyRow(env, `many-${i}`);
      expect(row?.state).toBe('done');
      expect(JSON.parse(row!.response_body)).toEqual(r.body);
    }
    const n = await env.rt.deps.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM charges WHERE merchant_id = ?', [env.merchant.merchant_id]);
    expect(Number(n!.n)).toBe(16);
  });
});

describe('withIdempotencyInTx: what the handler does after its transaction', () => {
  const rename = (name: string) => (q: Queryable) =>
    q.run('UPDATE merchants SET name = ? WHERE id = ?', [name, env.merchant.merchant_id]);
  const nameOf = async () => (await env.rt.deps.db.get<{ name: string }>('SELECT name FROM merchants WHERE id = ?', [env.merchant.merchant_id]))!.name;

  it('a kept refusal after the transaction is kept in it (one transaction), its writes committed', async () => {
    const { deps } = env.rt;
    const txs = countTransactions(env);
    await expect(
      withIdempotencyInTx(deps, env.merchant.merchant_id, 'after-404', 'h', async (db) => {
        await db.tx(rename('Loja A'));
        throw new ApiError('not_found', 'gone');
      }),
    ).rejects.toMatchObject({ code: 'not_found' });
    expect(txs.n).toBe(1);
    expect(await nameOf()).toBe('Loja A');
    expect(await keyRow(env, 'after-404')).toMatchObject({ state: 'done', status_code: 404 });
  });

  it('an unexpected error after the transaction frees the key in it; its writes stay committed', async () => {
    const { deps } = env.rt;
    const txs = countTransactions(env);
    await expect(
      withIdempotencyInTx(deps, env.merchant.merchant_id, 'after-boom', 'h', async (db) => {
        await db.tx(rename('Loja B'));
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(txs.n).toBe(1);
    expect(await nameOf()).toBe('Loja B');
    expect(await keyRow(env, 'after-boom')).toBeUndefined();
  });

  it('a handler that reads or writes again after its transaction: that one commits first, the answer is kept after', async () => {
    const { deps } = env.rt;
    const m = env.merchant.merchant_id;
    const read = await withIdempotencyInTx(deps, m, 'reads-after', 'h', async (db) => {
      await db.tx(rename('Loja C'));
      // a read on the store while the first transaction would wait for the answer: no deadlock
      const row = await db.get<{ name: string }>('SELECT name FROM merchants WHERE id = ?', [m]);
      return { value: row!.name, keep: { status: 201, body: '{"read":true}' } };
    });
    expect(read).toEqual({ replayed: false, value: 'Loja C' });
    expect(await keyRow(env, 'reads-after')).toMatchObject({ state: 'done', status_code: 201, response_body: '{"read":true}' });
    const twice = await withIdempotencyInTx(deps, m, 'two-tx', 'h', async (db) => {
      await db.tx(rename('Loja D'));
      await db.tx(rename('Loja E'));
      return { value: 2, keep: { status: 201, body: '{"two":true}' } };
    });
    expect(twice).toEqual({ replayed: false, value: 2 });
    expect(await nameOf()).toBe('Loja E');
    expect(await keyRow(env, 'two-tx')).toMatchObject({ state: 'done', response_body: '{"two":true}' });
  });

  /** The answer a first request kept under a key. */
  const FIRST = { status: 201, body: '{"first":true}' };
  /** Keeps FIRST under `key` (a first request that ran) and gives the merchant's name as it stands after it. */
  const keepFirst = async (key: string) => {
    await withIdempotency(env.rt.deps, env.merchant.merchant_id, key, 'h', async () => ({ value: 1, keep: FIRST }));
    return nameOf();
  };

  it('a key already known is found by the INSERT that ends the transaction, whatever it writes: the run\'s writes roll back (a second transaction of the run\'s too) and the known answer comes instead', async () => {
    const { deps } = env.rt;
    const m = env.merchant.merchant_id;
    const before = await keepFirst('known');
    // the answer kept in the transaction ('done')
    const kept = await withIdempotencyInTx(deps, m, 'known', 'h', async (db) => {
      await db.tx(rename('Loja G'));
      return { value: 2, keep: { status: 201, body: '{"second":true}' } };
    });
    expect(kept).toEqual({ replayed: true, response: FIRST });
    // the claim let go in the transaction (an unexpected error after it)
    const released = await withIdempotencyInTx(deps, m, 'known', 'h', async (db) => {
      await db.tx(rename('Loja H'));
      throw new Error('boom');
    });
    expect(released).toEqual({ replayed: true, response: FIRST });
    // a kept refusal after the transaction
    const refused = await withIdempotencyInTx(deps, m, 'known', 'h', async (db) => {
      await db.tx(rename('Loja I'));
      throw new ApiError('not_found', 'gone');
    });
    expect(refused).toEqual({ replayed: true, response: FIRST });
    // two transactions: the first finds the key known, so the second may not commit either
    const twice = await withIdempotencyInTx(deps, m, 'known', 'h', async (db) => {
      await db.tx(rename('Loja K'));
      await db.tx(rename('Loja L'));
      return { value: 3, keep: { status: 201, body: '{"third":true}' } };
    });
    expect(twice).toEqual({ replayed: true, response: FIRST });
    expect(await nameOf()).toBe(before);
    expect(await keyRow(env, 'known')).toMatchObject({ state: 'done', response_body: '{"first":true}' });
  });

  it('a slow handler whose transaction found the key taken is not answered with writes that rolled back, even if the key is free by then', async () => {
    const { deps } = env.rt;
    const m = env.merchant.merchant_id;
    const at = deps.clock.now().getTime();
    // another request holds the key ('processing', its lock not yet over)
    await deps.db.run(
      "INSERT INTO idempotency_keys (merchant_id, key, request_hash, state, locked_until, created_at, expires_at) VALUES (?, 'held', 'h', 'processing', ?, ?, ?)",
      [m, new Date(at + 60_000).toISOString(), new Date(at).toISOString(), new Date(at + 86_400_000).toISOString()],
    );
    let runs = 0;
    const out = await withIdempotencyInTx(deps, m, 'held', 'h', async (db) => {
      const run = ++runs;
      await db.tx(rename(`Loja M${run}`));
      if (run === 1) {
        // past ANSWER_WAIT_MS its transaction commits without the answer: the key's INSERT finds it held
        await new Promise((r) => setTimeout(r, ANSWER_WAIT_MS + 100));
        // and the other request lets the key go
        await deps.db.run("DELETE FROM idempotency_keys WHERE merchant_id = ? AND key = 'held'", [m]);
      }
      return { value: run, keep: { status: 201, body: `{"run":${run}}` } };
    });
    // the first run's writes rolled back, so its value is no answer: the key's usual way runs it again
    expect(out).toEqual({ replayed: false, value: 2 });
    expect(await nameOf()).toBe('Loja M2');
    expect(await keyRow(env, 'held')).toMatchObject({ state: 'done', response_body: '{"run":2}' });
  });

  it(`a handler slower than ANSWER_WAIT_MS after its transaction: committed without the answer, which is kept after`, async () => {
    const { deps } = env.rt;
    const m = env.merchant.merchant_id;
    let seenMeanwhile: unknown;
    const out = await withIdempotencyInTx(deps, m, 'slow', 'h', async (db) => {
      await db.tx(rename('Loja F'));
      await new Promise((r) => setTimeout(r, ANSWER_WAIT_MS + 100));
      // the transaction did not wait for this handler: another request saw it committed
      seenMeanwhile = await env.rt.deps.db.get('SELECT state FROM idempotency_keys WHERE merchant_id = ? AND key = ?', [m, 'slow']);
      return { value: 'late', keep: { status: 201, body: '{"late":true}' } };
    });
    expect(out).toEqual({ replayed: false, value: 'late' });
    expect(seenMeanwhile).toEqual({ state: 'processing' });
    expect(await keyRow(env, 'slow')).toMatchObject({ state: 'done', response_body: '{"late":true}' });
  });
});

async function cardChargeUnder(e: TestEnv, key: string) {
  const token = await tokenize(e);
  return e.call('POST', '/v1/charges', chargeBody(1990, { payment_method: 'credit_card', payment_details: { token, installments: 1 } }), { 'idempotency-key': key });
}
