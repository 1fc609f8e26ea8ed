/**
 * Chargebacks: the resource and its lifecycle (open → accepted | under_review | lost;
 * under_review → won | lost), the money (the liable parties' parts from their pending
 * receivables of the charge, then their wallets, below zero if need be; won credited back; the
 * fee when lost or accepted), the evidence (text and the merchant's uploads, attached), the
 * sandbox's magic cards and text, and refusals. Both store backends.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { addSubmerchant, balanceOf, cardCharge, chargeBody, checkLedger, checkStatements, receivablesOf, tokenize } from '../helpers/money.js';
import { realPdf } from '../helpers/files.js';
import { AlwaysDue } from '../helpers/due.js';
import type { DuePolicy } from '../../src/server/pipeline/due.js';
import { setMerchantPricing } from '../../src/server/services/pricing.js';

let env: TestEnv;
beforeEach(async () => {
  // the due work before every request: moving the clock by a millisecond makes what came due happen
  env = await testEnv({ due: new AlwaysDue() });
});
afterEach(async () => env.close());

const DAY = 86_400_000;
const dispute = (chargeId: string, body: unknown = {}) => env.call('POST', `/v1/sandbox/charges/${chargeId}/chargeback`, body);
const get = async (id: string) => (await env.call('GET', `/v1/chargebacks/${id}`)).body.data;
const entries = async (walletId: string, q = '') => (await env.call('GET', `/v1/wallets/${walletId}/entries?per_page=100${q}`)).body.data as Array<Record<string, any>>;
const eventsOf = (type: string) => env.rt.deps.db.all<{ data: string; charge_id: string; created_at: string }>('SELECT data, charge_id, created_at FROM events WHERE type = ? ORDER BY created_at, id', [type]);

async function uploadEvidence(bytes = realPdf(), name = 'entrega.pdf', auth = env.auth()) {
  const fd = new FormData();
  fd.append('file', new Blob([new Uint8Array(bytes)], { type: 'application/pdf' }), name);
  const res = await env.rt.app.request('/v1/files', { method: 'POST', body: fd, headers: { authorization: auth } });
  return { status: res.status, body: (await res.json()) as any };
}

describe('a chargeback contested and won', () => {
  it('R$ 100,00 in 3×, R$ 50,00 disputed: taken from the last installments; contested with evidence; won: credited back', async () => {
    const c = (await cardCharge(env, 10000, 3)).body.data; // nets 3217 × 3
    const opened = await dispute(c.id, { amount: 5000, reason: 'not_received' });
    expect(opened.status, JSON.stringify(opened.body)).toBe(201);
    const cb = opened.body.data;
    const now = env.clock.now().getTime();
    expect(cb).toMatchObject({
      charge_id: c.id,
      merchant_id: env.merchant.merchant_id,
      amount: 5000,
      currency: 'BRL',
      reason: 'not_received',
      status: 'open',
      evidence: null,
      decision_due_at: null,
      fee_amount: 0,
      closed_at: null,
      evidence_due_at: new Date(now + 10 * DAY).toISOString(),
      liabilities: [{ submerchant_id: null, wallet_id: env.merchant.wallet_id, amount: 5000, from_receivables: 5000, from_wallet: 0 }],
    });
    // installment 3 (3217) cancelled, 1783 of installment 2; the wallet is not touched
    expect((await receivablesOf(env, c.id)).map((r) => [r.status, r.gross_amount, r.net_amount])).toEqual([
      ['pending', 3334, 3217],
      ['pending', 3333 - 1783, 3217 - 1783],
      ['cancelled', 3333, 3217],
    ]);
    expect(await entries(env.merchant.wallet_id)).toEqual([]);
    expect((await env.call('GET', `/v1/charges/${c.id}`)).body.data).toMatchObject({ status: 'captured', disputed_amount: 5000, refunded_amount: 0 });
    const created = await eventsOf('chargeback.created');
    expect(created).toHaveLength(1);
    expect(created[0]!.charge_id).toBe(c.id);
    expect(JSON.parse(created[0]!.data)).toEqual(cb);

    // what is left to dispute, and to refund, leaves the disputed amount out
    const over = await dispute(c.id, { amount: 5001 });
    expect(over.status).toBe(400);
    expect(over.body.details[0].field).toBe('amount');
    expect(over.body.message).toContain('5000');
    const tooMuch = await env.call('POST', `/v1/charges/${c.id}/refund`, { amount: 5001 });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.message).toMatch(/5000 .*disputed/);

    env.clock.advance(2 * DAY);
    const file = await uploadEvidence();
    expect(file.status, JSON.stringify(file.body)).toBe(201);
    const contested = await env.call('POST', `/v1/chargebacks/${cb.id}/contest`, { text: 'Entregue em 12/03, assinado pelo comprador. winning_evidence', file_ids: [file.body.data.key] });
    expect(contested.status, JSON.stringify(contested.body)).toBe(200);
    const at = env.clock.now().getTime();
    expect(contested.body.data).toMatchObject({
      status: 'under_review',
      evidence: { text: 'Entregue em 12/03, assinado pelo comprador. winning_evidence', file_ids: [file.body.data.key], submitted_at: new Date(at).toISOString() },
      decision_due_at: new Date(at + 3 * DAY).toISOString(),
    });
    // the upload is attached: the retention no longer removes it
    const row = await env.rt.deps.db.get<{ attached_at: string | null; submerchant_id: string | null }>('SELECT attached_at, submerchant_id FROM files WHERE key = ?', [file.body.data.key]);
    expect(row).toEqual({ attached_at: new Date(at).toISOString(), submerchant_id: null });
    expect(await eventsOf('chargeback.under_review')).toHaveLength(1);
    const again = await env.call('POST', `/v1/chargebacks/${cb.id}/contest`, { text: 'more' });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('invalid_state');
    expect((await env.call('POST', `/v1/chargebacks/${cb.id}/accept`)).status).toBe(409);

    env.clock.advance(3 * DAY - 1);
    expect((await get(cb.id)).status).toBe('under_review');
    env.clock.advance(1);
    const won = await get(cb.id);
    expect(won).toMatchObject({ status: 'won', closed_at: new Date(at + 3 * DAY).toISOString(), fee_amount: 0 });
    expect(await entries(env.merchant.wallet_id)).toEqual([
      expect.objectContaining({ direction: 'credit', amount: 5000, balance_after: 5000, reference_type: 'chargeback', reference_id: cb.id }),
    ]);
    expect((await env.call('GET', `/v1/charges/${c.id}`)).body.data.disputed_amount).toBe(0);
    expect(JSON.parse((await eventsOf('chargeback.won'))[0]!.data)).toEqual(won);
    // a won chargeback's money is refundable again: the refund of the rest takes it back from the wallet
    const r = await env.call('POST', `/v1/charges/${c.id}/refund`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toMatchObject({ status: 'refunded', refunded_amount: 10000 });
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(0);
    await checkLedger(env);
    await checkStatements(env);
  });
});

describe('a chargeback lost by silence takes the wallet below zero', () => {
  it('R$ 100,00 in 1× disputed whole: 9701 from the receivable, 299 from the wallet (−299), then the fee (−1799)', async () => {
    const other = (await cardCharge(env, 20000, 2)).body.data; // settles later: pays the debt
    const c = (await cardCharge(env, 10000, 1)).body.data;
    const cb = (await dispute(c.id)).body.data;
    expect(cb).toMatchObject({ amount: 10000, reason: 'fraud', liabilities: [{ amount: 10000, from_receivables: 9701, from_wallet: 299 }] });
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(-299);
    expect((await receivablesOf(env, c.id)).map((r) => r.status)).toEqual(['cancelled']);
    // nothing is left of the charge to dispute or to refund
    expect((await dispute(c.id)).body.error).toBe('business_rule');
    expect((await env.call('POST', `/v1/charges/${c.id}/refund`)).body.error).toBe('business_rule');

    // while the balance is negative: no withdrawal, no anticipation (422 negative_balance), nothing written
    const w = await env.call('POST', '/v1/withdrawals', {
      type: 'pix', wallet_id: env.merchant.wallet_id, amount: 100, pix_key: 'ana@example.com', pix_key_type: 'email',
      holder_document_type: 'cpf', holder_document: '52998224725', idempotency_key: 'neg-1',
    });
    expect(w.status).toBe(422);
    expect(w.body.error).toBe('negative_balance');
    expect(w.body.details[0].field).toBe('wallet_id');
    const a = await env.call('POST', '/v1/anticipations', { amount: 5000 });
    expect(a.status).toBe(422);
    expect(a.body.error).toBe('negative_balance');
    expect((await env.call('GET', '/v1/withdrawals')).body.pagination.total).toBe(0);
    expect((await env.call('GET', '/v1/anticipations')).body.pagination.total).toBe(0);

    env.clock.advance(10 * DAY);
    const lost = await get(cb.id);
    expect(lost).toMatchObject({ status: 'lost', fee_amount: 1500, closed_at: cb.evidence_due_at });
    expect((await env.call('GET', `/v1/charges/${c.id}`)).body.data.disputed_amount).toBe(10000);
    expect((await entries(env.merchant.wallet_id)).reverse()).toEqual([
      expect.objectContaining({ direction: 'debit', amount: 299, balance_after: -299, reference_type: 'chargeback', reference_id: cb.id }),
      expect.objectContaining({ direction: 'debit', amount: 1500, balance_after: -1799, reference_type: 'chargeback_fee', reference_id: cb.id }),
    ]);
    expect(JSON.parse((await eventsOf('chargeback.lost'))[0]!.data)).toEqual(lost);
    expect((await env.call('POST', `/v1/chargebacks/${cb.id}/contest`, { text: 'late' })).status).toBe(409);

    // the other charge's first installment settles: its credit pays the debt first, the balance rises from −1799
    await env.call('POST', '/v1/sandbox/clock/advance', { days: 30 });
    const first = (await receivablesOf(env, other.id))[0]!;
    expect(first.status).toBe('paid');
    const settled = (await entries(env.merchant.wallet_id, '&reference_type=receivable'))[0]!;
    expect(settled).toMatchObject({ direction: 'credit', amount: first.net_amount, balance_after: first.net_amount - 1799 });
    const ok = await env.call('POST', '/v1/withdrawals', {
      type: 'pix', wallet_id: env.merchant.wallet_id, amount: 100, pix_key: 'ana@example.com', pix_key_type: 'email',
      holder_document_type: 'cpf', holder_document: '52998224725', idempotency_key: 'neg-2',
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    await checkLedger(env);
    await checkStatements(env);
  });
});

describe('the chargeback fee is the one its charge recorded', () => {
  const reprice = (fee: number) => setMerchantPricing(env.rt.deps.db, env.rt.deps.pricing, env.merchant.merchant_id, { chargeback_fee_amount: fee }, env.clock.now());

  it('priced at R$ 20,00 when charged, R$ 5,00 when accepted: R$ 20,00 is debited', async () => {
    await reprice(2000);
    const c = (await cardCharge(env, 10000, 1)).body.data;
    expect(c.pricing.chargeback_fee_amount).toBe(2000);
    await reprice(500);
    const cb = (await dispute(c.id, { amount: 4000, reason: 'duplicate' })).body.data;
    const res = await env.call('POST', `/v1/chargebacks/${cb.id}/accept`);
    expect(res.body.data).toMatchObject({ status: 'accepted', fee_amount: 2000 });
    expect((await entries(env.merchant.wallet_id, '&reference_type=chargeback_fee')).map((e) => [e.direction, e.amount])).toEqual([['debit', 2000]]);
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(-2000);
    // a charge made after the change takes the new fee
    const later = (await cardCharge(env, 10000, 1)).body.data;
    const lost = (await dispute(later.id, { amount: 1000, reason: 'fraud' })).body.data;
    expect((await env.call('POST', `/v1/chargebacks/${lost.id}/accept`)).body.data.fee_amount).toBe(500);
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(-2500);
    await checkLedger(env);
    await checkStatements(env);
  });

  it('a fee of 0 debits nothing: no chargeback_fee entry', async () => {
    await reprice(0);
    const c = (await cardCharge(env, 10000, 1)).body.data;
    const cb = (await dispute(c.id, { amount: 4000, reason: 'duplicate' })).body.data;
    expect((await env.call('POST', `/v1/chargebacks/${cb.id}/accept`)).body.data).toMatchObject({ status: 'accepted', fee_amount: 0 });
    expect(await entries(env.merchant.wallet_id, '&reference_type=chargeback_fee')).toEqual([]);
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(0);
    await checkLedger(env);
  });
});

describe('accept, lose a contest, and the sandbox decision', () => {
  it('accept: open → accepted with the fee; a second accept is 409', async () => {
    const c = (await cardCharge(env, 10000, 1)).body.data;
    const cb = (await dispute(c.id, { amount: 4000, reason: 'duplicate' })).body.data;
    const res = await env.call('POST', `/v1/chargebacks/${cb.id}/accept`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'accepted', fee_amount: 1500, closed_at: env.clock.now().toISOString() });
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(-1500);
    expect((await env.call('POST', `/v1/chargebacks/${cb.id}/accept`)).body.error).toBe('invalid_state');
    expect(await eventsOf('chargeback.accepted')).toHaveLength(1);
    // the rest of the charge may still be disputed or refunded
    expect((await env.call('GET', `/v1/charges/${c.id}`)).body.data).toMatchObject({ disputed_amount: 4000 });
    expect((await dispute(c.id, { amount: 6001 })).status).toBe(400);
    // the rest is refundable: ⌊9701 × 5000 / 10000⌋ = 4850 from the 5701 left of its receivable
    expect((await env.call('POST', `/v1/charges/${c.id}/refund`, { amount: 5000 })).status).toBe(200);
    await checkLedger(env);
  });

  it('losing_evidence (or any text without winning_evidence) loses; the sandbox decides at once when asked', async () => {
    const c = (await cardCharge(env, 10000, 1)).body.data;
    const cb = (await dispute(c.id, { amount: 1000 })).body.data;
    expect((await env.call('POST', `/v1/sandbox/chargebacks/${cb.id}/decide`)).body.error).toBe('invalid_state');
    await env.call('POST', `/v1/chargebacks/${cb.id}/contest`, { text: 'losing_evidence' });
    const d = await env.call('POST', `/v1/sandbox/chargebacks/${cb.id}/decide`);
    expect(d.status).toBe(200);
    expect(d.body.message).toBe('Chargeback lost');
    expect(d.body.data).toMatchObject({ status: 'lost', fee_amount: 1500, closed_at: env.clock.now().toISOString(), decision_due_at: expect.any(String) });
    // decided already: the due moment passes with nothing more to do
    env.clock.advance(4 * DAY);
    expect((await get(cb.id)).status).toBe('lost');
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(-1500);
    expect(await eventsOf('chargeback.lost')).toHaveLength(1);
  });
});

describe('split rules: liable parties', () => {
  it('a party with liable false gives nothing; the liable ones give the whole amount by their nets', async () => {
    const a = await addSubmerchant(env);
    const b = await addSubmerchant(env);
    const c = (
      await cardCharge(env, 10000, 1, {
        split_rules: [{ percentage: 60 }, { submerchant_id: a.id, percentage: 30 }, { submerchant_id: b.id, percentage: 10, liable: false }],
      })
    ).body.data;
    expect(c.split_rules.map((r: { liable: boolean }) => r.liable)).toEqual([true, true, false]);
    const cb = (await dispute(c.id)).body.data;
    // nets 5819 / 2911 / 971; the parts 6666 / 3334 (docs/api.md's worked example)
    expect(cb.liabilities).toEqual([
      { submerchant_id: null, wallet_id: env.merchant.wallet_id, amount: 6666, from_receivables: 5819, from_wallet: 847 },
      { submerchant_id: a.id, wallet_id: a.wallet_id, amount: 3334, from_receivables: 2911, from_wallet: 423 },
    ]);
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(-847);
    expect(await balanceOf(env, a.wallet_id)).toBe(-423);
    expect(await balanceOf(env, b.wallet_id)).toBe(0);
    expect((await receivablesOf(env, c.id)).find((r) => r.submerchant_id === b.id)).toMatchObject({ status: 'pending', net_amount: 971 });
    // the submerchant's wallet below zero refuses its withdrawals too
    const w = await env.call('POST', '/v1/withdrawals', {
      type: 'pix', wallet_id: a.wallet_id, submerchant_id: a.id, amount: 100, pix_key: 'ana@example.com', pix_key_type: 'email',
      holder_document_type: 'cpf', holder_document: '52998224725', idempotency_key: 'sub-neg',
    });
    expect(w.body.error).toBe('negative_balance');
    // won: each gets its part back
    await env.call('POST', `/v1/chargebacks/${cb.id}/contest`, { text: 'winning_evidence' });
    await env.call('POST', `/v1/sandbox/chargebacks/${cb.id}/decide`);
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(-847 + 6666);
    expect(await balanceOf(env, a.wallet_id)).toBe(-423 + 3334);
    await checkLedger(env);
  });

  it('refuses split rules where no party is liable, naming split_rules', async () => {
    const a = await addSubmerchant(env);
    const r = await cardCharge(env, 10000, 1, { split_rules: [{ percentage: 50, liable: false }, { submerchant_id: a.id, percentage: 50, liable: false }] });
    expect(r.status).toBe(400);
    expect(r.body.details[0].field).toBe('split_rules');
    expect(r.body.message).toMatch(/liable/);
    const bad = await cardCharge(env, 10000, 1, { split_rules: [{ percentage: 100, liable: 'yes' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.details[0].field).toBe('split_rules[0].liable');
  });
});

describe('the magic dispute cards', () => {
  it('4000000000000259 is captured, then disputed as fraud 1 day later for all that is left; a refund before then prevents it', async () => {
    const token = await tokenize(env, '4000000000000259');
    const pay = () => env.call('POST', '/v1/charges', chargeBody(8000, { payment_method: 'credit_card', payment_details: { token, installments: 2 } }));
    const c = (await pay()).body.data;
    expect(c.status).toBe('captured');
    const refunded = (await pay()).body.data;
    await env.call('POST', `/v1/charges/${refunded.id}/refund`, { amount: 8000 });
    const partly = (await pay()).body.data;
    await env.call('POST', `/v1/charges/${partly.id}/refund`, { amount: 3000 });
    env.clock.advance(DAY - 1);
    expect((await env.call('GET', '/v1/chargebacks')).body.data).toEqual([]);
    env.clock.advance(1);
    const list = (await env.call('GET', '/v1/chargebacks')).body.data as Array<Record<string, any>>;
    expect(list.map((x) => [x.charge_id, x.amount, x.reason, x.status, x.created_at]).sort()).toEqual(
      [
        [c.id, 8000, 'fraud', 'open', new Date(Date.parse(c.captured_at) + DAY).toISOString()],
        [partly.id, 5000, 'fraud', 'open', new Date(Date.parse(partly.captured_at) + DAY).toISOString()],
      ].sort(),
    );
  });

  it('4000000000002685 is disputed as not_received 7 days later', async () => {
    const token = await tokenize(env, '4000000000002685');
    const c = (await env.call('POST', '/v1/charges', chargeBody(5000, { payment_method: 'credit_card', payment_details: { token } }))).body.data;
    await env.call('POST', '/v1/sandbox/clock/advance', { days: 6 });
    expect((await env.call('GET', `/v1/chargebacks?charge_id=${c.id}`)).body.data).toEqual([]);
    await env.call('POST', '/v1/sandbox/clock/advance', { days: 1 });
    expect((await env.call('GET', `/v1/chargebacks?charge_id=${c.id}`)).body.data).toEqual([expect.objectContaining({ reason: 'not_received', amount: 5000, status: 'open' })]);
  });

  it('an authorised magic card is disputed from its capture, for what was captured; a voided one never', async () => {
    const token = await tokenize(env, '4000000000000259');
    const authorize = () => env.call('POST', '/v1/charges', chargeBody(8000, { payment_method: 'credit_card', capture: false, payment_details: { token } }));
    const later = (await authorize()).body.data;
    const voided = (await authorize()).body.data;
    expect([later.status, voided.status]).toEqual(['authorized', 'authorized']);
    expect((await env.call('POST', `/v1/charges/${voided.id}/void`)).status).toBe(200);
    // a day after the authorisation: nothing, the dispute counts from the capture
    env.clock.advance(DAY);
    expect((await env.call('GET', '/v1/chargebacks')).body.data).toEqual([]);
    const captured = await env.call('POST', `/v1/charges/${later.id}/capture`, { amount: 6000 });
    expect(captured.body.data).toMatchObject({ status: 'captured', captured_amount: 6000 });
    env.clock.advance(DAY - 1);
    expect((await env.call('GET', '/v1/chargebacks')).body.data).toEqual([]);
    env.clock.advance(1);
    const list = (await env.call('GET', '/v1/chargebacks')).body.data as Array<Record<string, any>>;
    expect(list.map((x) => [x.charge_id, x.amount, x.reason, x.created_at])).toEqual([
      [later.id, 6000, 'fraud', new Date(Date.parse(captured.body.data.captured_at) + DAY).toISOString()],
    ]);
  });
});

describe('lists and filters', () => {
  it('newest first; by status, charge_id and dates; another merchant sees none of them', async () => {
    const c1 = (await cardCharge(env, 10000, 1)).body.data;
    const c2 = (await cardCharge(env, 10000, 1)).body.data;
    const a = (await dispute(c1.id, { amount: 100 })).body.data;
    env.clock.advance(DAY);
    const b = (await dispute(c2.id, { amount: 200 })).body.data;
    await env.call('POST', `/v1/chargebacks/${a.id}/accept`);
    const ids = async (q: string) => ((await env.call('GET', `/v1/chargebacks?${q}`)).body.data as Array<{ id: string }>).map((x) => x.id);
    expect(await ids('')).toEqual([b.id, a.id]);
    expect(await ids('status=accepted')).toEqual([a.id]);
    expect(await ids('status=open')).toEqual([b.id]);
    expect(await ids(`charge_id=${c2.id}`)).toEqual([b.id]);
    expect(await ids(`start_date=${b.created_at}`)).toEqual([b.id]);
    expect(await ids(`end_date=${a.created_at}`)).toEqual([a.id]);
    expect((await env.call('GET', '/v1/chargebacks?status=closed')).status).toBe(400);
    expect((await env.call('GET', '/v1/chargebacks?charge=1')).status).toBe(400);

    const other = await env.newMerchant('Outra');
    const as = (method: string, path: string, body?: unknown) =>
      env.rt.app.request(path, { method, headers: { authorization: env.auth(other), 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    expect((await (await as('GET', '/v1/chargebacks')).json()).data).toEqual([]);
    for (const [method, path, body] of [
      ['GET', `/v1/chargebacks/${b.id}`],
      ['POST', `/v1/chargebacks/${b.id}/accept`],
      ['POST', `/v1/chargebacks/${b.id}/contest`, { text: 'x' }],
      ['POST', `/v1/sandbox/chargebacks/${b.id}/decide`],
      ['POST', `/v1/sandbox/charges/${c2.id}/chargeback`, {}],
    ] as const) {
      expect((await as(method, path, body)).status, path).toBe(404);
    }
    expect((await get(b.id)).status).toBe('open');
  });
});

describe('bad input changes nothing', () => {
  it('refuses what cannot be disputed and what is not evidence, naming the field', async () => {
    const c = (await cardCharge(env, 10000, 1)).body.data;
    for (const [body, field] of [
      [{ amount: 0 }, 'amount'],
      [{ amount: 10.5 }, 'amount'],
      [{ amount: 10001 }, 'amount'],
      [{ reason: 'angry' }, 'reason'],
      [{ amout: 5 }, 'amout'],
    ] as const) {
      const r = await dispute(c.id, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.details[0].field).toBe(field);
    }
    const pix = (await env.call('POST', '/v1/charges', chargeBody(1000, { payment_method: 'pix' }))).body.data;
    await env.call('POST', `/v1/sandbox/charges/${pix.id}/pay`);
    expect((await dispute(pix.id)).body).toMatchObject({ error: 'business_rule', message: expect.stringMatching(/card/) });
    const refusedState = async (id: string, status: string) => {
      const r = await dispute(id);
      expect(r.status, status).toBe(409);
      expect(r.body).toMatchObject({ error: 'invalid_state', message: expect.stringContaining(`this charge is ${status}`) });
    };
    const declined = (await cardCharge(env, 1000, 1, {}, '4000000000000002')).body.data;
    await refusedState(declined.id, 'failed');
    // authorised: nothing captured yet; voided: nothing ever will be
    const authorized = (await cardCharge(env, 1000, 1, { capture: false })).body.data;
    await refusedState(authorized.id, 'authorized');
    const voided = (await cardCharge(env, 1000, 1, { capture: false })).body.data;
    await env.call('POST', `/v1/charges/${voided.id}/void`);
    await refusedState(voided.id, 'voided');
    expect((await env.call('GET', '/v1/chargebacks')).body.data).toEqual([]);
    expect((await dispute('0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f')).status).toBe(404);

    const cb = (await dispute(c.id, { amount: 500 })).body.data;
    const foreign = await env.newMerchant('Outra');
    const theirs = await uploadEvidence(realPdf(), 'deles.pdf', env.auth(foreign));
    expect(theirs.status).toBe(201);
    const mine = (await uploadEvidence()).body.data.key as string;
    for (const [body, status, field] of [
      [{}, 400, 'text'],
      [{ text: '   ' }, 400, 'text'],
      [{ text: 'x'.repeat(20_001) }, 400, 'text'],
      [{ text: 'ok', file_ids: ['../../etc/passwd'] }, 400, 'file_ids[0]'],
      [{ text: 'ok', file_ids: Array.from({ length: 11 }, () => mine) }, 400, 'file_ids'],
      [{ text: 'ok', file_ids: [mine, mine] }, 400, 'file_ids[1]'],
      [{ text: 'ok', file_ids: [mine, theirs.body.data.key] }, 404, 'file_ids[1]'],
      [{ text: 'ok', evidence: 'x' }, 400, 'evidence'],
    ] as const) {
      const r = await env.call('POST', `/v1/chargebacks/${cb.id}/contest`, body);
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(status);
      expect(r.body.details[0].field).toBe(field);
    }
    expect(await get(cb.id)).toMatchObject({ status: 'open', evidence: null });
    const f = await env.rt.deps.db.get<{ attached_at: string | null }>('SELECT attached_at FROM files WHERE key = ?', [mine]);
    expect(f!.attached_at).toBeNull();
    expect((await eventsOf('chargeback.under_review')).length).toBe(0);
  });

  it('the sandbox routes do not exist in production mode', async () => {
    const prod = await testEnv({ mode: 'production' });
    try {
      expect((await prod.call('POST', '/v1/sandbox/charges/0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f/chargeback', {})).status).toBe(404);
      expect((await prod.call('POST', '/v1/sandbox/chargebacks/0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f/decide')).status).toBe(404);
      expect((await prod.call('GET', '/v1/chargebacks')).status).toBe(200);
    } finally {
      await prod.close();
    }
  });
});

describe('a request whose due work was skipped', () => {
  it('still finds an open chargeback past its window lost: the contest is 409 and the fee is charged', async () => {
    const never: DuePolicy = { batch: 100, skip: () => true, ran: () => {}, wrote: () => {} };
    const e = await testEnv({ due: never });
    try {
      const token = await tokenize(e);
      const c = (await e.call('POST', '/v1/charges', chargeBody(10000, { payment_method: 'credit_card', payment_details: { token } }))).body.data;
      const cb = (await e.call('POST', `/v1/sandbox/charges/${c.id}/chargeback`, { amount: 1000 })).body.data;
      e.clock.advance(10 * DAY);
      expect((await e.call('GET', `/v1/chargebacks/${cb.id}`)).body.data.status).toBe('open'); // nothing ran the due work
      const late = await e.call('POST', `/v1/chargebacks/${cb.id}/contest`, { text: 'winning_evidence' });
      expect(late.status).toBe(409);
      expect(late.body.message).toMatch(/'lost'/);
      expect((await e.call('GET', `/v1/chargebacks/${cb.id}`)).body.data).toMatchObject({ status: 'lost', fee_amount: 1500, closed_at: cb.evidence_due_at });
      expect(await balanceOf(e, e.merchant.wallet_id)).toBe(-1500);
      expect((await e.call('POST', `/v1/chargebacks/${cb.id}/accept`)).status).toBe(409);
    } finally {
      await e.close();
    }
  });
});

describe('webhooks', () => {
  it('an endpoint subscribes to the chargeback events by name', async () => {
    const r = await env.call('POST', '/v1/postbacks/endpoints', {
      url: 'http://127.0.0.1:9/hook',
      events: ['chargeback.created', 'chargeback.under_review', 'chargeback.accepted', 'chargeback.won', 'chargeback.lost'],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
  });
});
