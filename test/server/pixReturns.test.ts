/**
 * PIX returns: a refund of a PIX charge is a devolução (up to 90 days after the payment, each
 * with its own return id), and a MED is a chargeback of type med (blocked at once, decided
 * within 7 days by the sandbox's text, no fee; lost or accepted, a return id). Both store
 * backends.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { balanceOf, cardCharge, chargeBody, checkLedger, checkStatements } from '../helpers/money.js';
import { AlwaysDue } from '../helpers/due.js';
import { parsePixId } from '../../src/domain/pixReturns.js';

let env: TestEnv;
beforeEach(async () => {
  // the due work before every request: moving the clock makes what came due happen
  env = await testEnv({ due: new AlwaysDue() });
});
afterEach(async () => env.close());

const DAY = 86_400_000;
/** The form of a sandbox return id: D, the sandbox's ISPB, the UTC minute, 11 letters or digits. */
const RETURN_ID = /^D99999999\d{12}[A-Za-z0-9]{11}$/;
const refund = (id: string, body: unknown = {}) => env.call('POST', `/v1/charges/${id}/refund`, body);
const med = (id: string, body: unknown = {}) => env.call('POST', `/v1/sandbox/charges/${id}/med`, body);
const getCb = async (id: string) => (await env.call('GET', `/v1/chargebacks/${id}`)).body.data;
const eventsOf = (type: string) => env.rt.deps.db.all<{ data: string; charge_id: string }>('SELECT data, charge_id FROM events WHERE type = ? ORDER BY created_at, id', [type]);
const countOf = async (table: string) => Number((await env.rt.deps.db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`))!.n);

/** A PIX charge of `amount` cents, paid now (the sandbox pays it at once). */
async function paidPix(amount = 10000, extra: Record<string, unknown> = {}) {
  const c = (await env.call('POST', '/v1/charges', chargeBody(amount, { payment_method: 'pix', ...extra }))).body.data;
  const paid = await env.call('POST', `/v1/sandbox/charges/${c.id}/pay`);
  expect(paid.status, JSON.stringify(paid.body)).toBe(200);
  return paid.body.data as { id: string; captured_at: string; amount: number };
}

/** A boleto due 2026-01-25, paid now. */
async function paidBoleto(amount = 10000) {
  const payer = { street: 'Av. Paulista', number: '1000', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP', zip_code: '01310-100' };
  const body = chargeBody(amount, { payment_method: 'boleto', payment_details: { due_date: '2026-01-25' } }) as { customer: Record<string, unknown> };
  const c = (await env.call('POST', '/v1/charges', { ...body, customer: { ...body.customer, address: payer } })).body.data;
  const paid = await env.call('POST', `/v1/sandbox/charges/${c.id}/pay`);
  expect(paid.status, JSON.stringify(paid.body)).toBe(200);
  return paid.body.data as { id: string };
}

/** The minute of an instant, as a return id made then carries it. */
const minuteOf = (iso: string) => new Date(Math.floor(Date.parse(iso) / 60_000) * 60_000);

describe('a PIX refund is a devolução', () => {
  it('each refund gets its own return id (D, ISPB 99999999, the UTC minute, 11 characters); in the answer, the list and the event', async () => {
    const c = await paidPix(10000);
    const ids: string[] = [];
    for (const amount of [2500, 2500, undefined]) {
      env.clock.advance(61_000);
      const r = await refund(c.id, amount === undefined ? {} : { amount });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    }
    const list = (await env.call('GET', `/v1/charges/${c.id}/refunds`)).body.data as Array<{ id: string; amount: number; return_id: string; created_at: string }>;
    expect(list.map((x) => x.amount).sort()).toEqual([2500, 2500, 5000]);
    for (const x of list) {
      expect(x.return_id).toMatch(RETURN_ID);
      expect(x.return_id).toHaveLength(32);
      // an independently written reading: the minute in the id is the refund's, in UTC
      const minute = minuteOf(x.created_at).toISOString();
      const stamp = minute.slice(0, 4) + minute.slice(5, 7) + minute.slice(8, 10) + minute.slice(11, 13) + minute.slice(14, 16);
      expect(x.return_id.slice(9, 21)).toBe(stamp);
      expect(parsePixId(x.return_id)).toEqual({ kind: 'D', ispb: '99999999', at: minuteOf(x.created_at), sequence: x.return_id.slice(21) });
      ids.push(x.return_id);
    }
    expect(new Set(ids).size).toBe(3);
    const events = (await eventsOf('charge.refunded')).map((e) => JSON.parse(e.data).refund);
    expect(events.map((e) => e.return_id).sort()).toEqual([...ids].sort());
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(0);
    await checkLedger(env);
  });

  it('card and boleto refunds have return_id null; a boleto has no 90-day window', async () => {
    const c = (await cardCharge(env, 10000, 1)).body.data;
    expect((await refund(c.id, { amount: 100 })).status).toBe(200);
    const list = (await env.call('GET', `/v1/charges/${c.id}/refunds`)).body.data;
    expect(list).toEqual([expect.objectContaining({ amount: 100, return_id: null })]);
    expect(JSON.parse((await eventsOf('charge.refunded'))[0]!.data).refund.return_id).toBeNull();
    const b = await paidBoleto(10000);
    env.clock.advance(120 * DAY);
    const r = await refund(b.id, { amount: 100 });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect((await env.call('GET', `/v1/charges/${b.id}/refunds`)).body.data).toEqual([expect.objectContaining({ amount: 100, return_id: null })]);
  });

  it('up to the payment\'s São Paulo day + 90, whole; on day 91: 422 refund_window_closed and nothing changes', async () => {
    // paid 2026-01-15 at 09:00 in São Paulo (12:00 UTC): the last day is 2026-04-15
    const c = await paidPix(10000);
    expect(c.captured_at).toBe('2026-01-15T12:00:00.000Z');
    env.clock.set(new Date('2026-04-16T02:59:59Z')); // 23:59:59 on 15 April in São Paulo: day 90
    const ok = await refund(c.id, { amount: 1000 });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const balance = await balanceOf(env, env.merchant.wallet_id);
    const events = (await eventsOf('charge.refunded')).length;

    env.clock.set(new Date('2026-04-16T03:00:00Z')); // 00:00 on 16 April: day 91
    for (const body of [{ amount: 1000 }, {}]) {
      const late = await refund(c.id, body);
      expect(late.status).toBe(422);
      expect(late.body.error).toBe('refund_window_closed');
      expect(late.body.message).toBe(
        'The charge cannot be refunded: a PIX may be returned up to 90 days after it was paid (on 2026-01-15); the last day was 2026-04-15',
      );
    }
    expect((await env.call('GET', `/v1/charges/${c.id}`)).body.data).toMatchObject({ status: 'captured', refunded_amount: 1000 });
    expect((await env.call('GET', `/v1/charges/${c.id}/refunds`)).body.data).toHaveLength(1);
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(balance);
    expect(await eventsOf('charge.refunded')).toHaveLength(events);
    await checkLedger(env);
  });

  it('a card charge has no such window', async () => {
    const c = (await cardCharge(env, 10000, 1)).body.data;
    env.clock.advance(200 * DAY);
    const r = await refund(c.id, { amount: 100 });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  });
});

describe('a MED is a chargeback of type med', () => {
  it('opened: all that is left blocked at once from the wallet (below zero), evidence and decision within 7 days; lost by silence: a return id, no fee', async () => {
    const c = await paidPix(10000); // net 9901 in the wallet
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(9901);
    const opened = await med(c.id, { reason: 'operational_flaw' });
    expect(opened.status, JSON.stringify(opened.body)).toBe(201);
    const cb = opened.body.data;
    const now = env.clock.now().getTime();
    expect(cb).toMatchObject({
      charge_id: c.id,
      type: 'med',
      reason: 'operational_flaw',
      amount: 10000,
      status: 'open',
      evidence_due_at: new Date(now + 7 * DAY).toISOString(),
      decision_due_at: null,
      fee_amount: 0,
      return_id: null,
      liabilities: [{ submerchant_id: null, wallet_id: env.merchant.wallet_id, amount: 10000, from_receivables: 0, from_wallet: 10000 }],
    });
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(-99);
    expect((await env.call('GET', `/v1/charges/${c.id}`)).body.data).toMatchObject({ status: 'captured', disputed_amount: 10000 });
    expect(JSON.parse((await eventsOf('chargeback.created'))[0]!.data)).toEqual(cb);
    // nothing is left to refund or to dispute
    expect((await refund(c.id)).status).toBe(422);
    const again = await med(c.id);
    expect(again.status).toBe(422);
    expect(again.body.message).toContain('Nothing is left to dispute');
    // listed among the chargebacks, and by type
    expect((await env.call('GET', '/v1/chargebacks?type=med')).body.data.map((x: { id: string }) => x.id)).toEqual([cb.id]);
    expect((await env.call('GET', '/v1/chargebacks?type=chargeback')).body.data).toEqual([]);

    env.clock.advance(7 * DAY - 1);
    expect((await getCb(cb.id)).status).toBe('open');
    env.clock.advance(1);
    const lost = await getCb(cb.id);
    expect(lost).toMatchObject({ status: 'lost', fee_amount: 0, closed_at: cb.evidence_due_at });
    expect(lost.return_id).toMatch(RETURN_ID);
    expect(parsePixId(lost.return_id)?.at).toEqual(minuteOf(env.clock.now().toISOString()));
    // the money went back to the payer when it opened: no fee, nothing more debited
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(-99);
    expect(JSON.parse((await eventsOf('chargeback.lost'))[0]!.data)).toEqual(lost);
    await checkLedger(env);
    await checkStatements(env);
  });

  it('closed by due work well after it came due: the return id carries the minute it closed (closed_at), not the moment the work ran', async () => {
    const c = await paidPix(10000);
    const cb = (await med(c.id)).body.data;
    env.clock.advance(10 * DAY + 37 * 60_000);
    const lost = await getCb(cb.id);
    expect(lost).toMatchObject({ status: 'lost', closed_at: cb.evidence_due_at });
    expect(parsePixId(lost.return_id)?.at).toEqual(minuteOf(lost.closed_at));
    expect(JSON.parse((await eventsOf('chargeback.lost'))[0]!.data).return_id).toBe(lost.return_id);
  });

  it('contested with winning_evidence: decided at the end of the 7 days, won, credited back; return_id stays null', async () => {
    const c = await paidPix(10000);
    const cb = (await med(c.id)).body.data;
    expect(cb.reason).toBe('fraud');
    env.clock.advance(2 * DAY);
    const contested = await env.call('POST', `/v1/chargebacks/${cb.id}/contest`, { text: 'Produto entregue. winning_evidence' });
    expect(contested.status, JSON.stringify(contested.body)).toBe(200);
    expect(contested.body.data).toMatchObject({ status: 'under_review', decision_due_at: cb.evidence_due_at });
    env.clock.advance(5 * DAY - 1);
    expect((await getCb(cb.id)).status).toBe('under_review');
    env.clock.advance(1);
    const won = await getCb(cb.id);
    expect(won).toMatchObject({ status: 'won', return_id: null, fee_amount: 0, closed_at: cb.evidence_due_at });
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(9901);
    expect((await env.call('GET', `/v1/charges/${c.id}`)).body.data.disputed_amount).toBe(0);
    expect(JSON.parse((await eventsOf('chargeback.won'))[0]!.data)).toEqual(won);
    await checkLedger(env);
    await checkStatements(env);
  });

  it('accepted, or decided at once on losing text: a return id each, no fee', async () => {
    const a = await paidPix(5000);
    const b = await paidPix(5000);
    const before = await balanceOf(env, env.merchant.wallet_id);
    const cbA = (await med(a.id)).body.data;
    const cbB = (await med(b.id)).body.data;
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(before - 10000);
    const accepted = await env.call('POST', `/v1/chargebacks/${cbA.id}/accept`);
    expect(accepted.status).toBe(200);
    expect(accepted.body.data).toMatchObject({ status: 'accepted', fee_amount: 0 });
    expect(accepted.body.data.return_id).toMatch(RETURN_ID);
    await env.call('POST', `/v1/chargebacks/${cbB.id}/contest`, { text: 'losing_evidence' });
    const decided = await env.call('POST', `/v1/sandbox/chargebacks/${cbB.id}/decide`);
    expect(decided.body.data).toMatchObject({ status: 'lost', fee_amount: 0 });
    expect(decided.body.data.return_id).toMatch(RETURN_ID);
    expect(decided.body.data.return_id).not.toBe(accepted.body.data.return_id);
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(before - 10000);
    expect(await eventsOf('chargeback.accepted')).toHaveLength(1);
    await checkLedger(env);
  });

  it('a card chargeback is of type chargeback and keeps return_id null, lost or not', async () => {
    const c = (await cardCharge(env, 10000, 1)).body.data;
    const cb = (await env.call('POST', `/v1/sandbox/charges/${c.id}/chargeback`, {})).body.data;
    expect(cb).toMatchObject({ type: 'chargeback', return_id: null });
    const accepted = (await env.call('POST', `/v1/chargebacks/${cb.id}/accept`)).body.data;
    expect(accepted).toMatchObject({ status: 'accepted', type: 'chargeback', return_id: null, fee_amount: 1500 });
  });
});

describe('refusals change nothing', () => {
  it('a MED of a card charge, a boleto or an unpaid PIX; a card chargeback of a PIX; past 80 days; a bad reason', async () => {
    const card = (await cardCharge(env, 10000, 1)).body.data;
    const r1 = await med(card.id);
    expect(r1.status).toBe(422);
    expect(r1.body).toMatchObject({ error: 'business_rule' });
    expect(r1.body.message).toBe(
      'The charge cannot get a MED: a MED disputes a PIX payment; this charge is credit_card, whose cardholder disputes it by a chargeback (POST /v1/sandbox/charges/{id}/chargeback)',
    );

    const boleto = await paidBoleto(10000);
    const rb = await med(boleto.id);
    expect(rb.status).toBe(422);
    expect(rb.body.message).toBe('The charge cannot get a MED: a MED disputes a PIX payment; this charge is boleto');

    const pending = (await env.call('POST', '/v1/charges', chargeBody(1000, { payment_method: 'pix' }))).body.data;
    const r2 = await med(pending.id);
    expect(r2.status).toBe(409);
    expect(r2.body.message).toContain('this charge is pending');

    const pix = await paidPix(10000);
    const r3 = await env.call('POST', `/v1/sandbox/charges/${pix.id}/chargeback`, {});
    expect(r3.status).toBe(422);
    expect(r3.body.message).toContain('this charge is pix, whose payer disputes it by a MED (POST /v1/sandbox/charges/{id}/med)');

    const r4 = await med(pix.id, { reason: 'not_received' });
    expect(r4.status).toBe(400);
    expect(r4.body.details[0]).toMatchObject({ field: 'reason', message: 'must be one of: fraud, operational_flaw' });
    expect((await med(pix.id, { amount: 100 })).status).toBe(400);

    // paid 2026-01-15 (São Paulo): a MED may be opened up to 2026-04-05, whole
    env.clock.set(new Date('2026-04-06T03:00:00Z'));
    const r5 = await med(pix.id);
    expect(r5.status).toBe(422);
    expect(r5.body.message).toBe('The charge cannot get a MED: a MED may be opened up to 80 days after the PIX was paid (on 2026-01-15); the last day was 2026-04-05');

    expect(await countOf('chargebacks')).toBe(0);
    expect((await env.call('GET', `/v1/charges/${pix.id}`)).body.data.disputed_amount).toBe(0);
    expect(await eventsOf('chargeback.created')).toHaveLength(0);

    env.clock.set(new Date('2026-04-06T02:59:59Z'));
    expect((await med(pix.id)).status).toBe(201);
  });
});
