/**
 * GET /v1/charges at scale: `pagination.total` from the trigger-maintained counters must equal
 * COUNT(*) under every filter through inserts and status changes, and pages served by keyset
 * seek (page n+1 right after page n) must be the pages OFFSET would give, also after a new
 * charge arrives between two pages.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { cardCharge, chargeBody } from '../helpers/money.js';

let env: TestEnv;
beforeEach(async () => {
  env = await testEnv();
});
afterEach(async () => env.close());

async function exactCount(where = '', args: string[] = []): Promise<number> {
  const r = await env.rt.deps.db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM charges WHERE merchant_id = ?${where}`, [env.merchant.merchant_id, ...args]);
  return Number(r!.n);
}

it('total equals COUNT(*) for every filter through inserts, captures, failures and refunds', async () => {
  const other = await env.newMerchant('Outra');
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) {
    ids.push((await cardCharge(env, 1000 + i)).body.data.id);
    env.clock.advance(1000);
  }
  await cardCharge(env, 1500, 1, {}, '4000000000000002'); // declined → failed
  const pix = (await env.call('POST', '/v1/charges', chargeBody(2000, { payment_method: 'pix' }))).body.data.id;
  await env.call('POST', '/v1/charges', chargeBody(2100, { payment_method: 'pix' }));
  await env.call('POST', `/v1/sandbox/charges/${pix}/pay`);
  await env.call('POST', `/v1/charges/${ids[0]}/refund`);
  // another merchant's charge counts for it alone
  await env.call('POST', '/v1/charges', chargeBody(999, { payment_method: 'pix' }), { authorization: env.auth(other) });

  const cases: [string, string, string[]][] = [
    ['', '', []],
    ['status=captured', ' AND status = ?', ['captured']],
    ['status=refunded', ' AND status = ?', ['refunded']],
    ['status=failed', ' AND status = ?', ['failed']],
    ['status=pending&payment_method=pix', ' AND status = ? AND payment_method = ?', ['pending', 'pix']],
    ['payment_method=credit_card', ' AND payment_method = ?', ['credit_card']],
  ];
  for (const [qs, where, args] of cases) {
    const r = await env.call('GET', `/v1/charges?per_page=2${qs ? '&' + qs : ''}`);
    expect(r.status).toBe(200);
    const n = await exactCount(where, args);
    expect(r.body.pagination, qs).toEqual({ page: 1, perPage: 2, total: n, totalPages: Math.ceil(n / 2) });
  }
  expect(await exactCount()).toBe(7);
  // a PIX expiring (due work) moves its count too
  env.clock.advance(2 * 3600_000);
  const failed = await env.call('GET', '/v1/charges?status=failed');
  expect(failed.body.pagination.total).toBe(await exactCount(' AND status = ?', ['failed']));
  expect(failed.body.pagination.total).toBe(2);
});

it('sequential pages (keyset seek) are the OFFSET pages, also after a charge arrives in between', async () => {
  for (let i = 0; i < 9; i++) {
    await env.call('POST', '/v1/charges', chargeBody(1000 + i, { payment_method: 'pix' }));
    if (i % 3 !== 0) env.clock.advance(1000); // some share a created_at: ties broken by id
  }
  const all = async () =>
    (await env.rt.deps.db.all<{ id: string }>('SELECT id FROM charges WHERE merchant_id = ? ORDER BY created_at DESC, id DESC', [env.merchant.merchant_id])).map((r) => r.id);
  const walk = async () => {
    const seen: string[] = [];
    for (let p = 1; p <= 5; p++) seen.push(...(await env.call('GET', `/v1/charges?per_page=2&page=${p}`)).body.data.map((c: any) => c.id));
    return seen;
  };
  expect(await walk()).toEqual(await all());
  // again (now every page after the first comes from a remembered boundary)
  expect(await walk()).toEqual(await all());
  // page 2 remembered; a new charge lands on top; page 3 must shift like OFFSET does
  await env.call('GET', '/v1/charges?per_page=2&page=2');
  await env.call('POST', '/v1/charges', chargeBody(5000, { payment_method: 'pix' }));
  const p3 = (await env.call('GET', '/v1/charges?per_page=2&page=3')).body.data.map((c: any) => c.id);
  expect(p3).toEqual((await all()).slice(4, 6));
  // beyond the last page: empty, with the total
  const past = await env.call('GET', '/v1/charges?per_page=2&page=50');
  expect(past.body.data).toEqual([]);
  expect(past.body.pagination.total).toBe(10);
});
