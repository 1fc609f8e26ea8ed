import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { balanceOf, cardCharge, checkLedger, fund, receivablesOf } from '../helpers/money.js';
import { anticipationFee } from '../../src/domain/fees.js';

let env: TestEnv;
beforeEach(async () => {
  env = await testEnv();
});
afterEach(async () => env.close());

// settlement on banking business days, days in America/Sao_Paulo
describe('settlement on business days in São Paulo', () => {
  it('a capture whose D+30 is a Saturday before Carnival settles on Ash Wednesday; D+60 on its own Monday', async () => {
    // clock: Thursday 2026-01-15 12:00 UTC (09:00 in São Paulo); D+30 = Sat 14 Feb, 16–17 Feb are Carnival
    const c = (await cardCharge(env, 10000, 3)).body.data;
    const rs = await receivablesOf(env, c.id);
    expect(rs.map((r) => r.settlement_date)).toEqual(['2026-02-18T03:00:00.000Z', '2026-03-16T03:00:00.000Z', '2026-04-15T03:00:00.000Z']);

    // on Tuesday 17 Feb (Carnival) nothing is paid yet; at São Paulo midnight of the 18th it is
    const wallet = async () => (await env.call('GET', '/v1/wallets')).body.data[0].balance as number; // a request runs due work
    env.clock.set(new Date('2026-02-18T02:59:59.000Z'));
    expect(await wallet()).toBe(0);
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(0);
    env.clock.set(new Date('2026-02-18T03:00:00.000Z'));
    expect(await wallet()).toBe(rs[0]!.net_amount);
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(rs[0]!.net_amount);
    const paid = await env.call('GET', '/v1/receivables?status=paid');
    expect(paid.body.data).toEqual([expect.objectContaining({ installment: 1, paid_at: '2026-02-18T03:00:00.000Z' })]);
    await checkLedger(env);
  });

  it('a capture at 23:30 in São Paulo on the 31st (02:30 UTC on the 1st) counts from the 31st', async () => {
    env.clock.set(new Date('2026-04-01T02:30:00.000Z'));
    const c = (await cardCharge(env, 5000, 2)).body.data;
    // 31 Mar + 30 = Thu 30 Apr (UTC would have said 1 May, Labour Day); 31 Mar + 60 = Sat 30 May → Mon 1 Jun
    expect((await receivablesOf(env, c.id)).map((r) => r.settlement_date)).toEqual(['2026-04-30T03:00:00.000Z', '2026-06-01T03:00:00.000Z']);
    // and the charge is listed under the 31st, not the 1st
    const on31 = await env.call('GET', '/v1/charges?start_date=2026-03-31&end_date=2026-03-31');
    expect(on31.body.data.map((x: { id: string }) => x.id)).toEqual([c.id]);
    const on1 = await env.call('GET', '/v1/charges?start_date=2026-04-01&end_date=2026-04-01');
    expect(on1.body.data).toEqual([]);
  });

  it('date filters and statement days are whole São Paulo days', async () => {
    const w = env.merchant.wallet_id;
    env.clock.set(new Date('2026-04-01T02:59:59.999Z')); // 23:59:59.999 on 31 Mar in São Paulo
    await fund(env, w, 700);
    env.clock.set(new Date('2026-04-01T03:00:00.000Z')); // 00:00 on 1 Apr
    await fund(env, w, 300);

    const st31 = await env.call('GET', `/v1/wallets/${w}/statement?start_date=2026-03-31&end_date=2026-03-31`);
    expect(st31.status, JSON.stringify(st31.body)).toBe(200);
    expect(st31.body.data).toMatchObject({ start_date: '2026-03-31T03:00:00.000Z', end_date: '2026-04-01T02:59:59.999Z' });
    expect(st31.body.data.entries.map((e: { amount: number }) => e.amount)).toEqual([700]);
    expect(st31.body.data.summary).toEqual({ opening_balance: 0, closing_balance: 700, total_credits: 700, total_debits: 0 });

    const st1 = await env.call('GET', `/v1/wallets/${w}/statement?start_date=2026-04-01&end_date=2026-04-01`);
    expect(st1.body.data.entries.map((e: { amount: number }) => e.amount)).toEqual([300]);
    expect(st1.body.data.summary).toEqual({ opening_balance: 700, closing_balance: 1000, total_credits: 300, total_debits: 0 });

    const e31 = await env.call('GET', `/v1/wallets/${w}/entries?start_date=2026-03-31&end_date=2026-03-31`);
    expect(e31.body.data.map((e: { amount: number }) => e.amount)).toEqual([700]);
    // a date-time bound is still that instant
    const eAt = await env.call('GET', `/v1/wallets/${w}/entries?start_date=2026-04-01T03:00:00Z`);
    expect(eAt.body.data.map((e: { amount: number }) => e.amount)).toEqual([300]);
  });

  it('receivable settlement-date filters select by the São Paulo day of the (moved) settlement', async () => {
    const c = (await cardCharge(env, 10000, 3)).body.data;
    const ids = (await receivablesOf(env, c.id)).map((r) => r.id);
    const q = async (qs: string) => (await env.call('GET', `/v1/receivables?per_page=100&${qs}`)).body.data.map((r: { id: string }) => r.id).sort();
    expect(await q('settlement_date_from=2026-02-18&settlement_date_to=2026-02-18')).toEqual([ids[0]]);
    expect(await q('settlement_date_from=2026-02-14&settlement_date_to=2026-02-17')).toEqual([]);
    expect(await q('settlement_date_to=2026-03-16')).toEqual([ids[0], ids[1]].sort());
  });

  it("the anticipation fee counts the days to the moved settlement day", async () => {
    const c = (await cardCharge(env, 10000, 1)).body.data;
    const [r] = await receivablesOf(env, c.id);
    expect(r!.settlement_date).toBe('2026-02-18T03:00:00.000Z');
    const a = await env.call('POST', '/v1/anticipations', { receivable_ids: [r!.id] });
    expect(a.status, JSON.stringify(a.body)).toBe(201);
    // Thursday 15 Jan → Wednesday 18 Feb: 34 days, not 30
    expect(a.body.data).toMatchObject({ status: 'approved', total_fee_amount: anticipationFee(r!.net_amount, 34, 250) });
    expect(anticipationFee(r!.net_amount, 34, 250)).not.toBe(anticipationFee(r!.net_amount, 30, 250));
  });
});
