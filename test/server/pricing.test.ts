/**
 * Pricing as configuration, recorded on every charge; installments with interest paid by the
 * buyer (Price table). Through the API on a real store, both backends.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_PRICING, parsePricing } from '../../src/contract/resources/pricing.js';
import { calendarDaysUntil } from '../../src/domain/calendar.js';
import { anticipationFee } from '../../src/domain/fees.js';
import { percentOf } from '../../src/domain/money.js';
import { priceInstallment, type Pricing } from '../../src/domain/pricing.js';
import { setMerchantPricing } from '../../src/server/services/pricing.js';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { addSubmerchant, balanceOf, chargeBody, checkLedger, fund, receivablesOf, tokenize } from '../helpers/money.js';

let env: TestEnv;
beforeEach(async () => {
  env = await testEnv();
});
afterEach(async () => env.close());

const AMEX = '378282246310005';

/** Sets the env merchant's override through the service the admin command uses. */
async function override(doc: Record<string, unknown>, e = env, merchantId = e.merchant.merchant_id): Promise<Pricing> {
  const r = await setMerchantPricing(e.rt.deps.db, e.rt.deps.pricing, merchantId, doc, e.clock.now());
  return r!.pricing;
}

async function card(amount: number, details: Record<string, unknown> = {}, extra: Record<string, unknown> = {}, number = '4111111111111111') {
  const token = await tokenize(env, number);
  return env.call('POST', '/v1/charges', chargeBody(amount, { payment_method: 'credit_card', payment_details: { token, ...details }, ...extra }));
}

describe('GET /v1/merchant: the effective pricing', () => {
  it('is the defaults, the server pricing, and the merchant override laid over it', async () => {
    expect((await env.call('GET', '/v1/merchant')).body.data.pricing).toEqual(DEFAULT_PRICING);
    const serverDoc = parsePricing({ pix_mdr_bps: 89, buyer_interest: { monthly_bps: 249 } });
    if (!serverDoc.ok) throw new Error('server pricing');
    const other = await testEnv({ pricing: serverDoc.pricing });
    try {
      const m = (await other.call('GET', '/v1/merchant')).body.data;
      expect(m.pricing).toMatchObject({ pix_mdr_bps: 89, buyer_interest: { monthly_bps: 249, free_installments: 1 }, anticipation_monthly_bps: 250 });
      await override({ buyer_interest: { free_installments: 3 }, card_mdr_bps: { elo: { installments_1: 259 } } }, other);
      const after = (await other.call('GET', '/v1/merchant')).body.data.pricing;
      expect(after.pix_mdr_bps).toBe(89);
      expect(after.buyer_interest).toEqual({ monthly_bps: 249, free_installments: 3 });
      expect(after.card_mdr_bps.elo).toEqual({ installments_1: 259, installments_2_6: 349, installments_7_12: 399 });
      expect(after.card_mdr_bps.visa).toEqual(DEFAULT_PRICING.card_mdr_bps.visa);
      // another merchant of the same server keeps the server's pricing
      const m2 = await other.newMerchant('Outra');
      const r = await other.call('GET', '/v1/merchant', undefined, { authorization: other.auth(m2) });
      expect(r.body.data.pricing.buyer_interest.free_installments).toBe(1);
    } finally {
      await other.close();
    }
  });

  it('an override that does not check out is refused naming the field, and nothing changes', async () => {
    await expect(setMerchantPricing(env.rt.deps.db, env.rt.deps.pricing, env.merchant.merchant_id, { pix_mdr_bps: 10_001 }, env.clock.now())).rejects.toThrow(
      /pix_mdr_bps: must be from 0 to 2000 basis points/,
    );
    await expect(setMerchantPricing(env.rt.deps.db, env.rt.deps.pricing, env.merchant.merchant_id, { card_mdr_bps: { visa: { installments_13: 1 } } }, env.clock.now())).rejects.toThrow(
      /card_mdr_bps\.visa\.installments_13: is not a known field/,
    );
    expect((await env.call('GET', '/v1/merchant')).body.data.pricing).toEqual(DEFAULT_PRICING);
    // {} removes an override
    await override({ pix_mdr_bps: 50 });
    await override({});
    expect((await env.call('GET', '/v1/merchant')).body.data.pricing).toEqual(DEFAULT_PRICING);
  });
});

describe('every rate comes from the effective pricing', () => {
  it('a card charge pays the MDR of its brand and band, and records it', async () => {
    await override({ card_mdr_bps: { amex: { installments_1: 350, installments_2_6: 420 } } });
    const amex = await card(10_000, { installments: 2 }, {}, AMEX);
    expect(amex.status, JSON.stringify(amex.body)).toBe(201);
    expect(amex.body.data).toMatchObject({ status: 'captured', fee_amount: 420, net_amount: 9580, total_amount: 10_000, interest_amount: 0 });
    expect(amex.body.data.pricing).toEqual({
      mdr_bps: 420,
      boleto_fee_amount: null,
      anticipation_monthly_bps: 250,
      chargeback_fee_amount: 1500,
      interest: 'merchant',
      buyer_monthly_interest_bps: null,
      free_installments: null,
    });
    const visa = await card(10_000, { installments: 2 });
    expect(visa.body.data).toMatchObject({ fee_amount: 349, pricing: { mdr_bps: 349 } });
  });

  it('withdrawal fees are the merchant pricing of the moment the withdrawal is made', async () => {
    await fund(env, env.merchant.wallet_id, 100_000);
    const pix = (amount: number, key: string) => ({
      type: 'pix',
      wallet_id: env.merchant.wallet_id,
      amount,
      pix_key: 'ana@example.com',
      pix_key_type: 'email',
      holder_document_type: 'cpf',
      holder_document: '52998224725',
      idempotency_key: key,
    });
    expect((await env.call('POST', '/v1/withdrawals', pix(10_000, 'w1'))).body.data).toMatchObject({ fee: 0, netAmount: 10_000 });
    await override({ withdrawal_fees: { pix: { fixed_amount: 50, bps: 10 } } });
    // 50 + 10 000 × 0.1 % = 60
    const w = await env.call('POST', '/v1/withdrawals', pix(10_000, 'w2'));
    expect(w.body.data).toMatchObject({ fee: 60, netAmount: 9_940 });
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(80_000);
  });
});

describe('a charge keeps the rates it was created with', () => {
  it('a PIX charge priced, then repriced before it is paid: captured at the rate it recorded', async () => {
    const c = await env.call('POST', '/v1/charges', chargeBody(10_000, { payment_method: 'pix' }));
    expect(c.body.data).toMatchObject({ status: 'pending', pricing: { mdr_bps: 99 }, fee_amount: null });
    await override({ pix_mdr_bps: 150 });
    const paid = await env.call('POST', `/v1/sandbox/charges/${c.body.data.id}/pay`);
    expect(paid.body.data).toMatchObject({ status: 'captured', fee_amount: 99, net_amount: 9_901, pricing: { mdr_bps: 99 } });
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(9_901);
    // a new charge pays the new price
    const next = await env.call('POST', '/v1/charges', chargeBody(10_000, { payment_method: 'pix' }));
    expect(next.body.data.pricing.mdr_bps).toBe(150);
    expect((await env.call('POST', `/v1/sandbox/charges/${next.body.data.id}/pay`)).body.data.fee_amount).toBe(150);
  });

  it('a boleto repriced after it is issued is paid net of the fee it recorded; a new one pays the new fee', async () => {
    const payer = { street: 'Av. Paulista', number: '1000', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP', zip_code: '01310100' };
    const boleto = (amount: number) => {
      const base = chargeBody(amount, {}) as { customer: Record<string, unknown> };
      return env.call('POST', '/v1/charges', { ...base, customer: { ...base.customer, address: payer }, payment_method: 'boleto', payment_details: { due_date: '2026-01-25' } });
    };
    await override({ boleto_fee_amount: 250 });
    const c = await boleto(10_000);
    expect(c.status, JSON.stringify(c.body)).toBe(201);
    expect(c.body.data).toMatchObject({ status: 'pending', fee_amount: null, total_amount: 10_000, pricing: { mdr_bps: 0, boleto_fee_amount: 250, interest: 'merchant' } });
    await override({ boleto_fee_amount: 900 });
    const paid = await env.call('POST', `/v1/sandbox/charges/${c.body.data.id}/pay`, {});
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body.data).toMatchObject({ status: 'captured', fee_amount: 250, net_amount: 9_750, pricing: { boleto_fee_amount: 250 } });
    expect((await receivablesOf(env, c.body.data.id)).map((r) => [r.gross_amount, r.fee_amount, r.net_amount])).toEqual([[10_000, 250, 9_750]]);
    // a new boleto is priced by the fee of now, and must be of more than it
    const small = await boleto(900);
    expect(small.status).toBe(400);
    expect(small.body.details).toEqual([{ field: 'amount', message: expect.stringContaining('R$ 9,00') }]);
    const next = (await boleto(10_000)).body.data;
    expect(next.pricing.boleto_fee_amount).toBe(900);
    expect((await env.call('POST', `/v1/sandbox/charges/${next.id}/pay`, {})).body.data).toMatchObject({ fee_amount: 900, net_amount: 9_100 });
    // refunds plan by the recorded fee too
    expect((await env.call('POST', `/v1/charges/${c.body.data.id}/refund`)).body.data).toMatchObject({ status: 'refunded', refunded_amount: 10_000 });
    await checkLedger(env);
  });

  it('receivables, anticipation, refunds and settlement of a captured charge use its rates after the pricing changed', async () => {
    const c = (await card(10_000, { installments: 3 })).body.data;
    expect(c).toMatchObject({ fee_amount: 349, net_amount: 9_651 });
    const before = await receivablesOf(env, c.id);
    await override({ card_mdr_bps: { visa: { installments_2_6: 999 } }, anticipation_monthly_bps: 900 });
    // reading the charge and its receivables again: nothing moved
    expect((await env.call('GET', `/v1/charges/${c.id}`)).body.data).toEqual(c);
    expect(await receivablesOf(env, c.id)).toEqual(before);
    // anticipating the third installment: the fee is the 2.5 % the charge recorded, not 9 %
    const third = before[2]!;
    const days = calendarDaysUntil(new Date(third.settlement_date), env.clock.now());
    const a = await env.call('POST', '/v1/anticipations', { receivable_ids: [third.id] });
    expect(a.status, JSON.stringify(a.body)).toBe(201);
    expect(a.body.data.total_fee_amount).toBe(anticipationFee(third.net_amount, days, 250));
    expect(a.body.data.total_fee_amount).not.toBe(anticipationFee(third.net_amount, days, 900));
    // a partial refund: the party's net at capture (the recorded MDR) in proportion, from the second installment
    const r = await env.call('POST', `/v1/charges/${c.id}/refund`, { amount: 2_500 });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const after = await receivablesOf(env, c.id);
    // ⌊9651 × 2500 / 10000⌋ = 2412 taken from installment 2 (3 is anticipated)
    expect(after[1]!.net_amount).toBe(before[1]!.net_amount - 2_412);
    // settlement pays the nets written at capture
    await env.call('POST', '/v1/sandbox/clock/advance', { days: 100 });
    const settled = await receivablesOf(env, c.id);
    expect(settled.map((x) => x.status)).toEqual(['paid', 'paid', 'anticipated']);
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(before[0]!.net_amount + after[1]!.net_amount + third.net_amount - a.body.data.total_fee_amount);
    await checkLedger(env);
  });

  it('an authorisation repriced before its capture is captured at the rates it recorded', async () => {
    const a = (await card(10_000, { installments: 3 }, { capture: false })).body.data;
    expect(a).toMatchObject({ status: 'authorized', fee_amount: null, pricing: { mdr_bps: 349 } });
    await override({ card_mdr_bps: { visa: { installments_2_6: 999 } } });
    const c = await env.call('POST', `/v1/charges/${a.id}/capture`, { amount: 5_000 });
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    // 3.49 % of 5000 = 174.5 → 175, not 9.99 %
    expect(c.body.data).toMatchObject({ status: 'captured', captured_amount: 5_000, fee_amount: 175, net_amount: 4_825, pricing: { mdr_bps: 349 } });
    const rs = await receivablesOf(env, a.id);
    expect(rs.reduce((n, x) => n + x.fee_amount, 0)).toBe(175);
    await checkLedger(env);
  });

  it('a receivable whose anticipation fee would take all of its net is not eligible: refused by id, passed over by amount', async () => {
    // 20 % a month: the 12th installment, ~365 days out, would cost more than it nets
    await override({ anticipation_monthly_bps: 2000 });
    const c = (await card(12_000, { installments: 12 })).body.data;
    const rs = await receivablesOf(env, c.id);
    const last = rs[11]!;
    const days = calendarDaysUntil(new Date(last.settlement_date), env.clock.now());
    expect(anticipationFee(last.net_amount, days, 2000)).toBeGreaterThanOrEqual(last.net_amount);
    const byId = await env.call('POST', '/v1/anticipations', { receivable_ids: [last.id] });
    expect(byId.status, JSON.stringify(byId.body)).toBe(201);
    expect(byId.body.data).toMatchObject({ status: 'refused', total_net_amount: 0 });
    expect(byId.body.data.refusal_reason).toContain(`${last.id}: its fee of ${anticipationFee(last.net_amount, days, 2000)} cents`);
    // by amount: the near installments are taken, the ones whose fee takes all are passed over
    const all = await env.call('POST', '/v1/anticipations', { amount: 1_000_000 });
    expect(all.status, JSON.stringify(all.body)).toBe(201);
    expect(all.body.data.status).toBe('approved');
    const taken = new Set<string>(all.body.data.receivable_ids);
    for (const r of rs) {
      const fee = anticipationFee(r.net_amount, calendarDaysUntil(new Date(r.settlement_date), env.clock.now()), 2000);
      expect(taken.has(r.id), `installment ${r.installment}`).toBe(fee < r.net_amount);
    }
    expect(all.body.data.total_net_amount).toBeGreaterThan(0);
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(all.body.data.total_net_amount);
    await checkLedger(env);
  });

  it('a charge row without recorded rates (stored before migration 720) reads with the default rates and its amount as total, and refunds by them', async () => {
    const c = (await card(10_000, { installments: 3 })).body.data;
    await env.rt.deps.db.run('UPDATE charges SET pricing = NULL, total_amount = NULL WHERE id = ?', [c.id]);
    await override({ card_mdr_bps: { visa: { installments_2_6: 999 } } });
    const got = (await env.call('GET', `/v1/charges/${c.id}`)).body.data;
    expect(got).toMatchObject({ total_amount: 10_000, interest_amount: 0, pricing: { mdr_bps: 349, interest: 'merchant', anticipation_monthly_bps: 250 } });
    const r = await env.call('POST', `/v1/charges/${c.id}/refund`);
    expect(r.body.data).toMatchObject({ status: 'refunded', refunded_amount: 10_000 });
    expect((await receivablesOf(env, c.id)).every((x) => x.status === 'cancelled')).toBe(true);
  });
});

describe('installments with interest paid by the buyer (Price table)', () => {
  it('12× at the default 1.99 % a month: 12 × R$ 9,45 = R$ 113,40; receivables and MDR on the total', async () => {
    const r = await card(10_000, { installments: 12, interest: 'buyer' });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const c = r.body.data;
    const value = priceInstallment(10_000, 12, 199);
    expect(value).toBe(945);
    expect(c).toMatchObject({
      status: 'captured',
      amount: 10_000,
      installments: 12,
      total_amount: 11_340,
      interest_amount: 1_340,
      fee_amount: percentOf(11_340, 399),
      net_amount: 11_340 - percentOf(11_340, 399),
      pricing: { mdr_bps: 399, interest: 'buyer', buyer_monthly_interest_bps: 199, free_installments: 1 },
    });
    const rs = await receivablesOf(env, c.id);
    expect(rs.map((x) => x.gross_amount)).toEqual(Array(12).fill(945));
    expect(rs.reduce((a, x) => a + x.fee_amount, 0)).toBe(c.fee_amount);
    expect(rs.reduce((a, x) => a + x.net_amount, 0)).toBe(c.net_amount);
  });

  it('up to the free installments the buyer pays no interest; above them, the rate of the pricing', async () => {
    await override({ buyer_interest: { free_installments: 3, monthly_bps: 299 } });
    const free = (await card(10_000, { installments: 3, interest: 'buyer' })).body.data;
    expect(free).toMatchObject({ total_amount: 10_000, interest_amount: 0, fee_amount: 349, pricing: { interest: 'buyer', buyer_monthly_interest_bps: 299, free_installments: 3 } });
    const four = (await card(10_000, { installments: 4, interest: 'buyer' })).body.data;
    expect(four.total_amount).toBe(4 * priceInstallment(10_000, 4, 299));
    expect(four.interest_amount).toBe(four.total_amount - 10_000);
    // the merchant pays (the default): no interest at 12×
    const merchant = (await card(10_000, { installments: 12 })).body.data;
    expect(merchant).toMatchObject({ total_amount: 10_000, interest_amount: 0, pricing: { interest: 'merchant', buyer_monthly_interest_bps: null } });
  });

  it('the parties of a split divide the total in proportion, their shares adding up to it', async () => {
    const sub = await addSubmerchant(env);
    const r = await card(10_001, { installments: 6, interest: 'buyer' }, { split_rules: [{ percentage: 70 }, { submerchant_id: sub.id, percentage: 30 }] });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const c = r.body.data;
    expect(c.total_amount).toBe(6 * priceInstallment(10_001, 6, 199));
    const rs = await receivablesOf(env, c.id);
    const mine = rs.filter((x) => x.submerchant_id === null).reduce((a, x) => a + x.gross_amount, 0);
    const theirs = rs.filter((x) => x.submerchant_id === sub.id).reduce((a, x) => a + x.gross_amount, 0);
    expect(mine + theirs).toBe(c.total_amount);
    // shares of the amount 7001/3000 grown to the total, floored, the cents left to the first rule
    expect(theirs).toBe(Math.floor((3000 * c.total_amount) / 10_001));
    expect(rs.reduce((a, x) => a + x.fee_amount, 0)).toBe(percentOf(c.total_amount, 349));
  });

  it('a refund gives the buyer back up to the total, interest included', async () => {
    const c = (await card(10_000, { installments: 12, interest: 'buyer' })).body.data;
    const tooMuch = await env.call('POST', `/v1/charges/${c.id}/refund`, { amount: 11_341 });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.details).toEqual([{ field: 'amount', message: expect.stringContaining('11340') }]);
    const part = await env.call('POST', `/v1/charges/${c.id}/refund`, { amount: 10_000 });
    expect(part.status, JSON.stringify(part.body)).toBe(200);
    expect(part.body.data).toMatchObject({ status: 'captured', refunded_amount: 10_000 });
    expect(part.body.message).toBe('Charge partly refunded: 10000 of 11340 cents');
    const rest = await env.call('POST', `/v1/charges/${c.id}/refund`);
    expect(rest.body.data).toMatchObject({ status: 'refunded', refunded_amount: 11_340 });
    await checkLedger(env);
  });

  it('an authorisation with buyer interest is captured up to its total, interest included, and refunded up to what was captured', async () => {
    const a = (await card(10_000, { installments: 12, interest: 'buyer' }, { capture: false })).body.data;
    expect(a).toMatchObject({ status: 'authorized', total_amount: 11_340, interest_amount: 1_340, captured_amount: null });
    const tooMuch = await env.call('POST', `/v1/charges/${a.id}/capture`, { amount: 11_341 });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.details).toEqual([{ field: 'amount', message: expect.stringContaining('11340') }]);
    const all = await env.call('POST', `/v1/charges/${a.id}/capture`);
    expect(all.status, JSON.stringify(all.body)).toBe(200);
    expect(all.body.data).toMatchObject({ status: 'captured', captured_amount: 11_340, fee_amount: percentOf(11_340, 399) });
    expect((await receivablesOf(env, a.id)).map((x) => x.gross_amount)).toEqual(Array(12).fill(945));
    // a partial capture above the amount: the split parties' shares, grown to the total, scaled to it
    const sub = await addSubmerchant(env);
    const b = (await card(10_000, { installments: 12, interest: 'buyer' }, { capture: false, split_rules: [{ percentage: 70 }, { submerchant_id: sub.id, percentage: 30 }] })).body.data;
    const part = await env.call('POST', `/v1/charges/${b.id}/capture`, { amount: 10_500 });
    expect(part.status, JSON.stringify(part.body)).toBe(200);
    expect(part.body.data).toMatchObject({ captured_amount: 10_500, fee_amount: percentOf(10_500, 399) });
    const rs = await receivablesOf(env, b.id);
    expect(rs.reduce((n, x) => n + x.gross_amount, 0)).toBe(10_500);
    expect(rs.filter((x) => x.submerchant_id === sub.id).reduce((n, x) => n + x.gross_amount, 0)).toBe(3_150);
    const over = await env.call('POST', `/v1/charges/${b.id}/refund`, { amount: 10_501 });
    expect(over.body.details).toEqual([{ field: 'amount', message: expect.stringContaining('10500') }]);
    const back = await env.call('POST', `/v1/charges/${b.id}/refund`);
    expect(back.body.data).toMatchObject({ status: 'refunded', refunded_amount: 10_500 });
    expect((await receivablesOf(env, b.id)).every((x) => x.status === 'cancelled')).toBe(true);
    await checkLedger(env);
  });

  it('is for cards: on a PIX, payment_details.interest is the late interest of a due date, so "buyer" is a 400 naming it, and writes nothing', async () => {
    const r = await env.call('POST', '/v1/charges', chargeBody(10_000, { payment_method: 'pix', payment_details: { interest: 'buyer' } }));
    expect(r.status).toBe(400);
    expect(r.body.details).toEqual([{ field: 'payment_details.interest', message: expect.stringMatching(/basis points/) }]);
    // and it says where "buyer" belongs
    expect(r.body.details[0].message).toMatch(/"buyer" \(who pays a card's installment interest\) is for credit_card charges only/);
    for (const method of ['boleto', 'pix'] as const) {
      const words = await env.call('POST', '/v1/charges', chargeBody(10_000, { payment_method: method, payment_details: { due_date: '2026-01-30', interest: 'merchant' } }));
      expect(words.status).toBe(400);
      expect(words.body.details.find((d: { field: string }) => d.field === 'payment_details.interest')?.message).toMatch(/"merchant" \(who pays a card's installment interest\) is for credit_card/);
    }
    const bad = await card(10_000, { installments: 2, interest: 'comprador' });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual([{ field: 'payment_details.interest', message: expect.stringMatching(/merchant, buyer/) }]);
    expect((await env.call('GET', '/v1/charges')).body.data).toEqual([]);
    const ok = await env.call('POST', '/v1/charges', chargeBody(10_000, { payment_method: 'pix' }));
    expect(ok.body.data).toMatchObject({ total_amount: 10_000, interest_amount: 0, pricing: { interest: 'merchant', boleto_fee_amount: null } });
  });

  it('a charge keeps its interest terms when the pricing changes before it is refunded', async () => {
    const c = (await card(10_000, { installments: 12, interest: 'buyer' })).body.data;
    await override({ buyer_interest: { monthly_bps: 499 } });
    expect((await env.call('GET', `/v1/charges/${c.id}`)).body.data).toMatchObject({ total_amount: 11_340, pricing: { buyer_monthly_interest_bps: 199 } });
    const next = (await card(10_000, { installments: 12, interest: 'buyer' })).body.data;
    expect(next.total_amount).toBe(12 * priceInstallment(10_000, 12, 499));
  });
});

describe('payment links take the same setting', () => {
  const link = (over: Record<string, unknown> = {}) =>
    env.call('POST', '/v1/payment-links', { title: 'Curso', product_type: 'digital', allowed_payment_methods: ['credit_card', 'pix'], amount: 10_000, max_installments: 12, ...over });

  it('interest on create and PATCH; buyer needs credit_card; merchant by default', async () => {
    const plain = (await link()).body.data;
    expect(plain.interest).toBe('merchant');
    const b = await link({ interest: 'buyer' });
    expect(b.status).toBe(201);
    expect(b.body.data.interest).toBe('buyer');
    const pixOnly = await link({ interest: 'buyer', allowed_payment_methods: ['pix'], max_installments: 1 });
    expect(pixOnly.status).toBe(400);
    expect(pixOnly.body.details).toEqual([{ field: 'interest', message: expect.stringMatching(/credit_card/) }]);
    const patched = await env.call('PATCH', `/v1/payment-links/${plain.id}`, { interest: 'buyer' });
    expect(patched.body.data.interest).toBe('buyer');
    const badPatch = await env.call('PATCH', `/v1/payment-links/${plain.id}`, { allowed_payment_methods: ['pix'], max_installments: 1 });
    expect(badPatch.status).toBe(400);
    expect(badPatch.body.details[0].field).toBe('interest');
  });

  it('a link that takes boletos must be of more than the boleto fee of the merchant pricing', async () => {
    await override({ boleto_fee_amount: 900 });
    const low = await link({ allowed_payment_methods: ['boleto'], max_installments: 1, amount: 900 });
    expect(low.status).toBe(400);
    expect(low.body.details).toEqual([{ field: 'amount', message: expect.stringContaining('900 cents') }]);
    const ok = await link({ allowed_payment_methods: ['boleto'], max_installments: 1, amount: 901 });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    const patch = await env.call('PATCH', `/v1/payment-links/${ok.body.data.id}`, { amount: 500 });
    expect(patch.status).toBe(400);
    expect(patch.body.details[0].field).toBe('amount');
  });

  it('the hosted checkout of a buyer-interest link shows each option and charges the total', async () => {
    await override({ buyer_interest: { free_installments: 3 } });
    const l = (await link({ interest: 'buyer' })).body.data;
    const html = await (await env.rt.app.request(`/checkout/${l.id}`)).text();
    expect(html).toContain('<option value="3">3x sem juros (1ª de R$ 33,34, demais de R$ 33,33)</option>');
    expect(html).toContain('<option value="12">12x de R$ 9,45 (total R$ 113,40)</option>');
    const token = await tokenize(env);
    const res = await env.rt.app.request(`/checkout/${l.id}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        attempt_id: 'attempt-interest-1',
        payment_method: 'credit_card',
        token,
        installments: 12,
        customer: { name: 'Ana Souza', email: 'ana@example.com', tax_id: '52998224725', phone: '+5511987654321' },
      }),
    });
    const body = (await res.json()) as { data: { receipt_id: string; amount: number; total_amount: number } };
    expect(res.status, JSON.stringify(body)).toBe(201);
    expect(body.data).toMatchObject({ amount: 10_000, total_amount: 11_340 });
    const c = (await env.call('GET', `/v1/charges/${body.data.receipt_id}`)).body.data;
    expect(c).toMatchObject({ total_amount: 11_340, interest_amount: 1_340, pricing: { interest: 'buyer', free_installments: 3 } });
  });
});
