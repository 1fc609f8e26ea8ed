/**
 * Boletos through the API, on a real store with the merchant's clock (ManualClock at Thursday
 * 2026-01-15 09:00 in São Paulo): create (payer registration data, terms, the slip), pay on the
 * day (discount, on time, late with fine and interest, any other amount refused), the paid
 * amount settling D+1 net of the boleto fee, expiry, the sandbox's magic payers, split and
 * refunds.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { addSubmerchant, balanceOf, chargeBody, checkLedger, checkStatements, receivablesOf } from '../helpers/money.js';
import { parseBoleto } from '../../src/domain/boleto.js';

let env: TestEnv;
beforeEach(async () => {
  env = await testEnv();
});
afterEach(async () => env.close());

const payer = { street: 'Av. Paulista', number: '1000', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP', zip_code: '01310-100' };

/** A boleto charge body: due on Sunday 2026-01-25 unless the details say otherwise. */
function boletoBody(amount: number, details: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  const { customer, ...rest } = extra;
  const base = chargeBody(amount, rest) as { customer: Record<string, unknown> };
  return {
    ...base,
    customer: { ...base.customer, address: { ...payer }, ...((customer as object | undefined) ?? {}) },
    payment_method: 'boleto',
    payment_details: { due_date: '2026-01-25', ...details },
  };
}

const advanceDays = async (days: number) => {
  const r = await env.call('POST', '/v1/sandbox/clock/advance', { days });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
};
const eventsOf = async (id: string) =>
  (await env.rt.deps.db.all<{ type: string }>('SELECT type FROM events WHERE charge_id = ? ORDER BY id', [id])).map((e) => e.type);

describe('creating a boleto', () => {
  it('answers the slip: 44-digit barcode of bank 999, digitable line, due date, printable page and expiry', async () => {
    const r = await env.call('POST', '/v1/charges', boletoBody(10000, { fine: 200, interest: 100, discount: { amount: 500, until: '2026-01-20' }, instructions: 'Referente ao pedido 42' }));
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.message).toBe('Boleto created; waiting for payment');
    const c = r.body.data;
    expect(c).toMatchObject({ status: 'pending', payment_method: 'boleto', installments: 1, card: null, pix: null, paid_amount: null, fee_amount: null });
    const b = c.boleto;
    expect(b.bank_code).toBe('999');
    expect(b.barcode).toMatch(/^\d{44}$/);
    // bank, currency, factor of Sunday 2026-01-25 (1000 + days since 2025-02-22 = 1337), amount
    expect(b.barcode.slice(0, 4)).toBe('9999');
    expect(b.barcode.slice(5, 9)).toBe('1337');
    expect(b.barcode.slice(9, 19)).toBe('0000010000');
    // free field: agency 0001, the merchant's account (8 digits), the nosso número (12 digits)
    expect(b.barcode.slice(19, 23)).toBe('0001');
    expect(b.barcode.slice(31, 43)).toBe(b.our_number);
    expect(b.our_number).toMatch(/^\d{12}$/);
    const parsed = parseBoleto(b.formatted_line);
    expect(parsed.ok && parsed.boleto.barcode).toBe(b.barcode);
    expect(b.digitable_line).toBe(b.formatted_line.replace(/[. ]/g, ''));
    expect(b.formatted_line).toMatch(/^\d{5}\.\d{5} \d{5}\.\d{6} \d{5}\.\d{6} \d \d{14}$/);
    expect(b.due_date).toBe('2026-01-25');
    expect(b.url).toMatch(new RegExp(`/boleto/${c.id}$`));
    // last payable day: 2026-01-25 + 29 = Monday 2026-02-23; the charge expires as it ends (São Paulo)
    expect(b.expires_at).toBe('2026-02-24T03:00:00.000Z');
    expect(c.due).toEqual({
      due_date: '2026-01-25',
      fine: 200,
      interest: 100,
      discount: { amount: 500, until: '2026-01-20' },
      pay_until_days: 29,
      last_payable_day: '2026-02-23',
      instructions: 'Referente ao pedido 42',
      paid_on: null,
      discount_amount: null,
      fine_amount: null,
      interest_amount: null,
    });
    expect(c.customer.address).toEqual({ ...payer, zip_code: '01310100' });
    expect(await eventsOf(c.id)).toEqual(['charge.pending']);
    expect((await env.call('GET', `/v1/charges/${c.id}`)).body.data).toEqual(c);
  });

  it("numbers slips from one store sequence; each merchant has its own 8-digit account", async () => {
    const a = (await env.call('POST', '/v1/charges', boletoBody(1000))).body.data.boleto;
    const b = (await env.call('POST', '/v1/charges', boletoBody(1000))).body.data.boleto;
    expect(Number(b.our_number)).toBe(Number(a.our_number) + 1);
    expect(b.barcode.slice(23, 31)).toBe(a.barcode.slice(23, 31));
    const other = await env.newMerchant('Outra Loja');
    const auth = env.auth(other);
    const c = await env.call('POST', '/v1/charges', boletoBody(1000), { authorization: auth });
    expect(c.status, JSON.stringify(c.body)).toBe(201);
    expect(Number(c.body.data.boleto.our_number)).toBe(Number(b.our_number) + 1);
    expect(c.body.data.boleto.barcode.slice(23, 31)).toMatch(/^\d{8}$/);
    expect(c.body.data.boleto.barcode.slice(23, 31)).not.toBe(a.barcode.slice(23, 31));
    const accounts = await env.rt.deps.db.all<{ boleto_account: string }>('SELECT boleto_account FROM merchants WHERE boleto_account IS NOT NULL ORDER BY boleto_account');
    expect(accounts.map((x) => x.boleto_account)).toEqual([a.barcode.slice(23, 31), c.body.data.boleto.barcode.slice(23, 31)].sort());
  });

  it('a refused create takes no number: the next boleto gets the one after the last written', async () => {
    const a = (await env.call('POST', '/v1/charges', boletoBody(1000))).body.data.boleto;
    const refused = await env.call('POST', '/v1/charges', boletoBody(1000, {}, { submerchant_id: '0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f' }));
    expect(refused.status).toBe(404); // refused inside the transaction, after the slip was made
    const b = (await env.call('POST', '/v1/charges', boletoBody(1000))).body.data.boleto;
    expect(Number(b.our_number)).toBe(Number(a.our_number) + 1);
  });

  it.each([
    ['customer.address', (b: any) => delete b.customer.address],
    ['customer.address.zip_code', (b: any) => delete b.customer.address.zip_code],
    ['customer.address.street', (b: any) => delete b.customer.address.street],
    ['customer.address.state', (b: any) => (b.customer.address.state = 'XX')],
    ['customer.address.zip_code', (b: any) => (b.customer.address.zip_code = '0131010')],
    ['customer.tax_id', (b: any) => delete b.customer.tax_id],
    ['customer.name', (b: any) => delete b.customer.name],
    ['customer.tax_id', (b: any) => (b.customer.tax_id = '52998224724')],
    ['payment_details', (b: any) => delete b.payment_details],
    ['payment_details.due_date', (b: any) => delete b.payment_details.due_date],
  ])('the payer registration data and the terms are required: 400 naming %s, nothing written', async (field, mutate) => {
    const body = boletoBody(1000);
    mutate(body);
    const r = await env.call('POST', '/v1/charges', body);
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.details.map((d: { field: string }) => d.field)).toContain(field);
    expect((await env.rt.deps.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM charges'))!.n).toBe(0);
  });

  it.each([
    ['payment_details.due_date', { due_date: '2026-01-14' }, 'from 2026-01-15 to 2027-01-15'],
    ['payment_details.due_date', { due_date: '2027-01-16' }, 'from 2026-01-15 to 2027-01-15'],
    ['payment_details.discount.until', { discount: { amount: 100, until: '2026-01-26' } }, 'to the due date (2026-01-25)'],
    ['payment_details.discount.amount', { discount: { amount: 1000, until: '2026-01-20' } }, 'from 1 to 999'],
    ['payment_details.pay_until_days', { pay_until_days: 60 }, 'at most 59'],
    ['payment_details.fine', { fine: 10001 }, 'at most 10000'],
    ['payment_details.interest', { interest: -1 }, 'must not be negative'],
    ['payment_details.instructions', { instructions: 'a\nb\nc\nd\ne\nf' }, 'at most 5 lines'],
  ])('terms out of range are a 400 naming %s', async (field, details, says) => {
    const r = await env.call('POST', '/v1/charges', boletoBody(1000, details));
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    const d = r.body.details.find((x: { field: string }) => x.field === field);
    expect(d?.message, JSON.stringify(r.body)).toContain(says);
  });

  it('an impossible day in the right form is a 400 saying it is not a calendar day; a wrong form still names the form', async () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ due_date: '2026-02-30' }, 'payment_details.due_date', /2026-02-30 is not a calendar day/],
      [{ due_date: '2026-04-31' }, 'payment_details.due_date', /2026-04-31 is not a calendar day/],
      [{ discount: { amount: 100, until: '2026-01-32' } }, 'payment_details.discount.until', /2026-01-32 is not a calendar day/],
      [{ due_date: '25/01/2026' }, 'payment_details.due_date', /must be a date in the form YYYY-MM-DD/],
    ];
    for (const [details, field, says] of cases) {
      const r = await env.call('POST', '/v1/charges', boletoBody(1000, details));
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      const d = r.body.details.find((x: { field: string }) => x.field === field);
      expect(d?.message, JSON.stringify(r.body)).toMatch(says);
    }
    const c = (await env.call('POST', '/v1/charges', boletoBody(1000))).body.data;
    const pay = await env.call('POST', `/v1/sandbox/charges/${c.id}/pay`, { paid_on: '2026-02-30' });
    expect(pay.status).toBe(400);
    expect(pay.body.details).toEqual([expect.objectContaining({ field: 'paid_on', message: expect.stringMatching(/2026-02-30 is not a calendar day/) })]);
    expect((await env.rt.deps.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM charges'))!.n).toBe(1);
  });

  it('an amount the boleto fee (R$ 3,49) would eat is a 400 naming amount, or the discount that makes it so', async () => {
    const r = await env.call('POST', '/v1/charges', boletoBody(349));
    expect(r.status).toBe(400);
    expect(r.body.details[0]).toMatchObject({ field: 'amount' });
    expect(r.body.details[0].message).toContain('R$ 3,49');
    expect((await env.call('POST', '/v1/charges', boletoBody(350))).status).toBe(201);
    const d = await env.call('POST', '/v1/charges', boletoBody(400, { discount: { amount: 51, until: '2026-01-20' } }));
    expect(d.status).toBe(400);
    expect(d.body.details[0].field).toBe('payment_details.discount.amount');
  });

  it('paying twice (a boleto, a PIX with a due date, an instant PIX) is a 409 saying it is not pending, in payment words', async () => {
    const b = (await env.call('POST', '/v1/charges', boletoBody(10000))).body.data;
    const cobv = (await env.call('POST', '/v1/charges', chargeBody(10000, { payment_method: 'pix', payment_details: { due_date: '2026-01-25' } }))).body.data;
    const pix = (await env.call('POST', '/v1/charges', chargeBody(10000, { payment_method: 'pix' }))).body.data;
    for (const c of [b, cobv, pix]) {
      expect((await env.call('POST', `/v1/sandbox/charges/${c.id}/pay`)).status).toBe(200);
      const again = await env.call('POST', `/v1/sandbox/charges/${c.id}/pay`);
      expect(again.status).toBe(409);
      expect(again.body.error).toBe('invalid_state');
      expect(again.body.message).toBe('this charge is captured, not pending: it is already paid, and only a pending charge can be paid');
    }
  });

  it('says so in boleto words: no installments, what the amount must exceed', async () => {
    const r = await env.call('POST', '/v1/charges', boletoBody(349));
    expect(r.body.details[0].message).not.toMatch(/installment/);
    expect(r.body.details[0].message).toBe('a paid boleto costs a fee of R$ 3,49: the amount (349 cents) must be more than that, so that at least 1 cent is left');
    const d = await env.call('POST', '/v1/charges', boletoBody(400, { discount: { amount: 51, until: '2026-01-20' } }));
    expect(d.body.details[0].message).toBe('a paid boleto costs a fee of R$ 3,49: the amount less the discount (349 cents) must be more than that, so that at least 1 cent is left');
  });
});

describe('paying a boleto', () => {
  const terms = { fine: 200, interest: 100, discount: { amount: 500, until: '2026-01-20' } };

  it('before or on discount.until the discounted amount is due; any other amount is a 422 naming it', async () => {
    const c = (await env.call('POST', '/v1/charges', boletoBody(10000, terms))).body.data;
    const wrong = await env.call('POST', `/v1/sandbox/charges/${c.id}/pay`, { amount: 10000 });
    expect(wrong.status).toBe(422);
    expect(wrong.body.details[0].field).toBe('amount');
    expect(wrong.body.message).toContain('9500 cents');
    expect(wrong.body.message).toContain('2026-01-15');
    expect((await env.call('GET', `/v1/charges/${c.id}`)).body.data.status).toBe('pending');
    await advanceDays(5); // Tuesday 2026-01-20, the last day of the discount
    const paid = await env.call('POST', `/v1/sandbox/charges/${c.id}/pay`, { amount: 9500 });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body.message).toBe('Boleto paid');
    expect(paid.body.data).toMatchObject({ status: 'captured', paid_amount: 9500, fee_amount: 349, net_amount: 9151 });
    expect(paid.body.data.due).toMatchObject({ paid_on: '2026-01-20', discount_amount: 500, fine_amount: 0, interest_amount: 0 });
  });

  it('a discount.until on a weekend holds until the next business day (docs/api.md says so)', async () => {
    // until Saturday 2026-01-17: Monday 2026-01-19 still gets the discount, Tuesday does not
    const monday = (await env.call('POST', '/v1/charges', boletoBody(10000, { discount: { amount: 500, until: '2026-01-17' } }))).body.data;
    const tuesday = (await env.call('POST', '/v1/charges', boletoBody(10000, { discount: { amount: 500, until: '2026-01-17' } }))).body.data;
    await advanceDays(5); // Tuesday 2026-01-20
    const a = await env.call('POST', `/v1/sandbox/charges/${monday.id}/pay`, { paid_on: '2026-01-19' });
    expect(a.body.data).toMatchObject({ paid_amount: 9500, due: { paid_on: '2026-01-19', discount_amount: 500 } });
    const b = await env.call('POST', `/v1/sandbox/charges/${tuesday.id}/pay`, { paid_on: '2026-01-20' });
    expect(b.body.data).toMatchObject({ paid_amount: 10000, due: { paid_on: '2026-01-20', discount_amount: 0 } });
    const api = readFileSync(join(__dirname, '..', '..', 'docs', 'api.md'), 'utf8').replace(/\s+/g, ' ');
    expect(api).toMatch(/`until` on a weekend or national holiday moves to the next business day/);
  });

  it('a due date on a Sunday is paid without fine or interest on Monday; D+1 settles net of the fee into the wallet', async () => {
    const c = (await env.call('POST', '/v1/charges', boletoBody(10000, terms))).body.data;
    await advanceDays(11); // Monday 2026-01-26
    const paid = await env.call('POST', `/v1/sandbox/charges/${c.id}/pay`, {});
    expect(paid.body.data).toMatchObject({ status: 'captured', paid_amount: 10000, fee_amount: 349, net_amount: 9651 });
    const [rc, ...more] = await receivablesOf(env, c.id);
    expect(more).toEqual([]);
    // paid on Monday 2026-01-26: settles on Tuesday 2026-01-27, 00:00 in São Paulo
    expect(rc).toMatchObject({ payment_method: 'boleto', gross_amount: 10000, fee_amount: 349, net_amount: 9651, status: 'pending', settlement_date: '2026-01-27T03:00:00.000Z' });
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(0);
    await advanceDays(1);
    expect((await receivablesOf(env, c.id))[0]).toMatchObject({ status: 'paid' });
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(9651);
    expect(await eventsOf(c.id)).toEqual(['charge.pending', 'charge.captured', 'receivable.paid']);
    await checkLedger(env);
    await checkStatements(env);
  });

  it('after the due date the fine (once) and the interest (pro rata per calendar day) are added', async () => {
    const c = (await env.call('POST', '/v1/charges', boletoBody(10000, terms))).body.data;
    await advanceDays(21); // Thursday 2026-02-05
    // 10 days after Monday 2026-01-26: fine 2 % = R$ 2,00; interest 1 % a month × 10/30 = R$ 0,33
    const wrong = await env.call('POST', `/v1/sandbox/charges/${c.id}/pay`, { amount: 10000 });
    expect(wrong.status).toBe(422);
    expect(wrong.body.details[0].message).toBe(
      'must be 10233 cents (R$ 102,33: R$ 100,00 + fine R$ 2,00 + interest R$ 0,33 (10 days late)), the amount due on 2026-02-05; got 10000',
    );
    const paid = await env.call('POST', `/v1/sandbox/charges/${c.id}/pay`, { amount: 10233 });
    expect(paid.body.data).toMatchObject({ paid_amount: 10233, fee_amount: 349, net_amount: 9884 });
    expect(paid.body.data.due).toMatchObject({ paid_on: '2026-02-05', discount_amount: 0, fine_amount: 200, interest_amount: 33 });
    // paid on Thursday: settles Friday 2026-02-06
    expect((await receivablesOf(env, c.id))[0]).toMatchObject({ gross_amount: 10233, net_amount: 9884, settlement_date: '2026-02-06T03:00:00.000Z' });
  });

  it('paid_on names an earlier day (from the day it was made to today); that day decides what is due and when it settles', async () => {
    const c = (await env.call('POST', '/v1/charges', boletoBody(10000, terms))).body.data;
    await advanceDays(21);
    const future = await env.call('POST', `/v1/sandbox/charges/${c.id}/pay`, { paid_on: '2026-02-06' });
    expect(future.status).toBe(400);
    expect(future.body.details[0]).toEqual({ field: 'paid_on', message: 'must be a São Paulo day from 2026-01-15 (the day the charge was made) to today (2026-02-05)' });
    expect((await env.call('POST', `/v1/sandbox/charges/${c.id}/pay`, { paid_on: '2026-01-14' })).status).toBe(400);
    // Friday 2026-01-16, with the discount; D+1 is Monday 2026-01-19, already past: settled at once, dated then
    const paid = await env.call('POST', `/v1/sandbox/charges/${c.id}/pay`, { paid_on: '2026-01-16', amount: 9500 });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect((await receivablesOf(env, c.id))[0]).toMatchObject({ status: 'paid', settlement_date: '2026-01-19T03:00:00.000Z', paid_at: '2026-01-19T03:00:00.000Z' });
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(9500 - 349);
    await checkStatements(env);
  });

  it('not paid by its last payable day: expired (event charge.expired); then it cannot be paid', async () => {
    const c = (await env.call('POST', '/v1/charges', boletoBody(10000, { pay_until_days: 0 }))).body.data;
    expect(c.boleto.expires_at).toBe('2026-01-27T03:00:00.000Z'); // Sunday's slip is payable on Monday the 26th
    await advanceDays(11); // Monday 2026-01-26, 09:00
    expect((await env.call('GET', `/v1/charges/${c.id}`)).body.data.status).toBe('pending');
    env.clock.advance(15 * 3_600_000); // 00:00 on Tuesday
    const got = (await env.call('GET', `/v1/charges/${c.id}`)).body.data;
    expect(got.status).toBe('expired');
    expect(await eventsOf(c.id)).toEqual(['charge.pending', 'charge.expired']);
    const pay = await env.call('POST', `/v1/sandbox/charges/${c.id}/pay`, {});
    expect(pay.status).toBe(409);
    expect(pay.body.error).toBe('invalid_state');
    expect((await env.call('GET', '/v1/charges?status=expired')).body.data.map((x: { id: string }) => x.id)).toEqual([c.id]);
  });

  it('POST /v1/sandbox/charges/{id}/expire expires one pending boleto now; not a card, not a paid one', async () => {
    const c = (await env.call('POST', '/v1/charges', boletoBody(10000))).body.data;
    const e = await env.call('POST', `/v1/sandbox/charges/${c.id}/expire`);
    expect(e.status, JSON.stringify(e.body)).toBe(200);
    expect(e.body.data.status).toBe('expired');
    expect(await eventsOf(c.id)).toEqual(['charge.pending', 'charge.expired']);
    expect((await env.call('POST', `/v1/sandbox/charges/${c.id}/expire`)).status).toBe(409);
    const pix = (await env.call('POST', '/v1/charges', chargeBody(1000, { payment_method: 'pix' }))).body.data;
    const instant = await env.call('POST', `/v1/sandbox/charges/${pix.id}/expire`);
    expect(instant.status).toBe(422);
    expect(instant.body.message).toContain('instant PIX');
  });

  it('an instant PIX takes amount only when it is its amount, and no paid_on', async () => {
    const pix = (await env.call('POST', '/v1/charges', chargeBody(1000, { payment_method: 'pix' }))).body.data;
    const wrong = await env.call('POST', `/v1/sandbox/charges/${pix.id}/pay`, { amount: 999 });
    expect(wrong.status).toBe(422);
    expect(wrong.body.details[0].field).toBe('amount');
    expect((await env.call('POST', `/v1/sandbox/charges/${pix.id}/pay`, { paid_on: '2026-01-15' })).status).toBe(400);
    const ok = await env.call('POST', `/v1/sandbox/charges/${pix.id}/pay`, { amount: 1000 });
    expect(ok.body).toMatchObject({ message: 'PIX charge paid', data: { status: 'captured', paid_amount: null, due: null, boleto: null } });
  });
});

describe('the sandbox payers of customer.email', () => {
  it('…pays_late@ is paid by itself 5 days after the (moved) due date, with the fine and the interest', async () => {
    const c = (await env.call('POST', '/v1/charges', boletoBody(10000, { fine: 200, interest: 100 }, { customer: { email: 'ana.pays_late@example.com' } }))).body.data;
    await advanceDays(15); // Friday 2026-01-30: not yet
    expect((await env.call('GET', `/v1/charges/${c.id}`)).body.data.status).toBe('pending');
    await advanceDays(1); // Saturday 2026-01-31, 09:00: still before 10:00
    expect((await env.call('GET', `/v1/charges/${c.id}`)).body.data.status).toBe('pending');
    env.clock.advance(3_600_000);
    const paid = (await env.call('GET', `/v1/charges/${c.id}`)).body.data;
    // Monday 2026-01-26 + 5 = Saturday 2026-01-31 at 10:00: fine R$ 2,00, interest 5/30 of 1 % = R$ 0,16
    expect(paid).toMatchObject({ status: 'captured', paid_amount: 10216, captured_at: '2026-01-31T13:00:00.000Z' });
    expect(paid.due).toMatchObject({ paid_on: '2026-01-31', fine_amount: 200, interest_amount: 16 });
    // paid on a Saturday: settles on Monday 2026-02-02
    expect((await receivablesOf(env, c.id))[0]).toMatchObject({ settlement_date: '2026-02-02T03:00:00.000Z' });
  });

  it('…never_pays@ cannot be paid and expires', async () => {
    const c = (await env.call('POST', '/v1/charges', boletoBody(10000, {}, { customer: { email: 'NEVER_PAYS@example.com' } }))).body.data;
    const pay = await env.call('POST', `/v1/sandbox/charges/${c.id}/pay`, {});
    expect(pay.status).toBe(422);
    expect(pay.body.message).toContain('never pays');
    await advanceDays(60);
    expect((await env.call('GET', `/v1/charges/${c.id}`)).body.data.status).toBe('expired');
  });

  it('are not magic in production: a late payer there waits like anyone', async () => {
    const prod = await testEnv({ mode: 'production' });
    try {
      const r = await prod.call('POST', '/v1/charges', boletoBody(10000, {}, { customer: { email: 'ana.pays_late@example.com' } }));
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      const row = await prod.rt.deps.db.get<{ sandbox_pays_at: string | null }>('SELECT sandbox_pays_at FROM charges WHERE id = ?', [r.body.data.id]);
      expect(row!.sandbox_pays_at).toBeNull();
    } finally {
      await prod.close();
    }
  });
});

describe('boleto money', () => {
  it('split: the paid amount is shared in proportion, the fee divided like any fee; a full refund takes back what was paid', async () => {
    const sub = await addSubmerchant(env);
    const c = (
      await env.call(
        'POST',
        '/v1/charges',
        boletoBody(10000, { fine: 200, interest: 100 }, { split_rules: [{ amount: 7000 }, { submerchant_id: sub.id, amount: 3000 }] }),
      )
    ).body.data;
    await advanceDays(21); // 10 days late: 10233 due
    const paid = await env.call('POST', `/v1/sandbox/charges/${c.id}/pay`, {});
    expect(paid.body.data).toMatchObject({ status: 'captured', paid_amount: 10233, captured_amount: 10233 });
    const rs = await receivablesOf(env, c.id);
    const mine = rs.find((r) => r.submerchant_id === null)!;
    const theirs = rs.find((r) => r.submerchant_id === sub.id)!;
    // 10233 × 70 % = 7163.1 → 7163, 30 % = 3069.9 → 3069, the cent left to the first rule; fee 349 → 245 / 104
    expect([mine.gross_amount, mine.fee_amount, theirs.gross_amount, theirs.fee_amount]).toEqual([7164, 245, 3069, 104]);
    await advanceDays(1);
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(7164 - 245);
    expect(await balanceOf(env, sub.wallet_id)).toBe(3069 - 104);
    const refund = await env.call('POST', `/v1/charges/${c.id}/refund`, { amount: 10234 });
    expect(refund.status).toBe(400);
    expect(refund.body.details[0].message).toContain('10233');
    const full = await env.call('POST', `/v1/charges/${c.id}/refund`, {});
    expect(full.body.data).toMatchObject({ status: 'refunded', refunded_amount: 10233 });
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(0);
    expect(await balanceOf(env, sub.wallet_id)).toBe(0);
    await checkLedger(env);
    await checkStatements(env);
  });

  it('cannot be authorised only: capture false is a 400 naming capture, and nothing is written', async () => {
    const r = await env.call('POST', '/v1/charges', boletoBody(10000, {}, { capture: false }));
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.details.map((d: { field: string }) => d.field)).toEqual(['capture']);
    expect(r.body.details[0].message).toContain('a boleto is captured when it is paid');
    expect((await env.rt.deps.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM charges'))!.n).toBe(0);
  });

  it('receivables list and filter by payment_method boleto; charges list by payment_method boleto', async () => {
    const c = (await env.call('POST', '/v1/charges', boletoBody(10000))).body.data;
    await env.call('POST', `/v1/sandbox/charges/${c.id}/pay`, {});
    expect((await env.call('GET', '/v1/receivables?payment_method=boleto')).body.data).toHaveLength(1);
    expect((await env.call('GET', '/v1/charges?payment_method=boleto')).body.pagination.total).toBe(1);
  });
});

describe('the OpenAPI document', () => {
  it('has the boleto body, the due-date terms of a PIX, the charge fields, and the sandbox pay and expire operations', async () => {
    const doc = await (await env.rt.app.request('/openapi.json')).json();
    const variants = doc.paths['/v1/charges'].post.requestBody.content['application/json'].schema.oneOf as Array<{ properties: Record<string, any>; required: string[] }>;
    const method = (v: { properties: Record<string, any> }) => v.properties.payment_method.const ?? v.properties.payment_method.enum?.[0];
    const boleto = variants.find((v) => method(v) === 'boleto')!;
    expect(Object.keys(boleto.properties.payment_details.properties).sort()).toEqual(['discount', 'due_date', 'fine', 'instructions', 'interest', 'pay_until_days']);
    expect(boleto.properties.customer.required).toContain('address');
    expect(boleto.properties.customer.properties.address.required).toContain('zip_code');
    const pix = variants.find((v) => method(v) === 'pix')!;
    expect(pix.properties.payment_details.properties).toHaveProperty('due_date');
    const record = doc.paths['/v1/charges/{id}'].get.responses['200'].content['application/json'].schema;
    expect(JSON.stringify(record)).toContain('digitable_line');
    expect(JSON.stringify(record)).toContain('paid_amount');
    const pay = doc.paths['/v1/sandbox/charges/{id}/pay'].post;
    expect(Object.keys(pay.requestBody.content['application/json'].schema.properties).sort()).toEqual(['amount', 'paid_on']);
    expect(doc.paths['/v1/sandbox/charges/{id}/expire'].post.operationId).toBe('charges.sandboxExpire');
  });
});
