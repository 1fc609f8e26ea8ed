/**
 * The money rules of a sale, pure and in integer cents (rates in basis points, 1/10000):
 * the MDR by payment method and installments, how a charge divides among its split parties,
 * how each party's share and fee spread over installments, and the anticipation fee.
 *
 * Every rate is a parameter: the figures come from the pricing document (src/domain/pricing.ts,
 * its defaults and the rates a charge records), and a charge keeps the ones it was created
 * with, so these functions never read a price of their own.
 *
 * Rules (contract, Money):
 * - Card MDR by installment band (1×, 2–6×, 7–12×) and brand; PIX one rate. A boleto pays no MDR
 *   but a fixed fee per paid boleto.
 * - A fee is MDR × amount, rounded half up to the cent (`percentOf`), computed once on the
 *   whole charge: however a charge is split, its fee is the fee of the unsplit charge.
 * - Split (`splitShares`, `planSale`): the gross and the fee are each divided among the parties
 *   in proportion (floored to the cent), and the cents left over go to one party, the remainder
 *   party: the rule with `charge_remainder_fee` true, else the first rule. So the parts always
 *   add up to the whole gross and the whole fee exactly. A party that does not bear fees passes
 *   its part of the fee (left-over cents included) to the first party that does.
 * - Installment remainders go to the first installment (`splitInstallments`), for the gross
 *   and for the fee alike; net = gross − fee per installment.
 * - Card installment n settles 30 × n days after capture, on a São Paulo banking business day
 *   (the day itself and the move past weekends and holidays: src/domain/calendar.ts); PIX at once;
 *   a boleto on the next business day after the day it was paid (D+1 compensation).
 * - Anticipation fee per receivable = net × the monthly rate / 30 × calendar days until its
 *   (moved) settlement day, rounded half up.
 */
import { assertCents, percentOf, splitInstallments } from './money.js';

export type PaymentMethod = 'credit_card' | 'pix' | 'boleto';

export const MAX_INSTALLMENTS = 12;
/** R$ 10.000.000,00: keeps amount × rate exact in integer arithmetic with room to spare. One cap
 *  for every way money is charged: POST /v1/charges, a payment link's amount (create and
 *  update), and the hosted checkout's payment. */
export const MAX_CHARGE_AMOUNT = 1_000_000_000;
/** A boleto's payment settles this many days after the day it was paid, moved to a business day (D+1). */
export const BOLETO_SETTLEMENT_DAYS = 1;
export const SETTLEMENT_DAYS_PER_INSTALLMENT = 30;
export const DAY_MS = 86_400_000;

/** A card MDR per installment band, in basis points: 1×, 2–6× and 7–12×. */
export interface MdrBands {
  installments_1: number;
  installments_2_6: number;
  installments_7_12: number;
}

/** The band of `bands` that a number of installments (1–12) falls in. */
export function cardMdrBps(bands: MdrBands, installments: number): number {
  if (!Number.isInteger(installments) || installments < 1 || installments > MAX_INSTALLMENTS) {
    throw new RangeError(`installments must be 1 to ${MAX_INSTALLMENTS}`);
  }
  if (installments === 1) return bands.installments_1;
  if (installments <= 6) return bands.installments_2_6;
  return bands.installments_7_12;
}

/**
 * What a sale's fee is: an MDR in basis points of its total (card, PIX), or a fixed fee in cents
 * whatever the total (a boleto's). The figures come from the rates the charge recorded.
 */
export type SalePrice = { mdrBps: number } | { fixedFee: number };

/** The fee of a whole sale of `total` cents: its MDR rounded half up, or its fixed fee. */
function saleFee(total: number, price: SalePrice): number {
  if ('fixedFee' in price) {
    assertCents(price.fixedFee);
    return price.fixedFee;
  }
  assertBps(price.mdrBps);
  return percentOf(total, price.mdrBps);
}

/** One split rule, already validated: a fixed amount or a percentage in basis points (100 % = 10000). */
export type ShareRule = { amount: number } | { percentageBps: number };

/**
 * Divides a charge amount among split rules. Fixed amounts are taken as given (they must add
 * up to the amount); percentages are floored to the cent and the remainder goes to the
 * remainder party (`remainderIndex`, default the first rule), so the shares always add up to
 * the amount exactly.
 */
export function splitShares(amount: number, rules: readonly ShareRule[], remainderIndex = 0): number[] {
  assertCents(amount);
  if (rules.length === 0) return [amount];
  if (!Number.isInteger(remainderIndex) || remainderIndex < 0 || remainderIndex >= rules.length) {
    throw new RangeError('remainderIndex must name one of the rules');
  }
  const shares = rules.map((r) => ('amount' in r ? r.amount : Number((BigInt(amount) * BigInt(r.percentageBps)) / 10000n)));
  if (rules.every((r) => 'percentageBps' in r)) {
    shares[remainderIndex]! += amount - shares.reduce((a, b) => a + b, 0);
  }
  if (shares.reduce((a, b) => a + b, 0) !== amount) throw new PlanError('split shares do not add up to the amount');
  return shares;
}

export interface PartyInput<K> {
  key: K;
  share: number;
  /** false: this party's fee is paid by the first party that bears fees */
  bearsFee: boolean;
  /** true on at most one party: it takes the cents left over when the fee is divided (default: the first party) */
  takesRemainder?: boolean;
}

export interface InstallmentPlan {
  installment: number;
  gross: number;
  fee: number;
  net: number;
  /** nominal days after the capture's day (30 × n; the calendar moves it to a business day) */
  settlementDays: number;
}

export interface PartyPlan<K> {
  key: K;
  share: number;
  fee: number;
  net: number;
  installments: InstallmentPlan[];
}

export interface SalePlan<K> {
  mdrBps: number;
  fee: number;
  net: number;
  parties: PartyPlan<K>[];
}

export class PlanError extends Error {}

/** A rate in basis points: a whole number from 0 to 10000 (100 %). */
export function assertBps(bps: number): void {
  if (!Number.isInteger(bps) || bps < 0 || bps > 10_000) throw new RangeError(`a rate must be whole basis points from 0 to 10000, got ${bps}`);
}

/**
 * Divides `whole` among parties in proportion to their weights (which add up to `total`):
 * each part is floored to the cent and the cents left over go to `remainderIndex`, so the
 * parts add up to `whole` exactly. Exact integer arithmetic (BigInt) for any cents value.
 */
export function prorate(whole: number, weights: readonly number[], remainderIndex: number): number[] {
  assertCents(whole);
  const total = weights.reduce((a, b) => a + b, 0);
  if (total <= 0) throw new RangeError('the weights must add up to more than 0');
  const parts = weights.map((w) => Number((BigInt(whole) * BigInt(w)) / BigInt(total)));
  parts[remainderIndex]! += whole - parts.reduce((a, b) => a + b, 0);
  return parts;
}

/**
 * The receivables of a captured sale: for every party and installment, gross, fee and net.
 * The fee is the whole sale's (`price`: its MDR of the total, or a boleto's fixed fee), computed
 * once, then divided among the parties in proportion to their shares (floored; the cents left
 * over go to the remainder party: the one with `takesRemainder`, else the first). A party that does not bear fees passes its part to
 * the first party that does. Each party's gross and fee are spread over the installments with
 * the remainder on the first; card installment n settles 30 × n days after capture, PIX at once, a
 * boleto the business day after the day it was paid.
 * So Σ fees = the whole fee and Σ gross = the whole amount, to the cent.
 * Throws PlanError if some receivable would net less than one cent.
 */
export function planSale<K>(method: PaymentMethod, installments: number, parties: readonly PartyInput<K>[], price: SalePrice): SalePlan<K> {
  const bps = 'mdrBps' in price ? price.mdrBps : 0;
  const n = method === 'credit_card' ? installments : 1;
  if (parties.length === 0) throw new PlanError('a sale needs at least one party');
  const liable = parties.findIndex((p) => p.bearsFee);
  if (liable < 0) throw new PlanError('at least one split party must bear the processing fee');
  if (parties.filter((p) => p.takesRemainder).length > 1) throw new PlanError('at most one split party may take the remainder');
  for (const p of parties) {
    assertCents(p.share);
    if (p.share < 0) throw new PlanError('a share cannot be negative');
  }
  const total = parties.reduce((a, p) => a + p.share, 0);
  if (total < 1) throw new PlanError('a sale must be of at least 1 cent');
  const fee = saleFee(total, price);
  const remainder = Math.max(0, parties.findIndex((p) => p.takesRemainder));
  const parts = prorate(
    fee,
    parties.map((p) => p.share),
    remainder,
  );
  const fees = parties.map(() => 0);
  parties.forEach((p, i) => {
    fees[p.bearsFee ? i : liable]! += parts[i]!;
  });
  const out: PartyPlan<K>[] = parties.map((p, i) => {
    const partyFee = fees[i]!;
    const gross = splitInstallments(p.share, n);
    const feeParts = splitInstallments(partyFee, n);
    const inst = gross.map((g, j) => ({
      installment: j + 1,
      gross: g,
      fee: feeParts[j]!,
      net: g - feeParts[j]!,
      settlementDays: method === 'pix' ? 0 : method === 'boleto' ? BOLETO_SETTLEMENT_DAYS : SETTLEMENT_DAYS_PER_INSTALLMENT * (j + 1),
    }));
    for (const x of inst) {
      if (x.gross < 1 || x.net < 1) {
        throw new PlanError(
          method === 'credit_card'
            ? `the share of ${p.share} cents is too small for ${n} installment(s) after a fee of ${partyFee} cents: every installment must net at least 1 cent`
            : `the share of ${p.share} cents does not cover its part of the fee (${partyFee} cents): every party must net at least 1 cent`,
        );
      }
    }
    return { key: p.key, share: p.share, fee: partyFee, net: p.share - partyFee, installments: inst };
  });
  return { mdrBps: bps, fee, net: total - fee, parties: out };
}

/** net × `monthlyBps` / 30 × days, rounded half up to the cent (exact integer arithmetic). */
export function anticipationFee(net: number, days: number, monthlyBps: number): number {
  assertCents(net);
  assertBps(monthlyBps);
  if (!Number.isInteger(days) || days < 0) throw new RangeError('days must be a non-negative integer');
  const num = BigInt(net) * BigInt(monthlyBps) * BigInt(days);
  const den = 10000n * 30n;
  return Number((num * 2n + den) / (2n * den));
}

/**
 * What a party whose net at capture is `net` gives back when the refunded total of a charge
 * whose captured amount is `total` cents goes from `before` to `after`:
 * ⌊net × after / total⌋ − ⌊net × before / total⌋.
 * The parts of successive refunds telescope, so after refunds adding up to R the party has given
 * back exactly ⌊net × R / total⌋, and a full refund takes all of its net. Exact (BigInt).
 */
export function refundShare(net: number, before: number, after: number, total: number): number {
  assertCents(net);
  for (const v of [before, after, total]) assertCents(v);
  if (total < 1) throw new RangeError('total must be at least 1 cent');
  if (before > after || after > total) throw new RangeError('refunded totals must satisfy 0 ≤ before ≤ after ≤ total');
  const n = BigInt(net);
  const t = BigInt(total);
  return Number((n * BigInt(after)) / t - (n * BigInt(before)) / t);
}
