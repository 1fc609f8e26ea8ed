import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { addSubmerchant, balanceOf, cardCharge, chargeBody, checkLedger } from '../helpers/money.js';
import { runDueWork } from '../../src/server/due.js';

let env: TestEnv;
beforeEach(async () => {
  env = await testEnv();
});
afterEach(async () => env.close());

const DAY = 86_400_000;
const T0 = Date.parse('2026-01-15T12:00:00.000Z');
const day = (n: number) => new Date(T0 + n * DAY).toISOString();

async function receivables(qs = '') {
  const r = await env.call('GET', `/v1/receivables?per_page=100${qs ? '&' + qs : ''}`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data as Array<Record<string, any>>;
}

describe('capture → receivables → settlement', () => {
  it('R$ 100,00 in 3×: three receivables at +30/+60/+90 days (moved to business days), settled as the clock advances', async () => {
    const c = (await cardCharge(env, 10000, 3)).body.data;
    const rs = (await receivables()).sort((a, b) => a.installment - b.installment);
    expect(rs.map((r) => [r.installment, r.gross_amount, r.fee_amount, r.net_amount, r.settlement_date, r.status])).toEqual([
      // São Paulo days, moved to business days. D+30 = Sat 14 Feb 2026, then
      // Sunday and Carnival (16–17 Feb): Wed 18 Feb at 00:00 in São Paulo (03:00 UTC)
      [1, 3334, 117, 3217, '2026-02-18T03:00:00.000Z', 'pending'],
      [2, 3333, 116, 3217, '2026-03-16T03:00:00.000Z', 'pending'],
      [3, 3333, 116, 3217, '2026-04-15T03:00:00.000Z', 'pending'],
    ]);
    for (const r of rs) expect(r).toMatchObject({ charge_id: c.id, merchant_id: env.merchant.merchant_id, wallet_id: env.merchant.wallet_id, payment_method: 'credit_card', installments: 3 });

    const a = await env.call('POST', '/v1/sandbox/clock/advance', { days: 29 });
    expect(a.status).toBe(200);
    expect(a.body.data).toMatchObject({ clock: day(29), advanced_days: 29, offset_days: 29 });
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(0);

    await env.call('POST', '/v1/sandbox/clock/advance', { days: 1 }); // D+30 is a Saturday: not yet
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(0);
    await env.call('POST', '/v1/sandbox/clock/advance', { days: 4 });
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(3217);
    const paid = await receivables('status=paid');
    expect(paid).toHaveLength(1);
    expect(paid[0]).toMatchObject({ installment: 1, paid_at: '2026-02-18T03:00:00.000Z' });
    const entries = await env.call('GET', `/v1/wallets/${env.merchant.wallet_id}/entries`);
    expect(entries.body.data).toEqual([
      expect.objectContaining({ direction: 'credit', amount: 3217, balance_after: 3217, reference_type: 'receivable', reference_id: paid[0]!.id, created_at: '2026-02-18T03:00:00.000Z' }),
    ]);
    const ev = await env.rt.deps.db.all<{ type: string; resource_id: string }>("SELECT type, resource_id FROM events WHERE type = 'receivable.paid'");
    expect(ev).toEqual([{ type: 'receivable.paid', resource_id: paid[0]!.id }]);

    await env.call('POST', '/v1/sandbox/clock/advance', { days: 100 });
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(9651);
    expect(await receivables('status=pending')).toHaveLength(0);
    const merchant = await env.call('GET', '/v1/merchant');
    expect(merchant.body.data.clock).toBe(day(134));
    await checkLedger(env);
  });

  it('settles on an ordinary request once real time passes the settlement date', async () => {
    await cardCharge(env, 5000, 1);
    env.clock.advance(30 * DAY); // Saturday 14 Feb: settles on the next business day (18 Feb, after Carnival)
    expect((await env.call('GET', '/v1/wallets')).body.data[0].balance).toBe(0);
    env.clock.advance(4 * DAY);
    const w = await env.call('GET', '/v1/wallets');
    expect(w.body.data[0]).toMatchObject({ id: env.merchant.wallet_id, balance: 4850 });
  });

  it('split receivables go to each party wallet; runDueWork sweeps every merchant', async () => {
    const sub = await addSubmerchant(env);
    const c = await cardCharge(env, 10000, 2, { split_rules: [{ submerchant_id: sub.id, percentage: 70 }, { percentage: 30 }] });
    expect(c.status, JSON.stringify(c.body)).toBe(201);
    const rs = await receivables(`charge_id=${c.body.data.id}`);
    expect(rs).toHaveLength(4);
    const bySub = rs.filter((r) => r.submerchant_id === sub.id);
    // the whole fee 10000 × 3.49 % = 349, divided 70/30: 244.3 → 244 and
    // 104.7 → 104, the cent left over to the first rule: 245 → 123 + 122; 104 → 52 + 52
    expect(bySub.map((r) => [r.installment, r.gross_amount, r.fee_amount]).sort()).toEqual([
      [1, 3500, 123],
      [2, 3500, 122],
    ]);
    const mine = rs.filter((r) => r.submerchant_id === null);
    expect(mine.map((r) => [r.installment, r.gross_amount, r.fee_amount]).sort()).toEqual([
      [1, 1500, 52],
      [2, 1500, 52],
    ]);
    expect(c.body.data.fee_amount).toBe(349);

    env.clock.advance(61 * DAY);
    const moved = await runDueWork(env.rt.deps);
    expect(moved).toBe(4);
    expect(await balanceOf(env, sub.wallet_id)).toBe(7000 - 245);
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(3000 - 104);
    await checkLedger(env);
  });

  it('receivable filters: status, payment_method, settlement dates, charge_id', async () => {
    const c1 = (await cardCharge(env, 10000, 3)).body.data;
    const pix = (await env.call('POST', '/v1/charges', chargeBody(2000, { payment_method: 'pix' }))).body.data;
    await env.call('POST', `/v1/sandbox/charges/${pix.id}/pay`);
    expect(await receivables()).toHaveLength(4);
    expect(await receivables('payment_method=pix')).toEqual([expect.objectContaining({ status: 'paid', net_amount: 2000 - 20, charge_id: pix.id })]);
    expect(await receivables(`charge_id=${c1.id}`)).toHaveLength(3);
    expect(await receivables('settlement_date_from=2026-02-14&settlement_date_to=2026-03-16')).toHaveLength(2);
    expect(await receivables('settlement_date_to=2026-02-13')).toHaveLength(1);
    expect((await env.call('GET', '/v1/receivables?status=settled')).status).toBe(400);
    expect((await env.call('GET', '/v1/receivables?charge_id=42')).status).toBe(400);
  });
});

describe('wallets and statement', () => {
  it("lists the merchant's and its submerchants' wallets, never another merchant's", async () => {
    const sub = await addSubmerchant(env);
    const other = await env.newMerchant('Outra');
    await addSubmerchant(env, other.merchant_id);
    const r = await env.call('GET', '/v1/wallets');
    expect(r.body.data.map((w: { id: string }) => w.id).sort()).toEqual([env.merchant.wallet_id, sub.wallet_id].sort());
    expect(r.body.data.find((w: { id: string }) => w.id === sub.wallet_id)).toMatchObject({ owner_type: 'submerchant', owner_id: sub.id, currency: 'BRL', balance: 0 });
    const subs = await env.call('GET', '/v1/wallets?owner_type=submerchant');
    expect(subs.body.data).toHaveLength(1);
    const foreign = await env.call('GET', `/v1/wallets/${other.wallet_id}/entries`);
    expect(foreign.status).toBe(404);
    const foreignSt = await env.call('GET', `/v1/wallets/${other.wallet_id}/statement?start_date=2026-01-01&end_date=2026-12-31`);
    expect(foreignSt.status).toBe(404);
  });

  it('entries filters and a statement whose closing = opening + credits − debits', async () => {
    const w = env.merchant.wallet_id;
    const pay = async (amount: number) => {
      const c = await env.call('POST', '/v1/charges', chargeBody(amount, { payment_method: 'pix' }));
      await env.call('POST', `/v1/sandbox/charges/${c.body.data.id}/pay`);
    };
    await pay(10000); // day 0: +9901
    await cardCharge(env, 10000, 1); // settles day 30: +9701
    await env.call('POST', '/v1/sandbox/clock/advance', { days: 10 });
    await pay(5000); // day 10: +4950
    await env.call('POST', '/v1/sandbox/clock/advance', { days: 25 });

    const all = await env.call('GET', `/v1/wallets/${w}/entries`);
    expect(all.body.data.map((e: { amount: number }) => e.amount)).toEqual([9701, 4950, 9901]);
    const byType = await env.call('GET', `/v1/wallets/${w}/entries?reference_type=receivable`);
    expect(byType.body.data.map((e: { amount: number }) => e.amount)).toEqual([9701]);
    const debits = await env.call('GET', `/v1/wallets/${w}/entries?direction=debit`);
    expect(debits.body.pagination.total).toBe(0);
    const ranged = await env.call('GET', `/v1/wallets/${w}/entries?start_date=2026-01-20&end_date=2026-02-13`);
    expect(ranged.body.data.map((e: { amount: number }) => e.amount)).toEqual([4950]);

    const st = await env.call('GET', `/v1/wallets/${w}/statement?start_date=2026-01-20&end_date=2026-02-28`);
    expect(st.status, JSON.stringify(st.body)).toBe(200);
    expect(st.body.data.summary).toEqual({ opening_balance: 9901, closing_balance: 9901 + 4950 + 9701, total_credits: 4950 + 9701, total_debits: 0 });
    expect(st.body.data.entries.map((e: { amount: number }) => e.amount)).toEqual([4950, 9701]);
    expect(st.body.data.summary.closing_balance).toBe(await balanceOf(env, w));

    for (const qs of ['start_date=2026-01-01', 'end_date=2026-01-01', '', 'start_date=2026-02-01&end_date=2026-01-01', 'start_date=x&end_date=2026-01-01']) {
      const bad = await env.call('GET', `/v1/wallets/${w}/statement?${qs}`);
      expect(bad.status, qs).toBe(400);
    }
  });
});

describe('anticipations', () => {
  it('anticipates chosen receivables: fee per receivable by days until settlement, wallet credited the net', async () => {
    await cardCharge(env, 10000, 3);
    const rs = (await receivables()).sort((a, b) => a.installment - b.installment);
    await env.call('POST', '/v1/sandbox/clock/advance', { days: 10 });
    const ids = [rs[1]!.id, rs[2]!.id];
    const a = await env.call('POST', '/v1/anticipations', { receivable_ids: ids });
    expect(a.status, JSON.stringify(a.body)).toBe(201);
    // 3217 × 2.5 %/30 × 50 days = 134.04 → 134; × 80 days = 214.47 → 214
    expect(a.body.data).toMatchObject({
      status: 'approved',
      anticipation_type: 'spot',
      total_gross_amount: 6434,
      total_fee_amount: 134 + 214,
      total_net_amount: 6434 - 348,
      receivable_ids: ids,
      wallet_id: env.merchant.wallet_id,
    });
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(6434 - 348);
    const anticipated = await receivables('status=anticipated');
    expect(anticipated.map((r) => [r.installment, r.anticipation_fee_amount, r.anticipation_id]).sort()).toEqual([
      [2, 134, a.body.data.id],
      [3, 214, a.body.data.id],
    ]);
    const ev = await env.rt.deps.db.get<{ n: number }>("SELECT COUNT(*) AS n FROM events WHERE type = 'anticipation.approved'");
    expect(ev!.n).toBe(1);

    // anticipated receivables are not settled again
    await env.call('POST', '/v1/sandbox/clock/advance', { days: 200 });
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(6434 - 348 + 3217);
    const again = await env.call('POST', '/v1/anticipations', { receivable_ids: ids });
    expect(again.status).toBe(201);
    expect(again.body.data).toMatchObject({ status: 'refused', total_net_amount: 0 });
    expect(again.body.data.refusal_reason).toContain('anticipated');
    await checkLedger(env);
  });

  it('by amount: soonest first, never more than asked; refused when nothing fits', async () => {
    await cardCharge(env, 10000, 3); // three × 3217 net
    const a = await env.call('POST', '/v1/anticipations', { amount: 7000 });
    expect(a.body.data).toMatchObject({ status: 'approved', requested_amount: 7000, total_gross_amount: 6434 });
    const picked = (await receivables('status=anticipated')).map((r) => r.installment).sort();
    expect(picked).toEqual([1, 2]);
    const none = await env.call('POST', '/v1/anticipations', { amount: 100 });
    expect(none.status).toBe(201);
    expect(none.body.data).toMatchObject({ status: 'refused', receivable_ids: [] });
    expect(none.body.message).toContain('refused');
    const ev = await env.rt.deps.db.get<{ n: number }>("SELECT COUNT(*) AS n FROM events WHERE type = 'anticipation.refused'");
    expect(ev!.n).toBe(1);
  });

  it('validates the body and scopes receivables to their wallet and merchant', async () => {
    const sub = await addSubmerchant(env);
    await cardCharge(env, 10000, 1, { submerchant_id: sub.id });
    const subRec = (await receivables())[0]!;
    for (const body of [{}, { amount: 100, receivable_ids: [subRec.id] }, { amount: 0 }, { receivable_ids: [subRec.id, subRec.id] }]) {
      const r = await env.call('POST', '/v1/anticipations', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
    }
    const wrongWallet = await env.call('POST', '/v1/anticipations', { receivable_ids: [subRec.id] });
    expect(wrongWallet.status).toBe(400);
    expect(wrongWallet.body.details[0].field).toBe('receivable_ids[0]');
    const ok = await env.call('POST', '/v1/anticipations', { receivable_ids: [subRec.id], submerchant_id: sub.id });
    expect(ok.body.data).toMatchObject({ status: 'approved', submerchant_id: sub.id, wallet_id: sub.wallet_id });
    expect(await balanceOf(env, sub.wallet_id)).toBe(ok.body.data.total_net_amount);

    const other = await env.newMerchant('Outra');
    const res = await env.rt.app.request('/v1/anticipations', {
      method: 'POST',
      headers: { authorization: env.auth(other), 'content-type': 'application/json' },
      body: JSON.stringify({ receivable_ids: [subRec.id] }),
    });
    expect(res.status).toBe(404);
  });

  it('lists with filters: status, type, dates', async () => {
    await cardCharge(env, 10000, 2);
    await env.call('POST', '/v1/anticipations', { amount: 100 });
    env.clock.advance(3 * DAY);
    await env.call('POST', '/v1/anticipations', { amount: 100000 });
    const list = async (qs: string) => (await env.call('GET', `/v1/anticipations?${qs}`)).body.pagination.total;
    expect(await list('')).toBe(2);
    expect(await list('status=approved')).toBe(1);
    expect(await list('status=refused')).toBe(1);
    expect(await list('type=spot')).toBe(2);
    expect(await list('start_date=2026-01-17')).toBe(1);
    expect(await list('end_date=2026-01-15')).toBe(1);
    expect((await env.call('GET', '/v1/anticipations?type=automatic')).status).toBe(400);
  });
});

describe('sandbox clock', () => {
  it('validates days and moves only this merchant', async () => {
    for (const days of [0, -1, 1.5, 'x']) {
      const r = await env.call('POST', '/v1/sandbox/clock/advance', { days });
      expect(r.status).toBe(400);
    }
    const other = await env.newMerchant('Outra');
    await env.call('POST', '/v1/sandbox/clock/advance', { days: 5 });
    const res = await env.rt.app.request('/v1/merchant', { headers: { authorization: env.auth(other) } });
    expect(((await res.json()) as { data: { clock: string } }).data.clock).toBe(day(0));
  });
});

describe('refunds (extension)', () => {
  it('cancels pending receivables and debits the net of paid and anticipated ones: the anticipation fee stays with the platform', async () => {
    const c = (await cardCharge(env, 10000, 3)).body.data;
    await env.call('POST', '/v1/sandbox/clock/advance', { days: 34 }); // 18 Feb: installment 1 paid: +3217
    const inst2 = (await receivables('status=pending')).find((r) => r.installment === 2)!;
    // 18 Feb → 16 Mar: 26 days: fee 3217 × 2.5 % / 30 × 26 = 69.70 → 70
    const a = (await env.call('POST', '/v1/anticipations', { receivable_ids: [inst2.id] })).body.data;
    expect(a.total_fee_amount).toBe(70);
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(3217 + 3217 - 70);
    // the refund takes back both nets whole (6434): the wallet needs the 70 the fee took
    expect((await env.call('POST', '/v1/sandbox/wallet/adjustments', { direction: 'credit', amount: 70 })).status).toBe(201);

    const r = await env.call('POST', `/v1/charges/${c.id}/refund`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toMatchObject({ status: 'refunded', refunded_at: day(34) });
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(0);
    const byInst = Object.fromEntries((await receivables(`charge_id=${c.id}`)).map((x) => [x.installment, x.status]));
    expect(byInst).toEqual({ 1: 'paid', 2: 'anticipated', 3: 'cancelled' });
    const debits = await env.call('GET', `/v1/wallets/${env.merchant.wallet_id}/entries?direction=debit`);
    expect(debits.body.data).toEqual([expect.objectContaining({ amount: 3217 + 3217, reference_type: 'refund', reference_id: c.id, balance_after: 0 })]);
    const ev = await env.rt.deps.db.get<{ n: number }>("SELECT COUNT(*) AS n FROM events WHERE type = 'charge.refunded' AND charge_id = ?", [c.id]);
    expect(ev!.n).toBe(1);

    await env.call('POST', '/v1/sandbox/clock/advance', { days: 90 });
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(0); // the cancelled installment never settles
    const again = await env.call('POST', `/v1/charges/${c.id}/refund`);
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('invalid_state');
    await checkLedger(env);
  });

  it('refuses with insufficient_funds when the wallet no longer holds the money, and changes nothing', async () => {
    const pix = (await env.call('POST', '/v1/charges', chargeBody(10000, { payment_method: 'pix' }))).body.data;
    await env.call('POST', `/v1/sandbox/charges/${pix.id}/pay`);
    const { db, ids } = env.rt.deps;
    const { debit } = await import('../../src/server/services/ledger.js');
    await db.tx((q) => debit(q, ids, { walletId: env.merchant.wallet_id, amount: 9000, referenceType: 'withdrawal', referenceId: 'w', description: 'payout', at: env.clock.now() }));
    const r = await env.call('POST', `/v1/charges/${pix.id}/refund`);
    expect(r.status).toBe(422);
    expect(r.body.error).toBe('insufficient_funds');
    expect((await env.call('GET', `/v1/charges/${pix.id}`)).body.data.status).toBe('captured');
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(901);
  });

  it('only a captured charge can be refunded', async () => {
    const failed = (await cardCharge(env, 1000, 1, {}, '4000000000000002')).body.data;
    const pending = (await env.call('POST', '/v1/charges', chargeBody(1000, { payment_method: 'pix' }))).body.data;
    for (const id of [failed.id, pending.id]) {
      const r = await env.call('POST', `/v1/charges/${id}/refund`);
      expect(r.status).toBe(409);
      expect(r.body.error).toBe('invalid_state');
    }
  });
});
