import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { WindowDueInBatches } from '../helpers/due.js';
import { addSubmerchant, chargeBody, checkLedger, checkStatements, tokenize } from '../helpers/money.js';
import { chargebackShares } from '../../src/domain/chargebacks.js';
import { lastReturnDay, MED_OPEN_WINDOW_DAYS, parsePixId } from '../../src/domain/pixReturns.js';
import { refundShare } from '../../src/domain/fees.js';
import { percentOf } from '../../src/domain/money.js';
import { planOf } from '../../src/server/services/charges/parties.js';
import type { StoredParty } from '../../src/server/services/charges/rows.js';
import { expiredAuthorizationsBefore } from '../../src/domain/capture.js';
import { addDays, localDate } from '../../src/domain/calendar.js';
import { salePrice, type ChargeRates } from '../../src/domain/pricing.js';
import { setMerchantPricing } from '../../src/server/services/pricing.js';

const PAYER_ADDRESS = { street: 'Av. Paulista', number: '1000', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP', zip_code: '01310100' };

type Split =
  | { kind: 'none' }
  | { kind: 'sub'; sub: number }
  | { kind: 'pct'; parts: number[]; liable: boolean[] }
  | { kind: 'amt'; parts: number[]; liable: boolean[] };
/** What comes at once after an authorisation: nothing (a later op, or the 7 days), its capture (all, or ‰ of it), its void. */
type Next = { kind: 'none' } | { kind: 'capture'; permille: number | null } | { kind: 'void' };
type Op =
  | { t: 'card'; amount: number; installments: number; split: Split; declined: boolean; disputed: boolean; interest: 'merchant' | 'buyer'; authorizeOnly: boolean; next?: Next }
  | { t: 'capture'; pick: number; permille: number | null }
  | { t: 'void'; pick: number }
  | { t: 'reprice'; pricing: Prices }
  | { t: 'due'; method: 'boleto' | 'pix'; amount: number; split: Split; dueIn: number; fine: number; interest: number; discountPct: number | null; payUntil: number; pay: boolean }
  | { t: 'payDue'; pick: number }
  | { t: 'pix'; amount: number; split: Split; pay: boolean }
  | { t: 'advance'; days: number }
  | { t: 'time'; hours: number }
  | { t: 'anticipateAmount'; amount: number; sub: number | null }
  | { t: 'anticipatePick'; count: number; sub: number | null }
  | { t: 'refund'; pick: number; percent: number | null; pix: boolean }
  | { t: 'withdraw'; amount: number; fail: boolean; all: boolean; sub: number | null }
  | { t: 'chargeback'; pick: number; percent: number; next: 'accept' | 'win' | 'lose' | null }
  | { t: 'med'; pick: number; reason: 'fraud' | 'operational_flaw'; next: 'accept' | 'win' | 'lose' | null }
  | { t: 'answer'; pick: number; how: 'accept' | 'win' | 'lose' | 'decide' }
  | { t: 'agenda'; amount: number; installments: number; percent: number | null };

/** A merchant override: the rates new charges take (existing ones keep theirs). */
type Prices = { mdr: number; pix: number; boleto: number; anticipation: number; chargeback: number; interest: number; free: number };
const prices: fc.Arbitrary<Prices> = fc.record({
  mdr: fc.integer({ min: 0, max: 2000 }),
  pix: fc.integer({ min: 0, max: 2000 }),
  boleto: fc.integer({ min: 0, max: 1_000 }),
  anticipation: fc.integer({ min: 0, max: 2000 }),
  chargeback: fc.integer({ min: 0, max: 5_000 }),
  interest: fc.integer({ min: 0, max: 1000 }),
  free: fc.integer({ min: 1, max: 12 }),
});
const overrideOf = (p: Prices) => ({
  card_mdr_bps: { mastercard: { installments_1: p.mdr, installments_2_6: p.mdr, installments_7_12: p.mdr } },
  pix_mdr_bps: p.pix,
  boleto_fee_amount: p.boleto,
  anticipation_monthly_bps: p.anticipation,
  chargeback_fee_amount: p.chargeback,
  buyer_interest: { monthly_bps: p.interest, free_installments: p.free },
});

const parts = fc.array(fc.integer({ min: 1, max: 100 }), { minLength: 1, maxLength: 3 });
const liable = fc.array(fc.boolean(), { minLength: 3, maxLength: 3 });
const split: fc.Arbitrary<Split> = fc.oneof(
  fc.constant({ kind: 'none' as const }),
  fc.record({ kind: fc.constant('sub' as const), sub: fc.integer({ min: 0, max: 1 }) }),
  fc.record({ kind: fc.constant('pct' as const), parts, liable }),
  fc.record({ kind: fc.constant('amt' as const), parts, liable }),
);

const card = {
  t: fc.constant('card' as const),
  amount: fc.integer({ min: 100, max: 500_000 }),
  installments: fc.integer({ min: 1, max: 12 }),
  split,
  // the sandbox's magic card 4000000000000259: disputed a day after its capture
  disputed: fc.boolean(),
  interest: fc.constantFrom('merchant' as const, 'buyer' as const),
};
/** ‰ of an amount to capture, or null: all of it */
const part = fc.option(fc.integer({ min: 1, max: 1000 }));

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ ...card, declined: fc.boolean(), authorizeOnly: fc.constant(false) }) },
  // a card charge created with capture false; then captured (all of it, or ‰ of the authorised
  // total), voided, or left for a later op or to expire after 7 days
  {
    weight: 3,
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
  {
    weight: 3,
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
  { weight: 2, arbitrary: fc.record({ t: fc.constant('pix' as const), amount: fc.integer({ min: 1, max: 500_000 }), split, pay: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('advance' as const), days: fc.integer({ min: 1, max: 120 }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('time' as const), hours: fc.integer({ min: 1, max: 24 * 40 }) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('anticipateAmount' as const), amount: fc.integer({ min: 1, max: 300_000 }), sub: fc.option(fc.integer({ min: 0, max: 1 })) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('anticipatePick' as const), count: fc.integer({ min: 1, max: 4 }), sub: fc.option(fc.integer({ min: 0, max: 1 })) }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('refund' as const), pick: fc.nat(), percent: fc.option(fc.integer({ min: 1, max: 100 })), pix: fc.boolean() }) },
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant('chargeback' as const),
      pick: fc.nat(),
      percent: fc.integer({ min: 1, max: 100 }),
      next: fc.option(fc.constantFrom('accept' as const, 'win' as const, 'lose' as const)),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant('med' as const),
      pick: fc.nat(),
      reason: fc.constantFrom('fraud' as const, 'operational_flaw' as const),
      next: fc.option(fc.constantFrom('accept' as const, 'win' as const, 'lose' as const)),
    }),
  },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('answer' as const), pick: fc.nat(), how: fc.constantFrom('accept' as const, 'win' as const, 'lose' as const, 'decide' as const) }) },
  {
    // a refund the wallet cannot cover: its charge anticipated, the wallet emptied, another charge pending
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant('agenda' as const),
      amount: fc.integer({ min: 100, max: 200_000 }),
      installments: fc.integer({ min: 1, max: 12 }),
      percent: fc.option(fc.integer({ min: 1, max: 100 })),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant('withdraw' as const),
      amount: fc.integer({ min: 100, max: 200_000 }),
      fail: fc.boolean(),
      // the whole balance: a later refund then takes from the agenda
      all: fc.boolean(),
      sub: fc.option(fc.integer({ min: 0, max: 1 })),
    }),
  },
);

/** Turns weights into split rules over [merchant, sub0, sub1] that add up exactly. */
function splitRules(s: Split, amount: number, subs: string[]): Record<string, unknown> {
  if (s.kind === 'none') return {};
  if (s.kind === 'sub') return { submerchant_id: subs[s.sub] };
  const parties = [null, ...subs].slice(0, s.parts.length);
  const total = s.parts.reduce((a, b) => a + b, 0);
  // liable false on some rules (never on all of them: the charge would be refused)
  const liable = parties.map((_, i) => s.liable[i]!);
  const flags = (i: number) => (liable.some(Boolean) && !liable[i] ? { liable: false } : {});
  if (s.kind === 'pct') {
    const pcts = s.parts.map((p) => Math.floor((p * 10000) / total) / 100);
    pcts[0] = Math.round((100 - pcts.slice(1).reduce((a, b) => a + b, 0)) * 100) / 100;
    return { split_rules: parties.map((id, i) => ({ submerchant_id: id, percentage: pcts[i], ...flags(i) })) };
  }
  const amts = s.parts.map((p) => Math.floor((p * amount) / total));
  amts[0]! += amount - amts.reduce((a, b) => a + b, 0);
  if (amts.some((a) => a < 1)) return {};
  return { split_rules: parties.map((id, i) => ({ submerchant_id: id, amount: amts[i], ...flags(i) })) };
}

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

type Row = Record<string, any>;
const n = (v: unknown) => Number(v ?? 0);

/**
 * Where every cent of every charge is: each receivable's net at capture (its plan) is its net
 * now (none once cancelled) plus what refunds and chargebacks took from it (receivable_deductions);
 * each party gave back exactly its refund share and its chargeback parts, from receivables and
 * from its wallet; each wallet's balance is what it was paid, anticipated, given back and
 * withdrawn; a charge's disputed_amount is its chargebacks not won; every fee is by the rates
 * the charge recorded when it was created.
 */
async function checkConservation(env: TestEnv): Promise<void> {
  const { db } = env.rt.deps;
  const deductions = await db.all<Row>('SELECT receivable_id, wallet_id, amount, reference_type, reference_id FROM receivable_deductions');
  const dedSum = (f: (d: Row) => boolean) => deductions.filter(f).reduce((a, d) => a + n(d.amount), 0);
  // what the buyer pays: the amount, plus the interest of a buyer-interest plan
  for (const c of await db.all<Row>('SELECT id, amount, total_amount, interest_amount FROM charges')) {
    expect(n(c.total_amount), `charge ${c.id}`).toBe(n(c.amount) + n(c.interest_amount));
  }
  // captured_amount: set on capture only; all of the total (what the payer paid, for a charge
  // with a due date) unless the charge was authorised first
  for (const c of await db.all<Row>("SELECT * FROM charges WHERE status NOT IN ('captured', 'refunded')")) {
    expect([c.captured_amount, c.fee_amount, n(c.refunded_amount), n(c.disputed_amount)], `charge ${c.id} (${c.status})`).toEqual([null, null, 0, 0]);
  }
  const charges = await db.all<Row>("SELECT * FROM charges WHERE status IN ('captured', 'refunded')");
  const entries = await db.all<Row>('SELECT wallet_id, direction, amount, reference_type, reference_id FROM wallet_entries');
  const entrySum = (f: (e: Row) => boolean) => entries.filter(f).reduce((a, e) => a + (e.direction === 'credit' ? n(e.amount) : -n(e.amount)), 0);
  const chargebacks = await db.all<Row>('SELECT * FROM chargebacks');
  for (const c of charges) {
    const whole = n(c.paid_amount ?? c.total_amount);
    const captured = n(c.captured_amount);
    expect(captured).toBeGreaterThanOrEqual(1);
    expect(captured).toBeLessThanOrEqual(whole);
    if (c.authorized_at === null) expect(captured).toBe(whole);
    // the fee: a boleto's fixed fee, else the MDR of what was captured
    const rates = JSON.parse(c.pricing) as ChargeRates;
    expect(n(c.fee_amount)).toBe(c.payment_method === 'boleto' ? rates.boleto_fee_amount : percentOf(captured, rates.mdr_bps));
    expect(n(c.net_amount)).toBe(captured - n(c.fee_amount));
    const parties = JSON.parse(c.parties) as StoredParty[];
    const plan = planOf({ method: c.payment_method, installments: n(c.installments), price: salePrice(c.payment_method, rates), gross: captured }, parties);
    expect(plan.fee).toBe(n(c.fee_amount));
    const rs = await db.all<Row>('SELECT * FROM receivables WHERE charge_id = ?', [c.id]);
    expect(rs.reduce((a, r) => a + n(r.fee_amount), 0)).toBe(n(c.fee_amount));
    for (const pp of plan.parties) {
      const walletId = parties[pp.key]!.wallet_id;
      for (const inst of pp.installments) {
        const r = rs.find((x) => x.wallet_id === walletId && n(x.installment) === inst.installment)!;
        const taken = dedSum((d) => d.receivable_id === r.id);
        expect((r.status === 'cancelled' ? 0 : n(r.net_amount)) + taken, `receivable ${r.id}`).toBe(inst.net);
      }
      // refunds: after R of T refunded the party gave back ⌊N × R / T⌋, from receivables and its wallet
      const given = dedSum((d) => d.reference_type === 'refund' && d.reference_id === c.id && d.wallet_id === walletId)
        - entrySum((e) => e.reference_type === 'refund' && e.reference_id === c.id && e.wallet_id === walletId);
      expect(given, `refunds of charge ${c.id} by wallet ${walletId}`).toBe(refundShare(pp.net, 0, n(c.refunded_amount), captured));
    }
    // gross: a cancelled receivable keeps its fee and gave the rest, a reduced one gave what it lost
    const grossNow = rs.reduce((a, r) => a + (r.status === 'cancelled' ? n(r.fee_amount) : n(r.gross_amount)), 0);
    expect(grossNow + dedSum((d) => rs.some((r) => r.id === d.receivable_id))).toBe(captured);
    const mine = chargebacks.filter((cb) => cb.charge_id === c.id);
    expect(n(c.disputed_amount)).toBe(mine.filter((cb) => cb.status !== 'won').reduce((a, cb) => a + n(cb.amount), 0));
    expect(n(c.refunded_amount) + n(c.disputed_amount)).toBeLessThanOrEqual(captured);
    expect(c.status === 'refunded').toBe(n(c.refunded_amount) === captured);
    for (const cb of mine) {
      const shares = chargebackShares(
        n(cb.amount),
        plan.parties.map((pp) => ({ net: pp.net, liable: parties[pp.key]!.liable !== false, takesRemainder: parties[pp.key]!.takes_remainder === true })),
      );
      const liabilities = JSON.parse(cb.liabilities) as Row[];
      expect(liabilities.map((l) => l.amount)).toEqual(shares.filter((_, i) => parties[plan.parties[i]!.key]!.liable !== false));
      for (const l of liabilities) {
        expect(l.from_receivables + l.from_wallet).toBe(l.amount);
        expect(dedSum((d) => d.reference_type === 'chargeback' && d.reference_id === cb.id && d.wallet_id === l.wallet_id)).toBe(l.from_receivables);
        const moved = entrySum((e) => e.reference_type === 'chargeback' && e.reference_id === cb.id && e.wallet_id === l.wallet_id);
        expect(moved, `chargeback ${cb.id} (${cb.status})`).toBe((cb.status === 'won' ? l.amount : 0) - l.from_wallet);
      }
      // a card chargeback of a card charge, a MED of a PIX one; a MED lost or accepted has the
      // return id of its devolução, nothing else has one
      expect(cb.type).toBe(c.payment_method === 'pix' ? 'med' : 'chargeback');
      const returned = cb.type === 'med' && (cb.status === 'lost' || cb.status === 'accepted');
      expect(cb.return_id === null ? null : parsePixId(cb.return_id)?.kind, `chargeback ${cb.id}`).toBe(returned ? 'D' : null);
      // lost or accepted: the fee the charge recorded, debited (nothing when it is 0; a MED has none)
      const owed = (cb.status === 'lost' || cb.status === 'accepted') && cb.type !== 'med' ? rates.chargeback_fee_amount : 0;
      expect(entrySum((e) => e.reference_type === 'chargeback_fee' && e.reference_id === cb.id)).toBe(0 - owed);
      expect(n(cb.fee_amount)).toBe(owed);
    }
  }
  // a PIX charge's refund is a devolução with its return id; no other refund has one; each is unique
  const refunds = await db.all<Row>('SELECT r.return_id, c.payment_method FROM refunds r JOIN charges c ON c.id = r.charge_id');
  for (const r of refunds) expect(r.return_id === null ? null : parsePixId(r.return_id)?.kind).toBe(r.payment_method === 'pix' ? 'D' : null);
  const returnIds = [...refunds.map((r) => r.return_id), ...chargebacks.map((cb) => cb.return_id)].filter((x) => x !== null);
  expect(new Set(returnIds).size).toBe(returnIds.length);
  const orphans = await db.get<{ n: number }>("SELECT COUNT(*) AS n FROM receivables r JOIN charges c ON c.id = r.charge_id WHERE c.status NOT IN ('captured', 'refunded')");
  expect(n(orphans!.n)).toBe(0);
  // a wallet holds the net of its paid receivables and approved anticipations, less what refunds
  // and chargebacks took from it (won ones given back), the chargeback fees and its withdrawals
  const wallets = await db.all<{ id: string; balance: number }>('SELECT id, balance FROM wallets');
  for (const w of wallets) {
    const paid = await db.get<{ n: number }>("SELECT COALESCE(SUM(net_amount), 0) AS n FROM receivables WHERE wallet_id = ? AND status = 'paid'", [w.id]);
    const ant = await db.get<{ n: number }>("SELECT COALESCE(SUM(total_net_amount), 0) AS n FROM anticipations WHERE wallet_id = ? AND status = 'approved'", [w.id]);
    const other = entrySum((e) => e.wallet_id === w.id && ['refund', 'chargeback', 'chargeback_fee', 'withdrawal', 'withdrawal_reversal'].includes(e.reference_type));
    expect(entries.filter((e) => e.wallet_id === w.id && !['charge', 'receivable', 'anticipation', 'refund', 'chargeback', 'chargeback_fee', 'withdrawal', 'withdrawal_reversal'].includes(e.reference_type))).toEqual([]);
    expect(n(w.balance), `wallet ${w.id}`).toBe(n(paid!.n) + n(ant!.n) + other);
  }
  // due work settles at most one batch per request: a request settles min(BATCH, due) of what is
  // due at its instant (the clock does not move during it), no more and no less
  // (unless chargeback work is due too: a dispute may cancel a due receivable before it settles)
  const before = await dueLeft(env);
  const clock = (await env.call('GET', '/v1/merchant')).body.data.clock as string;
  const after = await dueLeft(env);
  expect(after.clock).toBe(clock);
  if (before.chargebacks === 0) expect(after.n).toBe(Math.max(0, before.n - BATCH));
  else expect(after.n).toBeLessThanOrEqual(before.n);
  // and voids as many expired authorisations, in its own batch
  expect(after.expired).toBe(Math.max(0, before.expired - BATCH));
}

/**
 * Receivables due but not settled at the merchant's clock, chargeback moves due then, and
 * authorisations past their 7 days not voided, read from the store (no request, so no due work
 * runs).
 */
async function dueLeft(env: TestEnv): Promise<{ n: number; chargebacks: number; expired: number; clock: string }> {
  const { db } = env.rt.deps;
  const m = await db.get<{ clock_offset_ms: number }>('SELECT clock_offset_ms FROM merchants WHERE id = ?', [env.merchant.merchant_id]);
  const now = new Date(env.clock.now().getTime() + Number(m!.clock_offset_ms));
  const clock = now.toISOString();
  const expired = await db.get<{ n: number }>("SELECT COUNT(*) AS n FROM charges WHERE status = 'authorized' AND authorized_at <= ?", [
    expiredAuthorizationsBefore(now).toISOString(),
  ]);
  const due = await db.get<{ n: number }>("SELECT COUNT(*) AS n FROM receivables WHERE status = 'pending' AND settlement_date <= ?", [clock]);
  const scheduled = await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM chargeback_schedule WHERE due_at <= ?', [clock]);
  const moves = await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM chargebacks WHERE next_action_at <= ?', [clock]);
  return { n: Number(due!.n), chargebacks: Number(scheduled!.n) + Number(moves!.n), expired: Number(expired!.n), clock };
}

/** A wallet's balance as stored. */
async function balance(env: TestEnv, walletId: string): Promise<number> {
  return Number((await env.rt.deps.db.get<{ balance: number }>('SELECT balance FROM wallets WHERE id = ?', [walletId]))!.balance);
}

/**
 * Due work in batches this small (the runtime's due policy) makes a few random requests interleave with
 * settlement the way >100 due receivables do with the production batch: a request settles one
 * batch, writes its own entry at "now", and a later request settles receivables dated earlier.
 */
const BATCH = 2;

describe('ledger invariants under random sequences of money operations', () => {
  it('hold after every operation', async () => {
    // what the runs went through: wallets below zero, settlements paying the debt, refunds from the agenda
    const seen = { negative: 0, debtPaid: 0, agenda: 0, won: 0, lost: 0, contests: 0, cbs: 0, meds: 0, pixRefunds: 0, windowClosed: 0 };
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 20, size: 'medium' }), prices, async (ops, first) => {
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
          const disputed = await tokenize(env, '4000000000000259');
          const walletOf = (sub: number | null) => (sub === null ? env.merchant.wallet_id : walletsOf[sub]!);
          /** a 422 of a withdrawal or an anticipation: negative_balance exactly when the wallet is below zero */
          const refusedBy = async (r: { status: number; body: any }, walletId: string, otherwise: string) => {
            expect(r.status, JSON.stringify(r.body)).toBe(422);
            expect(r.body.error).toBe((await balance(env, walletId)) < 0 ? 'negative_balance' : otherwise);
          };
          const captured = async (method = 'credit_card') =>
            ((await env.call('GET', `/v1/charges?status=captured&payment_method=${method}&per_page=100`)).body.data as Array<Record<string, any>>).map((c) => ({
              id: c.id as string,
              left: (c.captured_amount as number) - (c.refunded_amount as number) - (c.disputed_amount as number),
              paid: (c.due?.paid_on ?? c.captured_at) as string,
            }));
          /** The merchant's São Paulo day now. */
          const today = async () => localDate(new Date((await env.call('GET', '/v1/merchant')).body.data.clock));
          for (const o of ops) {
            let res: { status: number; body: any } | undefined;
            switch (o.t) {
              case 'card':
                res = await env.call(
                  'POST',
                  '/v1/charges',
                  chargeBody(o.amount, {
                    payment_method: 'credit_card',
                    payment_details: { token: o.declined ? declined : o.disputed ? disputed : approved, installments: o.installments, interest: o.interest },
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
              case 'pix': {
                res = await env.call('POST', '/v1/charges', chargeBody(o.amount, { payment_method: 'pix', ...splitRules(o.split, o.amount, subs) }));
                if (res.status === 201 && o.pay) res = await env.call('POST', `/v1/sandbox/charges/${res.body.data.id}/pay`);
                else if (res.status !== 201) expect(res.status, JSON.stringify(res.body)).toBe(400);
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
                if (res.status !== 201) await refusedBy(res, walletOf(o.sub), 'none');
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
                if (res.status !== 201) await refusedBy(res, walletOf(o.sub), 'none');
                // refused only when a receivable's fee, at the rate its charge recorded, would take all of its net
                else if (res.body.data.status !== 'approved') expect(res.body.data.refusal_reason).toMatch(/would take all of its net/);
                break;
              }
              case 'withdraw': {
                const wallet = walletOf(o.sub);
                const held = await balance(env, wallet);
                const asked = o.all && held > 0 && held % 100 !== 99 ? held : o.amount;
                const amount = o.fail ? Math.floor(asked / 100) * 100 + 99 : asked - (asked % 100 === 99 ? 1 : 0); // 99 cents: the payout fails
                res = await env.call('POST', '/v1/withdrawals', {
                  type: 'pix', wallet_id: wallet, amount, pix_key: 'ana@example.com', pix_key_type: 'email',
                  holder_document_type: 'cpf', holder_document: '52998224725', idempotency_key: `w-${++wseq}`,
                  ...(o.sub === null ? {} : { submerchant_id: subs[o.sub] }),
                });
                if (res.status !== 201) await refusedBy(res, wallet, 'insufficient_funds');
                break;
              }
              case 'refund': {
                // half of them among the PIX charges (devoluções), which are fewer than the others
                const list = await env.call('GET', `/v1/charges?status=captured&per_page=100${o.pix ? '&payment_method=pix' : ''}`);
                const cs = list.body.data as Array<Record<string, any>>;
                if (!cs.length) break;
                const c = cs[o.pick % cs.length]!;
                const left = c.captured_amount - c.refunded_amount - c.disputed_amount;
                const body = o.percent === null || left < 1 ? {} : { amount: Math.max(1, Math.floor((left * o.percent) / 100)) };
                const day = await today();
                res = await env.call('POST', `/v1/charges/${c.id}/refund`, body);
                // a PIX past its 90 days; the wallet and the agenda cannot cover it, or chargebacks dispute all that is left
                const closed = c.payment_method === 'pix' && day > lastReturnDay(c.due?.paid_on ?? new Date(c.captured_at));
                if (closed) {
                  expect(res.body.error, JSON.stringify(res.body)).toBe('refund_window_closed');
                  seen.windowClosed++;
                } else if (res.status !== 200) expect(res.body.error, JSON.stringify(res.body)).toBe(left < 1 ? 'business_rule' : 'insufficient_funds');
                else if (c.payment_method === 'pix') seen.pixRefunds++;
                break;
              }
              case 'chargeback': {
                const cs = await captured();
                if (!cs.length) break;
                const c = cs[o.pick % cs.length]!;
                res = await env.call('POST', `/v1/sandbox/charges/${c.id}/chargeback`, c.left < 1 ? {} : { amount: Math.max(1, Math.floor((c.left * o.percent) / 100)) });
                if (c.left < 1) expect(res.body.error, JSON.stringify(res.body)).toBe('business_rule');
                else {
                  expect(res.status, JSON.stringify(res.body)).toBe(201);
                  const id = res.body.data.id as string;
                  if (o.next === 'accept') res = await env.call('POST', `/v1/chargebacks/${id}/accept`);
                  else if (o.next) res = await env.call('POST', `/v1/chargebacks/${id}/contest`, { text: o.next === 'win' ? 'winning_evidence' : 'losing_evidence' });
                  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
                }
                break;
              }
              case 'med': {
                // a captured PIX (with a due date or not) disputed by its payer's institution, all that is left of it
                const cs = await captured('pix');
                if (!cs.length) break;
                const c = cs[o.pick % cs.length]!;
                // paid: the São Paulo day a charge with a due date was paid on, else the moment of its capture
                const paidDay = /^\d{4}-\d{2}-\d{2}$/.test(c.paid) ? c.paid : localDate(new Date(c.paid));
                const late = (await today()) > addDays(paidDay, MED_OPEN_WINDOW_DAYS);
                res = await env.call('POST', `/v1/sandbox/charges/${c.id}/med`, { reason: o.reason });
                if (c.left < 1 || late) expect(res.body.error, JSON.stringify(res.body)).toBe('business_rule');
                else {
                  expect(res.status, JSON.stringify(res.body)).toBe(201);
                  expect(res.body.data).toMatchObject({ type: 'med', amount: c.left, reason: o.reason, fee_amount: 0, return_id: null });
                  const id = res.body.data.id as string;
                  if (o.next === 'accept') res = await env.call('POST', `/v1/chargebacks/${id}/accept`);
                  else if (o.next) res = await env.call('POST', `/v1/chargebacks/${id}/contest`, { text: o.next === 'win' ? 'winning_evidence' : 'losing_evidence' });
                  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
                }
                break;
              }
              case 'agenda': {
                // A (1×) anticipated at once: its receivable no longer pending; B (twice A, pending) is the agenda
                const a = (await env.call('POST', '/v1/charges', chargeBody(o.amount, { payment_method: 'credit_card', payment_details: { token: approved, installments: 1 } }))).body.data;
                const [ra] = (await env.call('GET', `/v1/receivables?charge_id=${a.id}`)).body.data as Array<{ id: string }>;
                const ant = await env.call('POST', '/v1/anticipations', { receivable_ids: [ra!.id] });
                if (ant.status !== 201) await refusedBy(ant, env.merchant.wallet_id, 'none');
                const b = await env.call('POST', '/v1/charges', chargeBody(2 * o.amount, { payment_method: 'credit_card', payment_details: { token: approved, installments: o.installments } }));
                if (b.status !== 201) expect(b.status, JSON.stringify(b.body)).toBe(400); // too small for its installments
                const held = await balance(env, env.merchant.wallet_id);
                if (held > 0) {
                  const w = await env.call('POST', '/v1/withdrawals', {
                    type: 'pix', wallet_id: env.merchant.wallet_id, amount: held % 100 === 99 ? held - 1 : held, pix_key: 'ana@example.com', pix_key_type: 'email',
                    holder_document_type: 'cpf', holder_document: '52998224725', idempotency_key: `w-${++wseq}`,
                  });
                  expect(w.status, JSON.stringify(w.body)).toBe(201);
                }
                res = await env.call('POST', `/v1/charges/${a.id}/refund`, o.percent === null ? {} : { amount: Math.max(1, Math.floor((o.amount * o.percent) / 100)) });
                // B's receivables cover what A's anticipated net and the emptied wallet cannot
                if (b.status === 201) expect(res.status, JSON.stringify(res.body)).toBe(200);
                else if (res.status !== 200) expect(res.body.error, JSON.stringify(res.body)).toBe('insufficient_funds');
                break;
              }
              case 'answer': {
                const cbs = ((await env.call('GET', '/v1/chargebacks?per_page=100')).body.data as Array<Record<string, any>>).filter((x) => x.status === 'open' || x.status === 'under_review');
                if (!cbs.length) break;
                const cb = cbs[o.pick % cbs.length]!;
                if (o.how === 'accept') res = await env.call('POST', `/v1/chargebacks/${cb.id}/accept`);
                else if (o.how === 'decide') res = await env.call('POST', `/v1/sandbox/chargebacks/${cb.id}/decide`);
                else res = await env.call('POST', `/v1/chargebacks/${cb.id}/contest`, { text: o.how === 'win' ? 'winning_evidence' : 'losing_evidence' });
                // 409 when it was in another state (or its window passed in this request's due work)
                expect([200, 409], JSON.stringify(res.body)).toContain(res.status);
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
          // every statement of every wallet reconciles, whatever the interleaving
          // (a last jump lets failed payouts be reversed and due receivables settle)
          await env.call('POST', '/v1/sandbox/clock/advance', { days: 400 });
          expect((await dueLeft(env)).n).toBe(0);
          await checkConservation(env);
          await checkStatements(env);
          const { db } = env.rt.deps;
          const count = async (sql: string) => Number((await db.get<{ n: number }>(sql))!.n);
          if (await count("SELECT COUNT(*) AS n FROM wallet_entries WHERE balance_after < 0 AND direction = 'debit'")) seen.negative++;
          if (await count("SELECT COUNT(*) AS n FROM wallet_entries WHERE direction = 'credit' AND reference_type = 'receivable' AND balance_after - amount < 0")) seen.debtPaid++;
          if (await count("SELECT COUNT(*) AS n FROM receivable_deductions d JOIN receivables r ON r.id = d.receivable_id WHERE d.reference_type = 'refund' AND r.charge_id <> d.reference_id")) seen.agenda++;
          if (await count("SELECT COUNT(*) AS n FROM chargebacks WHERE status = 'won'")) seen.won++;
          seen.contests += await count("SELECT COUNT(*) AS n FROM events WHERE type = 'chargeback.under_review'");
          seen.cbs += await count('SELECT COUNT(*) AS n FROM chargebacks');
          seen.meds += await count("SELECT COUNT(*) AS n FROM chargebacks WHERE type = 'med'");
          if (await count("SELECT COUNT(*) AS n FROM chargebacks WHERE status IN ('lost', 'accepted')")) seen.lost++;
        } finally {
          await env.close();
        }
      }),
      { numRuns: 40 },
    );
    console.log('ledger property runs:', seen);
  }, 240_000);
});
