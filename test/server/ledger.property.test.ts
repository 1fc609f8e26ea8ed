import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { WindowDueInBatches } from '../helpers/due.js';
import { addSubmerchant, chargeBody, checkLedger, checkStatements, tokenize } from '../helpers/money.js';
import { refundShare } from '../../src/domain/fees.js';
import { expiredAuthorizationsBefore } from '../../src/domain/capture.js';
import { percentOf } from '../../src/domain/money.js';
import { planOf } from '../../src/server/services/charges/parties.js';
import type { StoredParty } from '../../src/server/services/charges/rows.js';
import { addDays, localDate } from '../../src/domain/calendar.js';
import { salePrice, type ChargeRates } from '../../src/domain/pricing.js';
import { setMerchantPricing } from '../../src/server/services/pricing.js';

const PAYER_ADDRESS = { street: 'Av. Paulista', number: '1000', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP', zip_code: '01310100' };

type Split = { kind: 'none' } | { kind: 'sub'; sub: number } | { kind: 'pct'; parts: number[] } | { kind: 'amt'; parts: number[] };
/** What comes at once after an authorisation: nothing (a later op, or the 7 days), its capture (all, or ‰ of it), its void. */
type Next = { kind: 'none' } | { kind: 'capture'; permille: number | null } | { kind: 'void' };
type Op =
  | { t: 'card'; amount: number; installments: number; split: Split; declined: boolean; interest: 'merchant' | 'buyer'; authorizeOnly: boolean; next?: Next }
  | { t: 'capture'; pick: number; permille: number | null }
  | { t: 'void'; pick: number }
  | { t: 'reprice'; pricing: Prices }
  | { t: 'pix'; amount: number; split: Split; pay: boolean }
  | { t: 'due'; method: 'boleto' | 'pix'; amount: number; split: Split; dueIn: number; fine: number; interest: number; discountPct: number | null; payUntil: number; pay: boolean }
  | { t: 'payDue'; pick: number }
  | { t: 'advance'; days: number }
  | { t: 'time'; hours: number }
  | { t: 'anticipateAmount'; amount: number; sub: number | null }
  | { t: 'anticipatePick'; count: number; sub: number | null }
  | { t: 'refund'; pick: number; permille: number | null }
  | { t: 'withdraw'; amount: number; fail: boolean; sub: number | null };

/** A merchant override: the rates new charges take (existing ones keep theirs). */
type Prices = { mdr: number; pix: number; boleto: number; anticipation: number; interest: number; free: number };
const prices: fc.Arbitrary<Prices> = fc.record({
  mdr: fc.integer({ min: 0, max: 2000 }),
  pix: fc.integer({ min: 0, max: 2000 }),
  boleto: fc.integer({ min: 0, max: 1_000 }),
  anticipation: fc.integer({ min: 0, max: 2000 }),
  interest: fc.integer({ min: 0, max: 1000 }),
  free: fc.integer({ min: 1, max: 12 }),
});
const overrideOf = (p: Prices) => ({
  card_mdr_bps: { mastercard: { installments_1: p.mdr, installments_2_6: p.mdr, installments_7_12: p.mdr } },
  pix_mdr_bps: p.pix,
  boleto_fee_amount: p.boleto,
  anticipation_monthly_bps: p.anticipation,
  buyer_interest: { monthly_bps: p.interest, free_installments: p.free },
});

const split: fc.Arbitrary<Split> = fc.oneof(
  fc.constant({ kind: 'none' as const }),
  fc.record({ kind: fc.constant('sub' as const), sub: fc.integer({ min: 0, max: 1 }) }),
  fc.record({ kind: fc.constant('pct' as const), parts: fc.array(fc.integer({ min: 1, max: 100 }), { minLength: 1, maxLength: 3 }) }),
  fc.record({ kind: fc.constant('amt' as const), parts: fc.array(fc.integer({ min: 1, max: 100 }), { minLength: 1, maxLength: 3 }) }),
);

const card = {
  t: fc.constant('card' as const),
  amount: fc.integer({ min: 100, max: 500_000 }),
  installments: fc.integer({ min: 1, max: 12 }),
  split,
  interest: fc.constantFrom('merchant' as const, 'buyer' as const),
};
/** ‰ of an amount to capture or refund, or null: all of it */
const part = fc.option(fc.integer({ min: 1, max: 1000 }));

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ ...card, declined: fc.boolean(), authorizeOnly: fc.constant(false) }) },
  // a card charge created with capture false; then captured (all of it, or ‰ of the authorised
  // total), voided, or left for a later op or to expire after 7 days
  {
    weight: 4,
    arbitrary: fc.record({
      ...card,
      declined: fc.constantFrom(false, false, false, true),
      authorizeOnly: fc.constant(true),
      next: fc.oneof(
        { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
        { weight: 2, arbitrary: fc.record({ kind: fc.constant('capture' as const), permille: part }) },
        { weight: 1, arbitrary: fc.constant({ kind: 'void' as const }) },
      ),
    }),
  },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('capture' as const), pick: fc.nat(), permille: part }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('void' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('reprice' as const), pricing: prices }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('pix' as const), amount: fc.integer({ min: 1, max: 500_000 }), split, pay: fc.boolean() }) },
  {
    weight: 4,
    arbitrary: fc.record({
      t: fc.constant('due' as const),
      method: fc.constantFrom('boleto' as const, 'pix' as const),
      amount: fc.integer({ min: 1_000, max: 500_000 }),
      split,
      dueIn: fc.integer({ min: 0, max: 20 }),
      fine: fc.integer({ min: 0, max: 1_000 }),
      interest: fc.integer({ min: 0, max: 1_000 }),
      discountPct: fc.option(fc.integer({ min: 1, max: 50 })),
      payUntil: fc.integer({ min: 0, max: 59 }),
      pay: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('payDue' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('advance' as const), days: fc.integer({ min: 1, max: 120 }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('time' as const), hours: fc.integer({ min: 1, max: 24 * 40 }) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('anticipateAmount' as const), amount: fc.integer({ min: 1, max: 300_000 }), sub: fc.option(fc.integer({ min: 0, max: 1 })) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('anticipatePick' as const), count: fc.integer({ min: 1, max: 4 }), sub: fc.option(fc.integer({ min: 0, max: 1 })) }) },
  // all that is left, or ‰ of it
  { weight: 2, arbitrary: fc.record({ t: fc.constant('refund' as const), pick: fc.nat(), permille: part }) },
  {
    weight: 2,
    arbitrary: fc.record({ t: fc.constant('withdraw' as const), amount: fc.integer({ min: 100, max: 200_000 }), fail: fc.boolean(), sub: fc.option(fc.integer({ min: 0, max: 1 })) }),
  },
);

/** Captures an authorised charge, all of its total (null) or ‰ of it: captured, or a 400 naming amount when a share is too small for its installments. */
async function captureAuthorization(env: TestEnv, c: { id: string; total_amount: number }, permille: number | null) {
  const amount = permille === null ? undefined : Math.max(1, Math.floor((c.total_amount * permille) / 1000));
  const res = await env.call('POST', `/v1/charges/${c.id}/capture`, amount === undefined ? {} : { amount });
  if (res.status === 200) expect(res.body.data).toMatchObject({ status: 'captured', captured_amount: amount ?? c.total_amount });
  else expect(res.body.details?.[0]?.field, JSON.stringify(res.body)).toBe('amount');
  return res;
}

async function voidAuthorization(env: TestEnv, c: { id: string }) {
  const res = await env.call('POST', `/v1/charges/${c.id}/void`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.data).toMatchObject({ status: 'voided', void_reason: 'requested' });
  return res;
}

/** Turns weights into split rules over [merchant, sub0, sub1] that add up exactly. */
function splitRules(s: Split, amount: number, subs: string[]): Record<string, unknown> {
  if (s.kind === 'none') return {};
  if (s.kind === 'sub') return { submerchant_id: subs[s.sub] };
  const parties = [null, ...subs].slice(0, s.parts.length);
  const total = s.parts.reduce((a, b) => a + b, 0);
  if (s.kind === 'pct') {
    const pcts = s.parts.map((p) => Math.floor((p * 10000) / total) / 100);
    pcts[0] = Math.round((100 - pcts.slice(1).reduce((a, b) => a + b, 0)) * 100) / 100;
    return { split_rules: parties.map((id, i) => ({ submerchant_id: id, percentage: pcts[i] })) };
  }
  const amts = s.parts.map((p) => Math.floor((p * amount) / total));
  amts[0]! += amount - amts.reduce((a, b) => a + b, 0);
  if (amts.some((a) => a < 1)) return {};
  return { split_rules: parties.map((id, i) => ({ submerchant_id: id, amount: amts[i] })) };
}

interface ChargeFacts {
  id: string;
  status: string;
  amount: number;
  total_amount: number;
  interest_amount: number;
  pricing: string;
  payment_method: 'credit_card' | 'pix' | 'boleto';
  installments: number;
  parties: string;
  captured_amount: number | null;
  refunded_amount: number;
  authorized_at: string | null;
  paid_amount: number | null;
  fee_amount: number | null;
  net_amount: number | null;
}

async function checkConservation(env: TestEnv): Promise<void> {
  const { db } = env.rt.deps;
  const num = (v: unknown) => Number(v ?? 0);
  const charges = await db.all<ChargeFacts>(
    `SELECT id, status, amount, total_amount, interest_amount, pricing, payment_method, installments, parties, captured_amount, refunded_amount,
            authorized_at, paid_amount, fee_amount, net_amount FROM charges`,
  );
  for (const c of charges) {
    // what the buyer pays: the amount, plus the interest of a buyer-interest plan
    expect(num(c.total_amount)).toBe(num(c.amount) + num(c.interest_amount));
    const captured = c.status === 'captured' || c.status === 'refunded';
    // captured_amount: set on capture only; all of the total (what the payer paid, for a charge
    // with a due date) unless the charge was authorised first
    if (!captured) expect([c.captured_amount, c.fee_amount, num(c.refunded_amount)]).toEqual([null, null, 0]);
    if (!captured) continue;
    const whole = num(c.paid_amount ?? c.total_amount);
    expect(num(c.captured_amount)).toBeGreaterThanOrEqual(1);
    expect(num(c.captured_amount)).toBeLessThanOrEqual(whole);
    if (c.authorized_at === null) expect(num(c.captured_amount)).toBe(whole);
    // the fee is by the rates the charge recorded at creation: a boleto's fixed fee, else the MDR of what was captured
    const rates = JSON.parse(c.pricing) as ChargeRates;
    expect(num(c.fee_amount)).toBe(c.payment_method === 'boleto' ? rates.boleto_fee_amount : percentOf(num(c.captured_amount), rates.mdr_bps));
    expect(num(c.net_amount)).toBe(num(c.captured_amount) - num(c.fee_amount));
    // refunds add up to refunded_amount, never above what was captured; refunded when all of it is
    const refunds = await db.get<{ n: number }>('SELECT COALESCE(SUM(amount), 0) AS n FROM refunds WHERE charge_id = ?', [c.id]);
    expect(num(refunds!.n)).toBe(num(c.refunded_amount));
    expect(num(c.refunded_amount)).toBeLessThanOrEqual(num(c.captured_amount));
    expect(c.status === 'refunded').toBe(num(c.refunded_amount) === num(c.captured_amount));
    // its receivables: the whole fee of the captured amount, whatever refunds did (they reduce gross
    // and net alike); before any refund, gross and net of the captured amount too
    const s = await db.get<{ g: number; f: number; n: number }>(
      'SELECT SUM(gross_amount) AS g, SUM(fee_amount) AS f, SUM(net_amount) AS n FROM receivables WHERE charge_id = ?',
      [c.id],
    );
    expect(num(s!.f)).toBe(num(c.fee_amount));
    expect(num(s!.g) - num(s!.n)).toBe(num(c.fee_amount));
    if (num(c.refunded_amount) === 0) expect([num(s!.g), num(s!.n)]).toEqual([num(c.captured_amount), num(c.net_amount)]);
    // what each party gave back (taken from its receivables, then debited from its wallet) is its
    // refund share of the captured total, ⌊N × R / T⌋; once the charge is refunded, all of its
    // net N less what anticipations kept (the fees), or more when partial refunds had already
    // debited an anticipated receivable's fee too — never more than N
    const parties = JSON.parse(c.parties) as StoredParty[];
    const plan = planOf({ method: c.payment_method, installments: num(c.installments), price: salePrice(c.payment_method, rates), gross: num(c.captured_amount) }, parties);
    expect(plan.fee).toBe(num(c.fee_amount));
    for (const pp of plan.parties) {
      const wallet = parties[pp.key]!.wallet_id;
      const r = await db.get<{ kept: number; fees: number }>(
        `SELECT COALESCE(SUM(CASE WHEN status <> 'cancelled' THEN net_amount ELSE 0 END), 0) AS kept,
                COALESCE(SUM(CASE WHEN status = 'anticipated' THEN COALESCE(anticipation_fee_amount, 0) ELSE 0 END), 0) AS fees
           FROM receivables WHERE charge_id = ? AND wallet_id = ?`,
        [c.id, wallet],
      );
      const debits = await db.get<{ n: number }>(
        "SELECT COALESCE(SUM(amount), 0) AS n FROM wallet_entries WHERE wallet_id = ? AND reference_type = 'refund' AND reference_id = ?",
        [wallet, c.id],
      );
      const given = pp.net - num(r!.kept) + num(debits!.n);
      const who = `charge ${c.id} party ${pp.key}`;
      if (c.status === 'refunded') {
        expect(given, who).toBeGreaterThanOrEqual(pp.net - num(r!.fees));
        expect(given, who).toBeLessThanOrEqual(pp.net);
      } else expect(given, who).toBe(refundShare(pp.net, 0, num(c.refunded_amount), num(c.captured_amount)));
    }
  }
  const orphans = await db.get<{ n: number }>("SELECT COUNT(*) AS n FROM receivables r JOIN charges c ON c.id = r.charge_id WHERE c.status NOT IN ('captured', 'refunded')");
  expect(num(orphans!.n)).toBe(0);
  // a wallet holds the net of its paid receivables and approved anticipations, less what refunds took back
  const wallets = await db.all<{ id: string; balance: number }>('SELECT id, balance FROM wallets');
  for (const w of wallets) {
    const paid = await db.get<{ n: number }>("SELECT COALESCE(SUM(net_amount), 0) AS n FROM receivables WHERE wallet_id = ? AND status = 'paid'", [w.id]);
    const ant = await db.get<{ n: number }>("SELECT COALESCE(SUM(total_net_amount), 0) AS n FROM anticipations WHERE wallet_id = ? AND status = 'approved'", [w.id]);
    const debited = await db.get<{ n: number }>("SELECT COALESCE(SUM(amount), 0) AS n FROM wallet_entries WHERE wallet_id = ? AND reference_type = 'refund'", [w.id]);
    // withdrawals: debited at once, credited back when the payout fails
    const wd = await db.get<{ n: number }>(
      "SELECT COALESCE(SUM(CASE WHEN direction = 'credit' THEN amount ELSE -amount END), 0) AS n FROM wallet_entries WHERE wallet_id = ? AND reference_type IN ('withdrawal', 'withdrawal_reversal')",
      [w.id],
    );
    expect(num(w.balance)).toBe(num(paid!.n) + num(ant!.n) - num(debited!.n) + num(wd!.n));
  }
  // a receivable is cancelled only by a refund: of the whole charge, or of all of its net
  const stray = await db.get<{ n: number }>(
    "SELECT COUNT(*) AS n FROM receivables r JOIN charges c ON c.id = r.charge_id WHERE r.status = 'cancelled' AND c.refunded_amount = 0",
  );
  expect(num(stray!.n)).toBe(0);
  // due work settles at most one batch per request: a request settles min(BATCH, due) of what is
  // due at its instant (the clock does not move during it), no more and no less; and voids as
  // many expired authorisations, in its own batch
  const before = await dueLeft(env);
  const clock = (await env.call('GET', '/v1/merchant')).body.data.clock as string;
  const after = await dueLeft(env);
  expect(after.clock).toBe(clock);
  expect(after.n).toBe(Math.max(0, before.n - BATCH));
  expect(after.expired).toBe(Math.max(0, before.expired - BATCH));
}

/**
 * Receivables due but not settled, and authorisations past their 7 days not voided, at the
 * merchant's clock, read from the store (no request, so no due work runs).
 */
async function dueLeft(env: TestEnv): Promise<{ n: number; expired: number; clock: string }> {
  const { db } = env.rt.deps;
  const m = await db.get<{ clock_offset_ms: number }>('SELECT clock_offset_ms FROM merchants WHERE id = ?', [env.merchant.merchant_id]);
  const now = new Date(env.clock.now().getTime() + Number(m!.clock_offset_ms));
  const clock = now.toISOString();
  const due = await db.get<{ n: number }>("SELECT COUNT(*) AS n FROM receivables WHERE status = 'pending' AND settlement_date <= ?", [clock]);
  const expired = await db.get<{ n: number }>("SELECT COUNT(*) AS n FROM charges WHERE status = 'authorized' AND authorized_at <= ?", [
    expiredAuthorizationsBefore(now).toISOString(),
  ]);
  return { n: Number(due!.n), expired: Number(expired!.n), clock };
}

/**
 * Due work in batches this small (the runtime's due policy) makes a few random requests interleave with
 * settlement the way >100 due receivables do with the production batch: a request settles one
 * batch, writes its own entry at "now", and a later request settles receivables dated earlier.
 */
const BATCH = 2;

describe('ledger invariants under random sequences of money operations', () => {
  it('hold after every operation', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 14 }), prices, async (ops, first) => {
        const env = await testEnv({ due: new WindowDueInBatches(BATCH) });
        const reprice = (p: Prices) => setMerchantPricing(env.rt.deps.db, env.rt.deps.pricing, env.merchant.merchant_id, overrideOf(p), env.clock.now());
        try {
          await reprice(first);
          const parties = [await addSubmerchant(env), await addSubmerchant(env)];
          const subs = parties.map((p) => p.id);
          const walletsOf = parties.map((p) => p.wallet_id);
          let wseq = 0;
          const approved = await tokenize(env, '5555555555554444');
          const declined = await tokenize(env, '4000000000000002');
          for (const o of ops) {
            let res: { status: number; body: any } | undefined;
            switch (o.t) {
              case 'card':
                res = await env.call(
                  'POST',
                  '/v1/charges',
                  chargeBody(o.amount, {
                    payment_method: 'credit_card',
                    payment_details: { token: o.declined ? declined : approved, installments: o.installments, interest: o.interest },
                    ...splitRules(o.split, o.amount, subs),
                    ...(o.authorizeOnly ? { capture: false } : {}),
                  }),
                );
                if (res.status === 201) {
                  expect(res.body.data.status).toBe(o.declined ? 'failed' : o.authorizeOnly ? 'authorized' : 'captured');
                  const c = res.body.data;
                  expect(c.total_amount).toBe(c.amount + c.interest_amount);
                  if (c.interest_amount > 0) expect(c.total_amount % o.installments).toBe(0); // equal installments
                } else expect(res.status, JSON.stringify(res.body)).toBe(400); // a share too small for its installments
                if (res.status === 201 && res.body.data.status === 'authorized' && o.next && o.next.kind !== 'none') {
                  await checkLedger(env);
                  await checkConservation(env);
                  const c = res.body.data as { id: string; total_amount: number };
                  res = o.next.kind === 'void' ? await voidAuthorization(env, c) : await captureAuthorization(env, c, o.next.permille);
                }
                break;
              case 'reprice':
                await reprice(o.pricing);
                break;
              case 'capture':
              case 'void': {
                const list = await env.call('GET', '/v1/charges?status=authorized&per_page=100');
                const cs = list.body.data as Array<{ id: string; total_amount: number }>;
                if (!cs.length) break;
                const c = cs[o.pick % cs.length]!;
                res = o.t === 'void' ? await voidAuthorization(env, c) : await captureAuthorization(env, c, o.permille);
                break;
              }
              case 'pix': {
                res = await env.call('POST', '/v1/charges', chargeBody(o.amount, { payment_method: 'pix', ...splitRules(o.split, o.amount, subs) }));
                if (res.status === 201 && o.pay) res = await env.call('POST', `/v1/sandbox/charges/${res.body.data.id}/pay`);
                else if (res.status !== 201) expect(res.status, JSON.stringify(res.body)).toBe(400);
                break;
              }
              case 'due': {
                // a boleto or a PIX with a due date, due dueIn days after the merchant's São Paulo day
                const today = localDate(new Date((await env.call('GET', '/v1/merchant')).body.data.clock));
                const dueDate = addDays(today, o.dueIn);
                const discount = o.discountPct === null ? {} : { discount: { amount: Math.floor((o.amount * o.discountPct) / 100), until: dueDate } };
                const base = chargeBody(o.amount, { payment_method: o.method, ...splitRules(o.split, o.amount, subs) }) as { customer: Record<string, unknown> };
                res = await env.call('POST', '/v1/charges', {
                  ...base,
                  ...(o.method === 'boleto' ? { customer: { ...base.customer, address: PAYER_ADDRESS } } : {}),
                  payment_details: { due_date: dueDate, fine: o.fine, interest: o.interest, pay_until_days: o.payUntil, ...discount },
                });
                if (res.status !== 201) expect(res.status, JSON.stringify(res.body)).toBe(400); // a share the fee would eat
                else if (o.pay) {
                  res = await env.call('POST', `/v1/sandbox/charges/${res.body.data.id}/pay`, {});
                  expect(res.status, JSON.stringify(res.body)).toBe(200);
                }
                break;
              }
              case 'payDue': {
                // a pending charge with a due date, paid today: with the discount, on time, or late with fine and interest
                const list = await env.call('GET', '/v1/charges?status=pending&per_page=100');
                const cs = (list.body.data as Array<{ id: string; due: unknown }>).filter((c) => c.due);
                if (!cs.length) break;
                res = await env.call('POST', `/v1/sandbox/charges/${cs[o.pick % cs.length]!.id}/pay`, {});
                // past its last payable day, before the due work (in batches) expired it
                if (res.status !== 200) expect(res.body.error, JSON.stringify(res.body)).toBe('business_rule');
                break;
              }
              case 'advance':
                res = await env.call('POST', '/v1/sandbox/clock/advance', { days: o.days });
                expect(res.status).toBe(200);
                break;
              case 'time':
                env.clock.advance(o.hours * 3_600_000);
                break;
              case 'anticipateAmount':
                res = await env.call('POST', '/v1/anticipations', { amount: o.amount, ...(o.sub === null ? {} : { submerchant_id: subs[o.sub] }) });
                expect(res.status, JSON.stringify(res.body)).toBe(201);
                break;
              case 'anticipatePick': {
                const owner = o.sub === null ? '' : `&submerchant_id=${subs[o.sub]}`;
                const list = await env.call('GET', `/v1/receivables?status=pending&payment_method=credit_card&per_page=100${owner}`);
                const mine = (list.body.data as Array<{ id: string; submerchant_id: string | null }>).filter((r) =>
                  o.sub === null ? r.submerchant_id === null : r.submerchant_id === subs[o.sub],
                );
                if (!mine.length) break;
                res = await env.call('POST', '/v1/anticipations', {
                  receivable_ids: mine.slice(0, o.count).map((r) => r.id),
                  ...(o.sub === null ? {} : { submerchant_id: subs[o.sub] }),
                });
                expect(res.status, JSON.stringify(res.body)).toBe(201);
                // refused only when a receivable's fee, at the rate its charge recorded, would take all of its net
                if (res.body.data.status !== 'approved') expect(res.body.data.refusal_reason).toMatch(/would take all of its net/);
                break;
              }
              case 'withdraw': {
                const wallet = o.sub === null ? env.merchant.wallet_id : walletsOf[o.sub]!;
                const amount = o.fail ? Math.floor(o.amount / 100) * 100 + 99 : o.amount - (o.amount % 100 === 99 ? 1 : 0); // 99 cents: the payout fails
                res = await env.call('POST', '/v1/withdrawals', {
                  type: 'pix', wallet_id: wallet, amount, pix_key: 'ana@example.com', pix_key_type: 'email',
                  holder_document_type: 'cpf', holder_document: '52998224725', idempotency_key: `w-${++wseq}`,
                  ...(o.sub === null ? {} : { submerchant_id: subs[o.sub] }),
                });
                if (res.status !== 201) expect(res.body.error, JSON.stringify(res.body)).toBe('insufficient_funds');
                break;
              }
              case 'refund': {
                const list = await env.call('GET', '/v1/charges?status=captured&per_page=100');
                const cs = list.body.data as Array<{ id: string; captured_amount: number; refunded_amount: number }>;
                if (!cs.length) break;
                const c = cs[o.pick % cs.length]!;
                const left = c.captured_amount - c.refunded_amount;
                const amount = o.permille === null ? undefined : Math.max(1, Math.floor((left * o.permille) / 1000));
                res = await env.call('POST', `/v1/charges/${c.id}/refund`, amount === undefined ? undefined : { amount });
                if (res.status !== 200) expect(res.body.error, JSON.stringify(res.body)).toBe('insufficient_funds');
                break;
              }
            }
            if (res) expect(res.status).toBeLessThan(500);
            // a clock advance sweeps due work until nothing is left
            if (o.t === 'advance') expect(await dueLeft(env)).toMatchObject({ n: 0, expired: 0 });
            await checkLedger(env);
            await checkConservation(env);
          }
          // enough requests settle everything due: ceil(due / BATCH) of them
          const left = (await dueLeft(env)).n;
          for (let i = 0; i < Math.ceil(left / BATCH); i++) await env.call('GET', '/v1/merchant');
          expect((await dueLeft(env)).n).toBe(0);
          // issue 14 item 1: every statement of every wallet reconciles, whatever the interleaving
          // (a last jump lets failed payouts be reversed and due receivables settle)
          await env.call('POST', '/v1/sandbox/clock/advance', { days: 400 });
          expect((await dueLeft(env)).n).toBe(0);
          await checkConservation(env);
          await checkStatements(env);
        } finally {
          await env.close();
        }
      }),
      { numRuns: 40 },
    );
  }, 240_000);
});
