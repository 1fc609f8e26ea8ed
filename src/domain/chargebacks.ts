/**
 * Chargebacks, pure: the reasons, the windows, the sandbox's decision on a contest,
 * and who gives back what of a disputed amount (docs/api.md, "Chargebacks").
 *
 * - When a chargeback opens, its whole amount is taken back from the liable parties of the
 *   charge (split rules with `liable`, default true). Each liable party gives a part in
 *   proportion to its net at capture; the parties that are not liable give nothing, and their
 *   share of the amount moves to the liable ones in that same proportion. Parts are floored to
 *   the cent and the cents left over go to the remainder party (the rule with
 *   `charge_remainder_fee`, else the first rule) when it is liable, else to the first liable
 *   party — as the fee's cents pass to the first party that bears fees. So the parts add up to
 *   the amount exactly.
 * - The merchant answers within EVIDENCE_WINDOW_DAYS of the opening (its clock): it accepts,
 *   or contests with evidence; silence loses. The sandbox decides a contest
 *   CONTEST_DECISION_DAYS after it, by its text, as Stripe's test mode does: text containing
 *   `winning_evidence` wins, anything else (`losing_evidence` included) loses.
 * - Lost or accepted: the merchant pays the chargeback fee its charge recorded from the pricing
 *   (src/domain/pricing.ts). Won: the parts come back.
 * - A MED (`type: "med"`, a PIX dispute) moves the same way with its own windows: evidence is
 *   taken and the sandbox decides by the same text, both by MED_ANALYSIS_DAYS after the
 *   opening; it charges no fee (the Banco Central's rules set none for a MED).
 */
import { prorate } from './fees.js';
import { assertCents } from './money.js';
import { MED_REASONS } from './pixReturns.js';

export const CHARGEBACK_REASONS = ['fraud', 'not_received', 'not_as_described', 'duplicate', 'credit_not_processed', 'other'] as const;
/** The reasons a dispute may carry: a card chargeback's, and a MED's (src/domain/pixReturns.ts). */
export const DISPUTE_REASONS = [...new Set([...CHARGEBACK_REASONS, ...MED_REASONS])] as [ChargebackReason, ...ChargebackReason[]];
export type ChargebackReason = (typeof CHARGEBACK_REASONS)[number] | (typeof MED_REASONS)[number];

/**
 * A card chargeback (`chargeback`) or a PIX MED (`med`, src/domain/pixReturns.ts): one
 * lifecycle and one money flow; a MED is decided within MED_ANALYSIS_DAYS, has no fee, and
 * once lost or accepted carries the return id of the devolução that gave the money back.
 */
export const CHARGEBACK_TYPES = ['chargeback', 'med'] as const;
export type ChargebackType = (typeof CHARGEBACK_TYPES)[number];

/** Days after the opening (merchant clock) until which evidence is taken; past it an open chargeback is lost. */
export const EVIDENCE_WINDOW_DAYS = 10;
/** Days after a contest (merchant clock) at which the sandbox issuer decides it. */
export const CONTEST_DECISION_DAYS = 3;
/** Evidence text that wins a contest in the sandbox (Stripe's test-mode value). */
export const WINNING_EVIDENCE = 'winning_evidence';
/** Evidence text that loses a contest in the sandbox (any text without WINNING_EVIDENCE loses too). */
export const LOSING_EVIDENCE = 'losing_evidence';
/** The most characters of evidence text, and of files, a contest takes. */
export const MAX_EVIDENCE_TEXT = 20_000;
export const MAX_EVIDENCE_FILES = 10;

/** The sandbox issuer's decision on a contest: won when its text contains `winning_evidence`. */
export function contestOutcome(text: string): 'won' | 'lost' {
  return text.includes(WINNING_EVIDENCE) ? 'won' : 'lost';
}

/** A party of the disputed charge: its net at capture, whether it answers for chargebacks, whether it takes left-over cents. */
export interface ChargebackParty {
  net: number;
  liable: boolean;
  takesRemainder?: boolean;
}

/**
 * What each party gives back of a chargeback of `amount` cents: the liable parties in
 * proportion to their nets (floored), the left-over cents to the remainder party if it is
 * liable, else to the first liable party; parties that are not liable give 0. The parts add
 * up to `amount`. Exact (BigInt, through `prorate`).
 */
export function chargebackShares(amount: number, parties: readonly ChargebackParty[]): number[] {
  assertCents(amount);
  if (amount < 0) throw new RangeError('a chargeback amount cannot be negative');
  const firstLiable = parties.findIndex((p) => p.liable);
  if (firstLiable < 0) throw new RangeError('at least one party must be liable for chargebacks');
  for (const p of parties) {
    assertCents(p.net);
    if (p.net < 0) throw new RangeError('a party net cannot be negative');
  }
  const r = Math.max(0, parties.findIndex((p) => p.takesRemainder));
  const remainder = parties[r]!.liable ? r : firstLiable;
  const weights = parties.map((p) => (p.liable ? p.net : 0));
  if (weights.every((w) => w === 0)) return parties.map((_, i) => (i === remainder ? amount : 0));
  return prorate(amount, weights, remainder);
}
