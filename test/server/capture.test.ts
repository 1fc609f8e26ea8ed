/**
 * Authorise, then capture or void: a card charge created with `capture: false` is `authorized`
 * (nothing in any wallet, no receivables, event charge.authorized); POST /v1/charges/{id}/capture
 * { amount? } captures it once, in full or in part, with receivables, fee and split shares on the
 * captured amount (event charge.captured); POST /v1/charges/{id}/void voids it (event
 * charge.voided), and the due work voids an authorisation not captured within 7 days of the
 * merchant's clock. Refunds apply to the captured money only. Both store backends.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { SameInstantDue } from '../helpers/due.js';
import { addSubmerchant, balanceOf, cardCharge, chargeBody, checkLedger, receivablesOf, tokenize } from '../helpers/money.js';

let env: TestEnv;
beforeEach(async () => {
  env = await testEnv();
});
afterEach(async () => env.close());

const DAY = 86_400_000;

async function authorize(amount: number, installments = 1, extra: Record<string, unknown> = {}, number?: string) {
  return cardCharge(env, amount, installments, { capture: false, ...extra }, number);
}
const capture = (id: string, body?: unknown, headers?: Record<string, string>) => env.call('POST', `/v1/charges/${id}/capture`, body, headers);
const voidIt = (id: string, headers?: Record<string, string>) => env.call('POST', `/v1/charges/${id}/void`, undefined, headers);
const eventsOf = async (id: string) =>
  (await env.rt.deps.db.all<{ type: string }>('SELECT type FROM events WHERE charge_id = ? ORDER BY id', [id])).map((e) => e.type);
const entries = async () => (await env.rt.deps.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM wallet_entries'))!.n;

/**
 * A fresh env whose due work voids `batch` authorisations per request, with `n` authorisations
 * made at one instant and the clock moved to the instant they expire. Their ids, oldest first.
 */
async function expiredAuthorizations(n: number, batch: number): Promise<string[]> {
  await env.close();
  env = await testEnv({ due: new SameInstantDue(batch) });
  const token = await tokenize(env);
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = await env.call('POST', '/v1/charges', chargeBody(1000 + i, { payment_method: 'credit_card', capture: false, payment_details: { token } }));
    ids.push(r.body.data.id);
  }
  env.clock.advance(7 * DAY);
  return ids;
}

describe('authorise: capture false', () => {
  it('an approved card is authorized: no fee yet, no receivables, nothing in any wallet; events charge.pending then charge.authorized', async () => {
    const r = await authorize(10000, 3);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.message).toMatch(/authorized/i);
    const c = r.body.data;
    expect(c).toMatchObject({
      status: 'authorized',
      amount: 10000,
      installments: 3,
      authorized_at: env.clock.now().toISOString(),
      captured_amount: null,
      captured_at: null,
      fee_amount: null,
      net_amount: null,
      voided_at: null,
      void_reason: null,
      refunded_amount: 0,
    });
    expect(await receivablesOf(env, c.id)).toEqual([]);
    expect(await entries()).toBe(0);
    expect(await eventsOf(c.id)).toEqual(['charge.pending', 'charge.authorized']);
    expect((await env.call('GET', `/v1/charges/${c.id}`)).body.data).toEqual(c);
    expect((await env.call('GET', '/v1/charges?status=authorized')).body.pagination.total).toBe(1);
  });

  it('a declining card fails at once, as a captured charge would', async () => {
    const r = await authorize(5000, 1, {}, '4000000000000002');
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ status: 'failed', failure_code: 'card_declined', authorized_at: null });
    expect(await eventsOf(r.body.data.id)).toEqual(['charge.pending', 'charge.failed']);
  });

  it('capture true (or left out) captures at once, with captured_amount = amount', async () => {
    const r = await cardCharge(env, 10000, 1, { capture: true });
    expect(r.body.data).toMatchObject({ status: 'captured', captured_amount: 10000, authorized_at: null });
    const pix = await env.call('POST', '/v1/charges', chargeBody(2000, { payment_method: 'pix', capture: true }));
    expect(pix.status, JSON.stringify(pix.body)).toBe(201);
    expect(pix.body.data).toMatchObject({ status: 'pending', captured_amount: null });
    const paid = await env.call('POST', `/v1/sandbox/charges/${pix.body.data.id}/pay`);
    expect(paid.body.data).toMatchObject({ status: 'captured', captured_amount: 2000 });
  });

  it('PIX cannot be authorised only: a 400 naming capture, and nothing is written', async () => {
    const r = await env.call('POST', '/v1/charges', chargeBody(2000, { payment_method: 'pix', capture: false }));
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('validation_error');
    expect(r.body.details.map((d: { field: string }) => d.field)).toEqual(['capture']);
    expect(r.body.message).toMatch(/credit_card/);
    const bad = await cardCharge(env, 1000, 1, { capture: 'no' });
    expect(bad.status).toBe(400);
    expect(bad.body.details[0].field).toBe('capture');
    expect((await env.rt.deps.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM charges'))!.n).toBe(0);
  });
});

describe('capture', () => {
  it('a JSON null body is refused like any other non-object (400 validation_error), and nothing is captured', async () => {
    const c = (await authorize(10000)).body.data;
    const r = await env.call('POST', `/v1/charges/${c.id}/capture`, null);
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.error).toBe('validation_error');
    expect((await env.call('GET', `/v1/charges/${c.id}`)).body.data.status).toBe('authorized');
    const pix = await env.call('POST', '/v1/charges', chargeBody(5000, { payment_method: 'pix' }));
    expect(pix.status, JSON.stringify(pix.body)).toBe(201);
    const paid = await env.call('POST', `/v1/sandbox/charges/${pix.body.data.id}/pay`, null);
    expect(paid.status, JSON.stringify(paid.body)).toBe(400);
    expect((await env.call('GET', `/v1/charges/${pix.body.data.id}`)).body.data.status).toBe('pending');
  });

  it('all of it by default, days later: receivables, fee and settlement dates from the capture; event charge.captured', async () => {
    const c = (await authorize(10000, 3)).body.data;
    await env.call('POST', '/v1/sandbox/clock/advance', { days: 4 }); // Monday 2026-01-19
    const r = await capture(c.id);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.message).toBe('Charge captured');
    const at = (await env.call('GET', '/v1/merchant')).body.data.clock;
    expect(r.body.data).toMatchObject({ status: 'captured', captured_amount: 10000, fee_amount: 349, net_amount: 9651, captured_at: at, authorized_at: c.authorized_at });
    // D+30/60/90 of Monday 19 Jan: Wed 18 Feb, Fri 20 Mar, Sun 19 Apr → Mon 20 Apr
    expect((await receivablesOf(env, c.id)).map((x) => [x.gross_amount, x.fee_amount, x.net_amount, x.settlement_date.slice(0, 10)])).toEqual([
      [3334, 117, 3217, '2026-02-18'],
      [3333, 116, 3217, '2026-03-20'],
      [3333, 116, 3217, '2026-04-20'],
    ]);
    expect(await eventsOf(c.id)).toEqual(['charge.pending', 'charge.authorized', 'charge.captured']);
    const ev = await env.rt.deps.db.get<{ data: string }>("SELECT data FROM events WHERE charge_id = ? AND type = 'charge.captured'", [c.id]);
    expect(JSON.parse(ev!.data)).toEqual(r.body.data);
    expect((await env.call('GET', `/v1/charges/${c.id}`)).body.data).toEqual(r.body.data);
  });

  it('in part, with a split: shares scale in proportion (left-over cents to the remainder party), fee and receivables on the captured amount', async () => {
    const sub = await addSubmerchant(env);
    const c = (await authorize(10000, 2, { split_rules: [{ submerchant_id: sub.id, percentage: 60 }, { percentage: 40 }] })).body.data;
    const r = await capture(c.id, { amount: 7501 });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.message).toBe('Charge captured: 7501 of 10000 cents; the rest of the authorisation is released');
    // shares ⌊6000 × 7501 / 10000⌋ = 4500 (+1 left over, the first rule) and ⌊4000 × 0.7501⌋ = 3000;
    // fee 3.49 % of 7501 = 261.78 → 262: ⌊262 × 4501 / 7501⌋ = 157 (+1) and ⌊262 × 3000 / 7501⌋ = 104
    expect(r.body.data).toMatchObject({ status: 'captured', amount: 10000, captured_amount: 7501, fee_amount: 262, net_amount: 7239 });
    expect(r.body.data.split_rules).toEqual([
      { submerchant_id: sub.id, amount: 4501, percentage: 60, charge_processing_fee: true, charge_remainder_fee: true, liable: true },
      { submerchant_id: null, amount: 3000, percentage: 40, charge_processing_fee: true, charge_remainder_fee: false, liable: true },
    ]);
    const rs = (await receivablesOf(env, c.id)).map((x) => [x.submerchant_id, x.installment, x.gross_amount, x.fee_amount, x.net_amount]);
    expect(rs.sort((a, b) => String(a[0]).localeCompare(String(b[0])) || Number(a[1]) - Number(b[1]))).toEqual(
      [
        [sub.id, 1, 2251, 79, 2172],
        [sub.id, 2, 2250, 79, 2171],
        [null, 1, 1500, 52, 1448],
        [null, 2, 1500, 52, 1448],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0])) || Number(a[1]) - Number(b[1])),
    );
    // the sub's receivables settle into its wallet: 2172 at D+30 (a Saturday → Carnival → Wed 18 Feb)
    await env.call('POST', '/v1/sandbox/clock/advance', { days: 35 });
    expect(await balanceOf(env, sub.wallet_id)).toBe(2172);
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(1448);
    await checkLedger(env);
  });

  it('a fixed-amount split scales the same way, the remainder party named by charge_remainder_fee', async () => {
    const sub = await addSubmerchant(env);
    const c = (
      await authorize(10001, 1, { split_rules: [{ submerchant_id: sub.id, amount: 3334 }, { amount: 6667, charge_remainder_fee: true }] })
    ).body.data;
    const r = await capture(c.id, { amount: 5000 });
    // ⌊3334 × 5000 / 10001⌋ = 1666, ⌊6667 × 5000 / 10001⌋ = 3333; the cent left over to the second rule
    expect(r.body.data.split_rules.map((x: { amount: number }) => x.amount)).toEqual([1666, 3334]);
    expect(r.body.data).toMatchObject({ captured_amount: 5000, fee_amount: 150 }); // 2.99 % of 5000 = 149.5 → 150
  });

  it.each([
    [0, 'must be'],
    [-1, 'must be'],
    [10.5, 'must be'],
    ['5000', 'must be'],
    [10001, 'at most 10000'],
  ])('amount %s is a 400 naming amount, and nothing changes', async (amount, says) => {
    const c = (await authorize(10000)).body.data;
    const r = await capture(c.id, { amount });
    expect(r.status).toBe(400);
    expect(r.body.details[0].field).toBe('amount');
    expect(r.body.message).toContain(says);
    expect((await env.call('GET', `/v1/charges/${c.id}`)).body.data).toEqual(c);
    expect(await eventsOf(c.id)).toEqual(['charge.pending', 'charge.authorized']);
  });

  it('an amount beyond the safe integers is one detail saying it is too large, on capture, refund and chargeback', async () => {
    const c = (await authorize(10000)).body.data;
    const huge = 1e20; // 99999999999999999999 as JSON reads it
    const cap = await capture(c.id, { amount: huge });
    expect(cap.status).toBe(400);
    expect(cap.body.details).toEqual([{ field: 'amount', message: 'must be at most 9007199254740991 cents' }]);
    expect((await capture(c.id)).status).toBe(200);
    for (const path of [`/v1/charges/${c.id}/refund`, `/v1/sandbox/charges/${c.id}/chargeback`]) {
      const r = await env.call('POST', path, { amount: huge });
      expect(r.status, path).toBe(400);
      expect(r.body.details, path).toEqual([{ field: 'amount', message: 'must be at most 9007199254740991 cents' }]);
    }
  });

  it('an amount too small for the installments after the fee is a 400 naming amount; unknown body fields are 400s', async () => {
    const c = (await authorize(10000, 12)).body.data;
    const r = await capture(c.id, { amount: 11 });
    expect(r.status).toBe(400);
    expect(r.body.details[0].field).toBe('amount');
    expect(r.body.message).toMatch(/installment/);
    const u = await capture(c.id, { amount: 5000, installments: 2 });
    expect(u.status).toBe(400);
    expect((await env.call('GET', `/v1/charges/${c.id}`)).body.data.status).toBe('authorized');
    expect((await capture(c.id, { amount: 120 })).body.data).toMatchObject({ status: 'captured', captured_amount: 120 });
  });

  it('one capture per charge; only an authorized charge can be captured (409 invalid_state); another merchant’s is a 404', async () => {
    const c = (await authorize(10000)).body.data;
    expect((await capture(c.id, { amount: 100 })).status).toBe(200);
    const again = await capture(c.id, { amount: 100 });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('invalid_state');
    expect(again.body.message).toContain('captured');
    const direct = (await cardCharge(env, 1000)).body.data;
    expect((await capture(direct.id)).body.error).toBe('invalid_state');
    const pix = (await env.call('POST', '/v1/charges', chargeBody(2000, { payment_method: 'pix' }))).body.data;
    const p = await capture(pix.id);
    expect(p.status).toBe(409);
    expect(p.body.message).toContain('pending');
    const failed = (await authorize(1000, 1, {}, '4000000000000002')).body.data;
    expect((await capture(failed.id)).status).toBe(409);
    const other = await env.newMerchant('Outra');
    const theirs = await env.call('POST', `/v1/charges/${c.id}/capture`, {}, { authorization: env.auth(other) });
    expect(theirs.status).toBe(404);
    expect((await capture('0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f')).status).toBe(404);
    await checkLedger(env);
  });

  it('concurrent captures and a void of one authorisation: exactly one of them happens, the others are 409 invalid_state', async () => {
    const c = (await authorize(10000, 2)).body.data;
    const rs = await Promise.all([capture(c.id, { amount: 4000 }), capture(c.id), voidIt(c.id), capture(c.id, { amount: 9000 })]);
    const ok = rs.filter((r) => r.status === 200);
    expect(ok, JSON.stringify(rs.map((r) => r.body))).toHaveLength(1);
    for (const r of rs.filter((x) => x.status !== 200)) expect([r.status, r.body.error]).toEqual([409, 'invalid_state']);
    const after = (await env.call('GET', `/v1/charges/${c.id}`)).body.data;
    expect(after).toEqual(ok[0]!.body.data);
    const rec = await receivablesOf(env, c.id);
    expect(rec.reduce((a, x) => a + Number(x.gross_amount), 0)).toBe(after.status === 'captured' ? after.captured_amount : 0);
    expect((await eventsOf(c.id)).filter((t) => t === 'charge.captured' || t === 'charge.voided')).toHaveLength(1);
    await checkLedger(env);
  });

  it('is idempotent under an Idempotency-Key: the same key replays the answer (one capture), another body under it is a 409', async () => {
    const c = (await authorize(10000)).body.data;
    const first = await capture(c.id, { amount: 6000 }, { 'idempotency-key': 'cap-1' });
    expect(first.status).toBe(200);
    const replay = await capture(c.id, { amount: 6000 }, { 'idempotency-key': 'cap-1' });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    const other = await capture(c.id, { amount: 7000 }, { 'idempotency-key': 'cap-1' });
    expect(other.status).toBe(409);
    expect(other.body.error).toBe('idempotency_conflict');
    expect(await eventsOf(c.id)).toEqual(['charge.pending', 'charge.authorized', 'charge.captured']);
    expect(await receivablesOf(env, c.id)).toHaveLength(1);
  });
});

describe('void', () => {
  it('an authorized charge becomes voided (void_reason requested, voided_at); event charge.voided; then it can be neither captured nor voided', async () => {
    const c = (await authorize(10000, 2)).body.data;
    env.clock.advance(3_600_000);
    const r = await voidIt(c.id);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.message).toBe('Charge voided');
    expect(r.body.data).toMatchObject({ status: 'voided', void_reason: 'requested', voided_at: env.clock.now().toISOString(), captured_amount: null, fee_amount: null });
    expect(await eventsOf(c.id)).toEqual(['charge.pending', 'charge.authorized', 'charge.voided']);
    const ev = await env.rt.deps.db.get<{ data: string }>("SELECT data FROM events WHERE charge_id = ? AND type = 'charge.voided'", [c.id]);
    expect(JSON.parse(ev!.data)).toEqual(r.body.data);
    for (const res of [await voidIt(c.id), await capture(c.id), await env.call('POST', `/v1/charges/${c.id}/refund`)]) {
      expect(res.status).toBe(409);
      expect(res.body.error).toBe('invalid_state');
    }
    expect(await receivablesOf(env, c.id)).toEqual([]);
    expect(await entries()).toBe(0);
    expect((await env.call('GET', '/v1/charges?status=voided')).body.pagination.total).toBe(1);
  });

  it('a captured, pending or failed charge cannot be voided (409 invalid_state naming its status); a body is a 400; idempotent under a key', async () => {
    const captured = (await cardCharge(env, 1000)).body.data;
    const r = await voidIt(captured.id);
    expect(r.status).toBe(409);
    expect(r.body.message).toContain("'captured'");
    const pix = (await env.call('POST', '/v1/charges', chargeBody(2000, { payment_method: 'pix' }))).body.data;
    expect((await voidIt(pix.id)).status).toBe(409);
    const c = (await authorize(1000)).body.data;
    expect((await env.call('POST', `/v1/charges/${c.id}/void`, { reason: 'x' })).status).toBe(400);
    const first = await voidIt(c.id, { 'idempotency-key': 'void-1' });
    const replay = await voidIt(c.id, { 'idempotency-key': 'void-1' });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect(await eventsOf(c.id)).toEqual(['charge.pending', 'charge.authorized', 'charge.voided']);
  });
});

describe('an authorisation not captured within 7 days of the merchant clock is voided by the due work', () => {
  it('still capturable just before 7 days; voided (expired) at 7 days, voided_at when it expired', async () => {
    const c = (await authorize(10000)).body.data;
    const kept = (await authorize(5000)).body.data;
    await env.call('POST', '/v1/sandbox/clock/advance', { days: 6 });
    expect((await env.call('GET', `/v1/charges/${c.id}`)).body.data.status).toBe('authorized');
    expect((await capture(kept.id)).body.data.status).toBe('captured');
    env.clock.advance(DAY - 1000);
    expect((await env.call('GET', `/v1/charges/${c.id}`)).body.data.status).toBe('authorized');
    env.clock.advance(1000);
    const got = (await env.call('GET', `/v1/charges/${c.id}`)).body.data;
    expect(got).toMatchObject({ status: 'voided', void_reason: 'expired', voided_at: new Date(Date.parse(c.authorized_at) + 7 * DAY).toISOString() });
    expect(await eventsOf(c.id)).toEqual(['charge.pending', 'charge.authorized', 'charge.voided']);
    expect((await capture(c.id)).status).toBe(409);
    expect((await env.call('GET', `/v1/charges/${kept.id}`)).body.data.status).toBe('captured');
  });

  it('in batches of the due policy: each request voids at most one batch', async () => {
    await expiredAuthorizations(5, 2);
    const voided = async () => (await env.rt.deps.db.get<{ n: number }>("SELECT COUNT(*) AS n FROM charges WHERE status = 'voided'"))!.n;
    await env.call('GET', '/v1/merchant');
    expect(Number(await voided())).toBe(2);
    await env.call('GET', '/v1/merchant');
    expect(Number(await voided())).toBe(4);
    await env.call('GET', '/v1/merchant');
    expect(Number(await voided())).toBe(5);
  });
});

describe('an authorisation past its 7 days is neither captured nor voided, even before the due work reaches it', () => {
  it('capture and void of an expired authorisation the due work has not voided yet: 409 invalid_state, and it is voided (expired)', async () => {
    const ids = await expiredAuthorizations(4, 1); // one authorisation voided per request
    const status = async (id: string) => (await env.rt.deps.db.get<{ status: string; void_reason: string | null }>('SELECT status, void_reason FROM charges WHERE id = ?', [id]))!;
    const cap = await capture(ids[3]!);
    expect(cap.status, JSON.stringify(cap.body)).toBe(409);
    expect(cap.body.error).toBe('invalid_state');
    expect(cap.body.message).toMatch(/expired/);
    expect(await status(ids[3]!)).toEqual({ status: 'voided', void_reason: 'expired' });
    const v = await voidIt(ids[2]!, { 'idempotency-key': 'late-void' }); // under a key too: the void is kept with the refusal
    expect(v.status, JSON.stringify(v.body)).toBe(409);
    expect(v.body.message).toMatch(/expired/);
    expect(await status(ids[2]!)).toEqual({ status: 'voided', void_reason: 'expired' });
    expect(await receivablesOf(env, ids[3]!)).toEqual([]);
    expect(await eventsOf(ids[3]!)).toEqual(['charge.pending', 'charge.authorized', 'charge.voided']);
    const ev = await env.rt.deps.db.get<{ data: string }>("SELECT data FROM events WHERE charge_id = ? AND type = 'charge.voided'", [ids[3]!]);
    expect(JSON.parse(ev!.data)).toMatchObject({ status: 'voided', void_reason: 'expired', voided_at: new Date(env.clock.now().getTime()).toISOString() });
  });
});

describe('refunds apply to the captured money only', () => {
  it('after a partial capture: what is left is captured_amount − refunded_amount, shares of the captured total', async () => {
    const sub = await addSubmerchant(env);
    const c = (await authorize(10000, 2, { split_rules: [{ submerchant_id: sub.id, percentage: 60 }, { percentage: 40 }] })).body.data;
    await capture(c.id, { amount: 7501 }); // nets: sub 4343 (2172 + 2171), merchant 2896 (1448 × 2)
    const over = await env.call('POST', `/v1/charges/${c.id}/refund`, { amount: 7502 });
    expect(over.status).toBe(400);
    expect(over.body.details[0].field).toBe('amount');
    expect(over.body.message).toContain('7501');
    const r1 = await env.call('POST', `/v1/charges/${c.id}/refund`, { amount: 3000 });
    expect(r1.status, JSON.stringify(r1.body)).toBe(200);
    expect(r1.body.message).toBe('Charge partly refunded: 3000 of 7501 cents');
    expect(r1.body.data).toMatchObject({ status: 'captured', refunded_amount: 3000, captured_amount: 7501 });
    // ⌊4343 × 3000 / 7501⌋ = 1736 and ⌊2896 × 3000 / 7501⌋ = 1158, from each party's installment 2
    const rs = await receivablesOf(env, c.id);
    const net = (who: string | null, n: number) => rs.find((x) => x.submerchant_id === who && x.installment === n)!.net_amount;
    expect([net(sub.id, 1), net(sub.id, 2), net(null, 1), net(null, 2)]).toEqual([2172, 2171 - 1736, 1448, 1448 - 1158]);
    const r2 = await env.call('POST', `/v1/charges/${c.id}/refund`);
    expect(r2.body.data).toMatchObject({ status: 'refunded', refunded_amount: 7501 });
    expect((await receivablesOf(env, c.id)).every((x) => x.status === 'cancelled')).toBe(true);
    await checkLedger(env);
  });

  it('an authorized charge cannot be refunded (409): nothing was taken yet', async () => {
    const c = (await authorize(10000)).body.data;
    const r = await env.call('POST', `/v1/charges/${c.id}/refund`);
    expect(r.status).toBe(409);
    expect(r.body.error).toBe('invalid_state');
  });
});

describe('the contract describes it', () => {
  it('OpenAPI: capture false on a card charge, the capture and void operations, the record’s new fields', async () => {
    const doc = await (await env.rt.app.request('/openapi.json')).json();
    const create = JSON.stringify(doc.paths['/v1/charges'].post.requestBody);
    expect(create).toContain('"capture"');
    const cap = doc.paths['/v1/charges/{id}/capture'].post;
    expect(cap.operationId).toBe('charges.capture');
    const amount = JSON.stringify(cap.requestBody.content['application/json'].schema);
    expect(amount).toMatch(/"amount":\{[^}]*"minimum":1/);
    expect(doc.paths['/v1/charges/{id}/void'].post.operationId).toBe('charges.void');
    const record = JSON.stringify(doc);
    for (const f of ['captured_amount', 'authorized_at', 'voided_at', 'void_reason']) expect(record).toContain(`"${f}"`);
    expect(record).toContain('"authorized"');
    expect(record).toContain('"voided"');
  });

  it('webhook endpoints subscribe to charge.authorized and charge.voided', async () => {
    const r = await env.call('POST', '/v1/postbacks/endpoints', { url: 'https://shop.example.com/hooks', events: ['charge.authorized', 'charge.voided'] });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.data.events).toEqual(['charge.authorized', 'charge.voided']);
  });
});
