import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { cardCharge, fund } from '../helpers/money.js';

let env: TestEnv;
beforeEach(async () => {
  env = await testEnv();
});
afterEach(async () => env.close());

// dates are compared as dates
describe('date filters', () => {
  it('refuse a date that does not exist (2026-02-30, 2026-13-01, 2027-02-29 and in a date-time) with 400 naming the field', async () => {
    const w = env.merchant.wallet_id;
    for (const [path, field] of [
      ['/v1/charges?start_date=2026-02-30', 'start_date'],
      ['/v1/charges?end_date=2026-13-01', 'end_date'],
      ['/v1/charges?start_date=2027-02-29', 'start_date'],
      ['/v1/charges?start_date=2026-02-30T10:00:00Z', 'start_date'],
      [`/v1/wallets/${w}/entries?start_date=2026-04-31`, 'start_date'],
      [`/v1/wallets/${w}/statement?start_date=2026-02-30&end_date=2026-03-31`, 'start_date'],
      ['/v1/receivables?settlement_date_from=2026-02-30', 'settlement_date_from'],
    ] as const) {
      const r = await env.call('GET', path);
      expect(r.status, path).toBe(400);
      expect(r.body.details.map((d: { field: string }) => d.field), path).toContain(field);
    }
    expect((await env.call('GET', '/v1/charges?start_date=2028-02-29')).status).toBe(200);
  });

  it('end_date=9999-12-31 includes everything on lists and is accepted by the statement', async () => {
    await cardCharge(env, 1000);
    await fund(env, env.merchant.wallet_id, 500);
    const list = await env.call('GET', '/v1/charges?start_date=2000-01-01&end_date=9999-12-31');
    expect(list.status).toBe(200);
    expect(list.body.pagination.total).toBe(1);
    const w = env.merchant.wallet_id;
    const entries = await env.call('GET', `/v1/wallets/${w}/entries?end_date=9999-12-31`);
    expect(entries.body.pagination.total).toBe(1);
    const st = await env.call('GET', `/v1/wallets/${w}/statement?start_date=2000-01-01&end_date=9999-12-31`);
    expect(st.status, JSON.stringify(st.body)).toBe(200);
    expect(st.body.data.summary.closing_balance).toBe(500);
    expect(st.body.data.entries).toHaveLength(1);
  });
});
