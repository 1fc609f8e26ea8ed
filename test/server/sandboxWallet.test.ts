import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testEnv, type TestEnv } from '../helpers/server.js';

let env: TestEnv;
beforeEach(async () => {
  env = await testEnv();
});
afterEach(async () => env.close());

const PATH = '/v1/sandbox/wallet/adjustments';
const balance = async () =>
  (await env.rt.deps.db.get<{ balance: number }>('SELECT balance FROM wallets WHERE id = ?', [env.merchant.wallet_id]))!.balance;

describe('sandbox wallet adjustments', () => {
  it('credits and debits the merchant wallet through the ledger', async () => {
    const c = await env.call('POST', PATH, { direction: 'credit', amount: 1000, description: 'funding' });
    expect(c.status).toBe(201);
    expect(c.body.data).toMatchObject({ wallet_id: env.merchant.wallet_id, direction: 'credit', amount: 1000, balance_after: 1000, description: 'funding' });
    const d = await env.call('POST', PATH, { direction: 'debit', amount: 400 });
    expect(d.status).toBe(201);
    expect(d.body.data).toMatchObject({ direction: 'debit', amount: 400, balance_after: 600, description: 'sandbox debit' });
    expect(await balance()).toBe(600);
    const e = await env.rt.deps.db.all('SELECT reference_type FROM wallet_entries WHERE wallet_id = ?', [env.merchant.wallet_id]);
    expect(e).toEqual([{ reference_type: 'sandbox_adjustment' }, { reference_type: 'sandbox_adjustment' }]);
  });

  it('the entry reference_id is a UUID (the adjustment entry itself), whatever X-Request-Id says', async () => {
    const c = await env.call('POST', PATH, { direction: 'credit', amount: 1000 }, { 'x-request-id': 'my-req-0001' });
    expect(c.status).toBe(201);
    const row = await env.rt.deps.db.get<{ id: string; reference_id: string }>('SELECT id, reference_id FROM wallet_entries WHERE wallet_id = ?', [
      env.merchant.wallet_id,
    ]);
    expect(row!.reference_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(row!.reference_id).toBe(row!.id);
    const listed = await env.call('GET', `/v1/wallets/${env.merchant.wallet_id}/entries`);
    expect(listed.body.data[0].reference_id).toBe(c.body.data.id);
  });

  it('refuses a debit beyond the balance with 422 insufficient_funds and writes nothing', async () => {
    await env.call('POST', PATH, { direction: 'credit', amount: 100 });
    const r = await env.call('POST', PATH, { direction: 'debit', amount: 101 });
    expect(r.status).toBe(422);
    expect(r.body.error).toBe('insufficient_funds');
    expect(await balance()).toBe(100);
  });

  it('concurrent debits never take the balance below zero', async () => {
    await env.call('POST', PATH, { direction: 'credit', amount: 1000 });
    const rs = await Promise.all(Array.from({ length: 15 }, () => env.call('POST', PATH, { direction: 'debit', amount: 100 })));
    expect(rs.filter((r) => r.status === 201)).toHaveLength(10);
    expect(rs.filter((r) => r.status === 422)).toHaveLength(5);
    expect(await balance()).toBe(0);
  });

  it('400 naming the field for a bad direction, a non-positive or fractional amount, an unknown field', async () => {
    for (const [body, field] of [
      [{ direction: 'sideways', amount: 1 }, 'direction'],
      [{ direction: 'credit', amount: 0 }, 'amount'],
      [{ direction: 'credit', amount: 1.5 }, 'amount'],
      [{ direction: 'credit', amount: 1, extra: true }, 'extra'],
    ] as const) {
      const r = await env.call('POST', PATH, body);
      expect(r.status).toBe(400);
      expect(r.body.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    expect(await balance()).toBe(0);
  });

  it('does not exist on a production server', async () => {
    const prod = await testEnv({ mode: 'production' });
    try {
      const r = await prod.call('POST', PATH, { direction: 'credit', amount: 1 });
      expect(r.status).toBe(404);
    } finally {
      await prod.close();
    }
  });
});
