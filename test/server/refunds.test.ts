/**
 * Partial refunds: POST /v1/charges/{id}/refund { amount? }, refund records
 * under the charge, refunded_amount, the money side (pending receivables reduced or cancelled
 * from the last installment backwards, then what was received debited), idempotency and
 * concurrent refunds that never add up to more than the charge. Both store backends.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { addSubmerchant, balanceOf, cardCharge, chargeBody, checkLedger, receivablesOf } from '../helpers/money.js';

let env: TestEnv;
beforeEach(async () => {
  env = await testEnv();
});
afterEach(async () => env.close());

const refund = (id: string, body?: unknown, headers?: Record<string, string>) => env.call('POST', `/v1/charges/${id}/refund`, body, headers);

describe('partial refunds', () => {
  it('R$ 100,00 in 3×: 25,00 then 50,00 then the rest; receivables reduced from the last installment, then the wallet debited', async () => {
    const c = (await cardCharge(env, 10000, 3)).body.data; // nets 3217 × 3 = 9651
    const r1 = await refund(c.id, { amount: 2500 });
    expect(r1.status, JSON.stringify(r1.body)).toBe(200);
    expect(r1.body.data).toMatchObject({ status: 'captured', refunded_amount: 2500, refunded_at: null });
    // ⌊9651 × 2500 / 10000⌋ = 2412 taken from installment 3
    expect((await receivablesOf(env, c.id)).map((x) => [x.status, x.gross_amount, x.net_amount])).toEqual([
      ['pending', 3334, 3217],
      ['pending', 3333, 3217],
      ['pending', 3333 - 2412, 3217 - 2412],
    ]);
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(0);

    const r2 = await refund(c.id, { amount: 5000 });
    expect(r2.body.data).toMatchObject({ status: 'captured', refunded_amount: 7500 });
    // ⌊9651 × 7500 / 10000⌋ − 2412 = 4826: installment 3's 805 and 2's 3217 cancelled, 804 from 1
    expect((await receivablesOf(env, c.id)).map((x) => [x.status, x.net_amount])).toEqual([
      ['pending', 3217 - 804],
      ['cancelled', 3217],
      ['cancelled', 805],
    ]);
    // installment 1 settles on its business day (capture 2026-01-15 + 30 = Sat 14 Feb, past Carnival)
    await env.call('POST', '/v1/sandbox/clock/advance', { days: 40 });
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(2413);

    const over = await refund(c.id, { amount: 2501 });
    expect(over.status).toBe(400);
    expect(over.body.details[0].field).toBe('amount');
    expect(over.body.message).toContain('2500');

    const r3 = await refund(c.id); // the rest: 2500
    expect(r3.status, JSON.stringify(r3.body)).toBe(200);
    expect(r3.body.data).toMatchObject({ status: 'refunded', refunded_amount: 10000 });
    expect(r3.body.data.refunded_at).not.toBeNull();
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(0);
    const debits = await env.call('GET', `/v1/wallets/${env.merchant.wallet_id}/entries?direction=debit`);
    expect(debits.body.data).toEqual([expect.objectContaining({ amount: 2413, reference_type: 'refund', reference_id: c.id })]);

    const list = await env.call('GET', `/v1/charges/${c.id}/refunds`);
    expect(list.status).toBe(200);
    expect(list.body.pagination.total).toBe(3);
    expect(list.body.data.map((x: { amount: number }) => x.amount).sort()).toEqual([2500, 2500, 5000]);
    for (const x of list.body.data) expect(x).toMatchObject({ charge_id: c.id, id: expect.stringMatching(/^[0-9a-f-]{36}$/) });

    const events = await env.rt.deps.db.all<{ data: string }>("SELECT data FROM events WHERE type = 'charge.refunded' AND charge_id = ? ORDER BY created_at, id", [c.id]);
    expect(events).toHaveLength(3);
    const refunds = events.map((e) => JSON.parse(e.data).refund);
    expect(new Set(refunds.map((x) => x.id))).toEqual(new Set(list.body.data.map((x: { id: string }) => x.id)));
    expect(JSON.parse(events[0]!.data)).toMatchObject({ id: c.id, refunded_amount: 2500, refund: { amount: 2500, charge_id: c.id } });

    const again = await refund(c.id, { amount: 1 });
    expect(again.status).toBe(409);
    await checkLedger(env);
  });

  it('PIX with a split: each party gives back its net in proportion; the parts add up to a full refund exactly', async () => {
    const sub = await addSubmerchant(env);
    const pix = (await env.call('POST', '/v1/charges', chargeBody(10000, { payment_method: 'pix', split_rules: [{ submerchant_id: sub.id, amount: 6000 }, { amount: 4000 }] }))).body.data;
    await env.call('POST', `/v1/sandbox/charges/${pix.id}/pay`);
    // fee 99: 60 (with the left-over cent) and 39 → nets 5940 and 3961
    expect(await balanceOf(env, sub.wallet_id)).toBe(5940);
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(3961);
    const r = await refund(pix.id, { amount: 3333 });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    // ⌊5940 × 0.3333⌋ = 1979; ⌊3961 × 0.3333⌋ = 1320
    expect(await balanceOf(env, sub.wallet_id)).toBe(5940 - 1979);
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(3961 - 1320);
    const rest = await refund(pix.id);
    expect(rest.body.data).toMatchObject({ status: 'refunded', refunded_amount: 10000 });
    expect(await balanceOf(env, sub.wallet_id)).toBe(0);
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(0);
    await checkLedger(env);
  });

  it('refuses an amount that is not 1 … what is left, naming amount; nothing changes', async () => {
    const c = (await cardCharge(env, 1000, 1)).body.data;
    for (const amount of [0, -5, 1001, 10.5, '100']) {
      const r = await refund(c.id, { amount });
      expect(r.status, String(amount)).toBe(400);
      expect(r.body.details[0].field).toBe('amount');
    }
    const unknown = await refund(c.id, { amout: 5 });
    expect(unknown.status).toBe(400);
    expect((await env.call('GET', `/v1/charges/${c.id}`)).body.data).toMatchObject({ status: 'captured', refunded_amount: 0 });
    expect((await env.call('GET', `/v1/charges/${c.id}/refunds`)).body.data).toEqual([]);
    const rows = await env.rt.deps.db.get<{ n: number }>("SELECT COUNT(*) AS n FROM events WHERE type = 'charge.refunded'");
    expect(Number(rows!.n)).toBe(0);
  });

  it("another merchant's charge: 404 on refund and on its refunds", async () => {
    const c = (await cardCharge(env, 1000, 1)).body.data;
    const other = await env.newMerchant('Outra');
    for (const [method, path] of [
      ['POST', `/v1/charges/${c.id}/refund`],
      ['GET', `/v1/charges/${c.id}/refunds`],
    ] as const) {
      const res = await env.rt.app.request(path, { method, headers: { authorization: env.auth(other), 'content-type': 'application/json' }, body: method === 'POST' ? '{}' : undefined });
      expect(res.status, path).toBe(404);
    }
  });

  it('Idempotency-Key makes a retry safe: one refund, the same answer; another body with the key is a 409', async () => {
    const c = (await cardCharge(env, 10000, 1)).body.data;
    const a = await refund(c.id, { amount: 1000 }, { 'idempotency-key': 'refund-1' });
    const b = await refund(c.id, { amount: 1000 }, { 'idempotency-key': 'refund-1' });
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(b.body).toEqual(a.body);
    expect((await env.call('GET', `/v1/charges/${c.id}`)).body.data.refunded_amount).toBe(1000);
    expect((await env.call('GET', `/v1/charges/${c.id}/refunds`)).body.pagination.total).toBe(1);
    const other = await refund(c.id, { amount: 2000 }, { 'idempotency-key': 'refund-1' });
    expect(other.status).toBe(409);
  });

  it('concurrent refunds of one charge never refund more than its amount', async () => {
    const pix = (await env.call('POST', '/v1/charges', chargeBody(10000, { payment_method: 'pix' }))).body.data;
    await env.call('POST', `/v1/sandbox/charges/${pix.id}/pay`);
    const results = await Promise.all(Array.from({ length: 12 }, () => refund(pix.id, { amount: 3000 })));
    const ok = results.filter((r) => r.status === 200);
    expect(ok).toHaveLength(3);
    for (const r of results.filter((x) => x.status !== 200)) expect(r.status, JSON.stringify(r.body)).toBe(400);
    const got = (await env.call('GET', `/v1/charges/${pix.id}`)).body.data;
    expect(got).toMatchObject({ status: 'captured', refunded_amount: 9000 });
    const list = await env.call('GET', `/v1/charges/${pix.id}/refunds`);
    expect(list.body.data.reduce((a: number, x: { amount: number }) => a + x.amount, 0)).toBe(9000);
    // ⌊9901 × 9000 / 10000⌋ = 8910 debited in all
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(9901 - 8910);
    const rest = await Promise.all(Array.from({ length: 4 }, () => refund(pix.id)));
    expect(rest.filter((r) => r.status === 200)).toHaveLength(1);
    expect((await env.call('GET', `/v1/charges/${pix.id}`)).body.data).toMatchObject({ status: 'refunded', refunded_amount: 10000 });
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(0);
    await checkLedger(env);
  });
});

const withdraw = (amount: number, key: string) =>
  env.call('POST', '/v1/withdrawals', {
    type: 'pix', wallet_id: env.merchant.wallet_id, amount, pix_key: 'ana@example.com', pix_key_type: 'email',
    holder_document_type: 'cpf', holder_document: '52998224725', idempotency_key: key,
  });
const deductions = () =>
  env.rt.deps.db.all<{ receivable_id: string; amount: number; reference_type: string; reference_id: string }>(
    'SELECT receivable_id, amount, reference_type, reference_id FROM receivable_deductions ORDER BY created_at, id',
  );

describe('a refund the wallet cannot cover takes from the agenda', () => {
  it('what the balance lacks comes from the other pending receivables, the one settling last first', async () => {
    const a = (await cardCharge(env, 10000, 1)).body.data; // nets 9701
    await env.call('POST', '/v1/sandbox/clock/advance', { days: 40 }); // A settles: the wallet holds 9701
    expect((await withdraw(9000, 'w-agenda')).status).toBe(201); // 701 left
    const b = (await cardCharge(env, 30000, 3)).body.data; // 3 × 9651, settling in 30, 60 and 90 days
    const r = await refund(a.id);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toMatchObject({ status: 'refunded', refunded_amount: 10000 });
    // 701 from the wallet, the 9000 it lacks from B's third installment (the last to settle)
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(0);
    expect((await receivablesOf(env, b.id)).map((x) => [x.installment, x.status, x.gross_amount, x.net_amount])).toEqual([
      [1, 'pending', 10000, 9651],
      [2, 'pending', 10000, 9651],
      [3, 'pending', 10000 - 9000, 9651 - 9000],
    ]);
    const b3 = (await receivablesOf(env, b.id))[2]!;
    expect(await deductions()).toEqual([{ receivable_id: b3.id, amount: 9000, reference_type: 'refund', reference_id: a.id }]);
    const debits = await env.call('GET', `/v1/wallets/${env.merchant.wallet_id}/entries?reference_type=refund`);
    expect(debits.body.data).toEqual([expect.objectContaining({ direction: 'debit', amount: 701, balance_after: 0, reference_id: a.id })]);
    await checkLedger(env);
  });

  it('several receivables in that order, then 422 insufficient_funds when the agenda cannot cover it either (nothing changes)', async () => {
    const a = (await cardCharge(env, 30000, 1)).body.data; // nets 29103
    await env.call('POST', '/v1/sandbox/clock/advance', { days: 40 });
    expect((await withdraw(29103, 'w-all')).status).toBe(201); // the wallet is empty
    const b = (await cardCharge(env, 20000, 2)).body.data; // 2 × 9651 (fee 698)
    const before = await receivablesOf(env, b.id);
    const no = await refund(a.id); // 29103 wanted, 19302 in the agenda
    expect(no.status).toBe(422);
    expect(no.body.error).toBe('insufficient_funds');
    expect(await receivablesOf(env, b.id)).toEqual(before);
    expect(await deductions()).toEqual([]);
    expect((await env.call('GET', `/v1/charges/${a.id}`)).body.data.refunded_amount).toBe(0);
    // a part the agenda covers: ⌊29103 × 15000 / 30000⌋ = 14551 → installment 2 whole (cancelled), 4900 of installment 1
    const ok = await refund(a.id, { amount: 15000 });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect((await receivablesOf(env, b.id)).map((x) => [x.status, x.net_amount])).toEqual([
      ['pending', 9651 - 4900],
      ['cancelled', 9651],
    ]);
    expect((await deductions()).map((d) => [d.receivable_id, d.amount])).toEqual([
      [before[1]!.id, 9651],
      [before[0]!.id, 4900],
    ]);
    await checkLedger(env);
  });
});

describe('a refund after an anticipation keeps the anticipation fee with the platform', () => {
  /** R$ 100,00 in 1× (net 9701) anticipated at once, and R$ 10,00 by PIX (net 9901 − … ) that funds the wallet. */
  async function anticipated() {
    const c = (await cardCharge(env, 10000, 1)).body.data;
    const [r] = await receivablesOf(env, c.id);
    const ant = await env.call('POST', '/v1/anticipations', { receivable_ids: [r!.id] });
    expect(ant.body.data.status).toBe('approved');
    const fee = ant.body.data.total_fee_amount as number;
    const pix = (await env.call('POST', '/v1/charges', chargeBody(1000, { payment_method: 'pix' }))).body.data;
    await env.call('POST', `/v1/sandbox/charges/${pix.id}/pay`); // + 990
    return { c, fee };
  }

  it('worked figures: anticipated net 9701 − 275 = 9426; a full refund gives back 9426 + 275 = 9701', async () => {
    const { c, fee } = await anticipated();
    // settles Wed 18 Feb (D+30 is Sat 14, past Carnival): 34 days × 2.5 %/30 of 9701 = 274.86 → 275
    expect(fee).toBe(275);
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(9701 - 275 + 990);
    const r = await refund(c.id);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(990 - 275);
    const debits = await env.call('GET', `/v1/wallets/${env.merchant.wallet_id}/entries?reference_type=refund`);
    expect(debits.body.data).toEqual([expect.objectContaining({ amount: 9701, reference_id: c.id })]);
    await checkLedger(env);
  });

  it('in two halves the same: ⌊9701 / 2⌋ = 4850, then 4851', async () => {
    const { c } = await anticipated();
    expect((await refund(c.id, { amount: 5000 })).status).toBe(200);
    expect((await refund(c.id)).status).toBe(200);
    const debits = (await env.call('GET', `/v1/wallets/${env.merchant.wallet_id}/entries?reference_type=refund`)).body.data as Array<{ amount: number }>;
    expect(debits.map((d) => d.amount).sort()).toEqual([4850, 4851]);
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(990 - 275);
  });
});
