/**
 * PIX with a due date (cobv) through the API: a BR Code whose location is `/cobv/` and which
 * carries no amount, the amount due computed on the day it is paid (as a boleto's), the wallet
 * credited at once net of the PIX MDR of what was paid, and expiry after the last payable day
 * as `expired` (an instant PIX still fails with pix_expired).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { balanceOf, chargeBody, checkLedger, checkStatements } from '../helpers/money.js';
import { parseBrCode } from '../../src/domain/brcode.js';

let env: TestEnv;
beforeEach(async () => {
  env = await testEnv();
});
afterEach(async () => env.close());

const duePix = (amount: number, details: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) =>
  chargeBody(amount, { payment_method: 'pix', payment_details: { due_date: '2026-01-25', ...details }, ...extra });

const advanceDays = async (days: number) => expect((await env.call('POST', '/v1/sandbox/clock/advance', { days })).status).toBe(200);

describe('PIX with a due date', () => {
  it('has a /cobv/ BR Code without an amount, its terms, and expires_at at the end of its last payable day', async () => {
    const r = await env.call('POST', '/v1/charges', duePix(10000, { fine: 200, interest: 100, pay_until_days: 10 }));
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const c = r.body.data;
    expect(c).toMatchObject({ status: 'pending', payment_method: 'pix', boleto: null, paid_amount: null });
    const { fields, crcValid } = parseBrCode(c.pix.qr_code);
    expect(crcValid).toBe(true);
    expect(fields['54']).toBeUndefined();
    expect(parseBrCode(fields['26']!).fields['25']).toBe(`pix.sandbox.mpay.dev/v2/cobv/${c.id.replace(/-/g, '')}`);
    // 2026-01-25 + 10 = Wednesday 2026-02-04: payable through that day
    expect(c.pix.expires_at).toBe('2026-02-05T03:00:00.000Z');
    expect(c.due).toMatchObject({ due_date: '2026-01-25', fine: 200, interest: 100, discount: null, pay_until_days: 10, last_payable_day: '2026-02-04', instructions: null });
  });

  it('is paid the amount due that day, credited at once net of 0.99 % of it', async () => {
    const c = (await env.call('POST', '/v1/charges', duePix(10000, { fine: 200, interest: 100 }))).body.data;
    await advanceDays(21); // Thursday 2026-02-05: 10 days after Monday the 26th
    const wrong = await env.call('POST', `/v1/sandbox/charges/${c.id}/pay`, { amount: 10000 });
    expect(wrong.status).toBe(422);
    expect(wrong.body.details[0].message).toContain('10233 cents');
    const paid = await env.call('POST', `/v1/sandbox/charges/${c.id}/pay`, {});
    expect(paid.body).toMatchObject({ message: 'PIX charge paid', data: { status: 'captured', paid_amount: 10233, captured_amount: 10233, fee_amount: 101, net_amount: 10132 } });
    expect(paid.body.data.due).toMatchObject({ paid_on: '2026-02-05', fine_amount: 200, interest_amount: 33 });
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(10132);
    const entries = (await env.call('GET', `/v1/wallets/${env.merchant.wallet_id}/entries`)).body.data;
    expect(entries).toEqual([expect.objectContaining({ direction: 'credit', amount: 10132, reference_type: 'charge', reference_id: c.id })]);
    await checkLedger(env);
    await checkStatements(env);
  });

  it('with the discount until its day', async () => {
    const c = (await env.call('POST', '/v1/charges', duePix(10000, { discount: { amount: 1000, until: '2026-01-15' } }))).body.data;
    const paid = await env.call('POST', `/v1/sandbox/charges/${c.id}/pay`, { amount: 9000 });
    expect(paid.body.data).toMatchObject({ paid_amount: 9000, fee_amount: 89, net_amount: 8911 });
  });

  it('refunds take back up to what was paid: in part, then the rest', async () => {
    const c = (await env.call('POST', '/v1/charges', duePix(10000, { fine: 200, interest: 100 }))).body.data;
    await advanceDays(21); // 10 days late: 10233 due
    await env.call('POST', `/v1/sandbox/charges/${c.id}/pay`, {});
    const part = await env.call('POST', `/v1/charges/${c.id}/refund`, { amount: 10000 });
    expect(part.status, JSON.stringify(part.body)).toBe(200);
    const more = await env.call('POST', `/v1/charges/${c.id}/refund`, { amount: 234 });
    expect(more.status).toBe(400);
    expect(more.body.details[0]).toMatchObject({ field: 'amount' });
    expect(more.body.details[0].message).toContain('233');
    const rest = await env.call('POST', `/v1/charges/${c.id}/refund`, {});
    expect(rest.status, JSON.stringify(rest.body)).toBe(200);
    expect((await env.call('GET', `/v1/charges/${c.id}`)).body.data).toMatchObject({ status: 'refunded', refunded_amount: 10233, captured_amount: 10233 });
    await checkLedger(env);
    await checkStatements(env);
  });

  it('expires (not fails) after its last payable day, event charge.expired', async () => {
    const c = (await env.call('POST', '/v1/charges', duePix(10000, { pay_until_days: 0 }))).body.data;
    await advanceDays(12);
    const got = (await env.call('GET', `/v1/charges/${c.id}`)).body.data;
    expect(got).toMatchObject({ status: 'expired', failure_code: null });
    const events = await env.rt.deps.db.all<{ type: string }>('SELECT type FROM events WHERE charge_id = ? ORDER BY id', [c.id]);
    expect(events.map((e) => e.type)).toEqual(['charge.pending', 'charge.expired']);
  });

  it.each([
    ['payment_details.fine', { payment_method: 'pix', payment_details: { fine: 200 } }, 'give due_date too'],
    ['payment_details.discount', { payment_method: 'pix', payment_details: { discount: { amount: 1, until: '2026-01-15' } } }, 'give due_date too'],
    ['payment_details.expires_in', { payment_method: 'pix', payment_details: { due_date: '2026-01-25', expires_in: 600 } }, 'cannot be given with due_date'],
    ['payment_details.due_date', { payment_method: 'pix', payment_details: { due_date: '2026-01-14' } }, 'from 2026-01-15'],
  ])('a 400 names %s', async (field, extra, says) => {
    const r = await env.call('POST', '/v1/charges', chargeBody(1000, extra));
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.details.find((d: { field: string }) => d.field === field)?.message).toContain(says);
  });

  it('without due_date a PIX is what it was: /cob/ location, its amount in the code, pix_expired after expires_in', async () => {
    const c = (await env.call('POST', '/v1/charges', chargeBody(10000, { payment_method: 'pix', payment_details: { expires_in: 600 } }))).body.data;
    expect(c.due).toBeNull();
    const { fields } = parseBrCode(c.pix.qr_code);
    expect(fields['54']).toBe('100.00');
    expect(parseBrCode(fields['26']!).fields['25']).toContain('/v2/cob/');
    env.clock.advance(601_000);
    expect((await env.call('GET', `/v1/charges/${c.id}`)).body.data).toMatchObject({ status: 'failed', failure_code: 'pix_expired' });
  });
});
