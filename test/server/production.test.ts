import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { endpoints, type AnyEndpoint } from '../../src/contract/index.js';
import { basic, testEnv, type TestEnv } from '../helpers/server.js';
import { cardCharge, chargeBody, tokenize } from '../helpers/money.js';
import { createMerchant } from '../../src/server/services/merchants.js';
import { runDueWork } from '../../src/server/due.js';

/** Production is not the sandbox. */
let prod: TestEnv;
beforeEach(async () => {
  prod = await testEnv({ mode: 'production' });
});
afterEach(async () => {
  await prod.close();
});

const sandboxOps = (endpoints as readonly AnyEndpoint[]).filter((e) => e.sandbox);

describe('/openapi.json in production (18.16)', () => {
  it('leaves out the sandbox operations, which do not exist there, and keeps every other one', async () => {
    expect(sandboxOps.length).toBeGreaterThan(0);
    const doc = await (await prod.rt.app.request('/openapi.json')).json();
    const ops = Object.values(doc.paths as Record<string, Record<string, { operationId: string; 'x-sandbox-only'?: boolean }>>).flatMap((p) => Object.values(p));
    const ids = ops.map((o) => o.operationId);
    for (const e of sandboxOps) expect(ids, e.id).not.toContain(e.id);
    expect(ops.some((o) => o['x-sandbox-only'])).toBe(false);
    expect(ids.sort()).toEqual((endpoints as readonly AnyEndpoint[]).filter((e) => !e.sandbox).map((e) => e.id).sort());
    // no path left without operations
    for (const [p, item] of Object.entries(doc.paths as Record<string, object>)) expect(Object.keys(item).length, p).toBeGreaterThan(0);
  });

  it('the sandbox document still lists them, marked x-sandbox-only', async () => {
    const sandbox = await testEnv();
    try {
      const doc = await (await sandbox.rt.app.request('/openapi.json')).json();
      const ids = Object.values(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap((p) => Object.values(p)).map((o) => o.operationId);
      for (const e of sandboxOps) expect(ids).toContain(e.id);
    } finally {
      await sandbox.close();
    }
  });
});

/** A merchant written as a sandbox database would hold it: test keys and a sandbox clock offset. */
async function sandboxMade(env: TestEnv, offsetDays = 0) {
  const m = await env.rt.deps.db.tx((q) => createMerchant(q, { ...env.rt.deps, mode: 'sandbox' }, 'Loja Sandbox', env.clock.now()));
  if (offsetDays) await env.rt.deps.db.run('UPDATE merchants SET clock_offset_ms = ? WHERE id = ?', [offsetDays * 86_400_000, m.merchant_id]);
  return m;
}

describe('keys of the other mode are refused (18.17)', () => {
  it('production refuses pk_test_/sk_test_ keys (a database created in sandbox mode) and takes live keys', async () => {
    expect(prod.merchant.public_key).toMatch(/^pk_live_/);
    expect((await prod.call('GET', '/v1/merchant')).status).toBe(200);
    const test = await sandboxMade(prod);
    expect(test.secret_key).toMatch(/^sk_test_/);
    const r = await prod.call('GET', '/v1/merchant', undefined, { authorization: basic(test.public_key, test.secret_key) });
    expect(r.status).toBe(401);
    expect(r.body.error).toBe('unauthorized');
    expect(r.body.message).toMatch(/test key.*production/i);
    // the public key alone (tokenization) is refused the same way
    const t = await prod.rt.app.request('/v1/tokens', { method: 'POST', headers: { authorization: basic(test.public_key, ''), 'content-type': 'application/json' }, body: '{}' });
    expect(t.status).toBe(401);
    expect(((await t.json()) as { message: string }).message).toMatch(/test key.*production/i);
  });

  it('the sandbox refuses live keys', async () => {
    const sandbox = await testEnv();
    try {
      const live = await sandbox.rt.deps.db.tx((q) => createMerchant(q, { ...sandbox.rt.deps, mode: 'production' }, 'Loja Live', sandbox.clock.now()));
      expect(live.secret_key).toMatch(/^sk_live_/);
      const r = await sandbox.call('GET', '/v1/merchant', undefined, { authorization: basic(live.public_key, live.secret_key) });
      expect(r.status).toBe(401);
      expect(r.body.message).toMatch(/live key.*sandbox/i);
      expect((await sandbox.call('GET', '/v1/merchant')).status).toBe(200);
    } finally {
      await sandbox.close();
    }
  });
});

describe('no sandbox clock offset in production (18.17)', () => {
  it('a clock offset left by the sandbox moves nothing: the merchant clock and new records use the server clock', async () => {
    await prod.rt.deps.db.run('UPDATE merchants SET clock_offset_ms = ? WHERE id = ?', [40 * 86_400_000, prod.merchant.merchant_id]);
    const m = await prod.call('GET', '/v1/merchant');
    expect(m.body.data.clock).toBe(prod.clock.now().toISOString());
    const c = await prod.call('POST', '/v1/charges', chargeBody(5000, { payment_method: 'pix' }));
    expect(c.status, JSON.stringify(c.body)).toBe(201);
    expect(c.body.data.created_at).toBe(prod.clock.now().toISOString());
    // a link that expires tomorrow is not expired by a 40-day offset
    const l = await prod.call('POST', '/v1/payment-links', {
      title: 'Curso', product_type: 'digital', allowed_payment_methods: ['pix'], amount: 1000,
      expires_at: new Date(prod.clock.now().getTime() + 86_400_000).toISOString(),
    });
    expect(l.status, JSON.stringify(l.body)).toBe(201);
    await runDueWork(prod.rt.deps);
    expect((await prod.call('GET', `/v1/payment-links/${l.body.data.id}`)).body.data.status).toBe('active');
  });
});

describe('no magic cards in production: there is no card acquirer (18.17)', () => {
  it.each(['4111111111111111', '4000000000000002', '4000000000009995', '5555555555554444'])(
    'a card charge with %s is refused with 422 acquirer_unavailable and nothing is written',
    async (number) => {
      const token = await tokenize(prod, number);
      const r = await prod.call('POST', '/v1/charges', chargeBody(5000, { payment_method: 'credit_card', payment_details: { token } }));
      expect(r.status).toBe(422);
      expect(r.body.error).toBe('acquirer_unavailable');
      expect(r.body.message).toMatch(/acquirer/i);
      const n = await prod.rt.deps.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM charges');
      expect(Number(n!.n)).toBe(0);
      const ev = await prod.rt.deps.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM events');
      expect(Number(ev!.n)).toBe(0);
    },
  );

  it('the hosted checkout tells the buyer the same (422 acquirer_unavailable) and the link keeps its uses', async () => {
    const l = await prod.call('POST', '/v1/payment-links', {
      title: 'Camiseta', product_type: 'physical', allowed_payment_methods: ['credit_card', 'pix'], amount: 5000, max_uses: 1,
    });
    expect(l.status, JSON.stringify(l.body)).toBe(201);
    const res = await prod.rt.app.request(`/checkout/${l.body.data.id}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        attempt_id: 'attempt-prod-1', payment_method: 'credit_card', token: await tokenize(prod),
        customer: { name: 'Ana Souza', email: 'ana@example.com', tax_id: '529.982.247-25', phone: '(11) 98765-4321' },
      }),
    });
    const body = (await res.json()) as { error: string; message: string };
    expect(res.status).toBe(422);
    expect(body.error).toBe('acquirer_unavailable');
    expect((await prod.call('GET', `/v1/payment-links/${l.body.data.id}`)).body.data).toMatchObject({ status: 'active', current_uses: 0 });
  });

  it('PIX charges are still taken (pending until the PSP pays them)', async () => {
    const r = await prod.call('POST', '/v1/charges', chargeBody(5000, { payment_method: 'pix' }));
    expect(r.status).toBe(201);
    expect(r.body.data.status).toBe('pending');
  });

  it('the sandbox still decides with its magic cards', async () => {
    const sandbox = await testEnv();
    try {
      const ok = await cardCharge(sandbox, 5000, 1, {}, '4111111111111111');
      expect(ok.body.data.status).toBe('captured');
      const no = await cardCharge(sandbox, 5000, 1, {}, '4000000000000002');
      expect(no.body.data).toMatchObject({ status: 'failed', failure_code: 'card_declined' });
    } finally {
      await sandbox.close();
    }
  });
});
