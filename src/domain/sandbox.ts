/**
 * The sandbox acquirer's magic values, in one place: the server decides with them and
 * `mpay sandbox values` lists them. Any Luhn-valid card number not listed here is approved.
 */
import type { ChargebackReason } from './chargebacks.js';
import { luhnValid } from './luhn.js';
import { addDays, startOfDay } from './calendar.js';
import { effectiveDueDate, lastPayableDay, type DueTerms } from './dueAmount.js';

/** A card the sandbox acquirer declines. */
export interface DeclinedTestCard {
  number: string;
  outcome: 'declined';
  failure_code: 'card_declined' | 'insufficient_funds';
  failure_reason: string;
}

/** A card the sandbox acquirer approves whose captured charges the cardholder disputes later (due work, merchant clock). */
export interface DisputedTestCard {
  number: string;
  outcome: 'disputed';
  reason: ChargebackReason;
  /** whole days after the capture */
  dispute_after_days: number;
}

export type TestCard = DeclinedTestCard | DisputedTestCard;

/** What the sandbox does later with an approved card's captured charge: a chargeback of all that is left of it. */
export interface LaterDispute {
  reason: ChargebackReason;
  after_days: number;
}

export const TEST_CARDS: readonly TestCard[] = [
  { number: '4000000000000002', outcome: 'declined', failure_code: 'card_declined', failure_reason: 'The card was declined by the issuer' },
  {
    number: '4000000000009995',
    outcome: 'declined',
    failure_code: 'insufficient_funds',
    failure_reason: 'The card has insufficient funds',
  },
  // Stripe's dispute test cards (docs.stripe.com/testing#disputes): fraudulent, product not received
  { number: '4000000000000259', outcome: 'disputed', reason: 'fraud', dispute_after_days: 1 },
  { number: '4000000000002685', outcome: 'disputed', reason: 'not_received', dispute_after_days: 7 },
];

/** Numbers that are approved (any other Luhn-valid number is approved too). */
export const APPROVED_TEST_CARDS: readonly string[] = ['4111111111111111', '5555555555554444', '6362970000457013', '378282246310005'];

export type CardDecision =
  | { approved: true; dispute?: LaterDispute }
  | { approved: false; failure_code: string; failure_reason: string };

export function decideCard(number: string, expired = false): CardDecision {
  const magic = TEST_CARDS.find((c) => c.number === number);
  if (magic?.outcome === 'declined') return { approved: false, failure_code: magic.failure_code, failure_reason: magic.failure_reason };
  if (!luhnValid(number)) return { approved: false, failure_code: 'invalid_card', failure_reason: 'The card number is not valid' };
  if (expired) return { approved: false, failure_code: 'expired_card', failure_reason: 'The card has expired' };
  return magic ? { approved: true, dispute: { reason: magic.reason, after_days: magic.dispute_after_days } } : { approved: true };
}

/**
 * What production does in the sandbox acquirer's place: this service has no real card acquirer,
 * so a production server refuses card charges (422 `acquirer_unavailable`, nothing written)
 * instead of approving any Luhn-valid number. PIX charges are still taken.
 */
export const ACQUIRER_UNAVAILABLE = {
  failure_code: 'acquirer_unavailable',
  failure_reason: 'No card acquirer is connected to this production server: card charges are refused; take PIX instead',
} as const;

/** PIX in the sandbox: pending until POST /v1/sandbox/charges/{id}/pay; expires after this long. */
export const PIX_DEFAULT_EXPIRES_IN_S = 3600;
export const PIX_MIN_EXPIRES_IN_S = 60;
export const PIX_MAX_EXPIRES_IN_S = 30 * 86_400;
/** What an unpaid PIX charge becomes when its BR Code expires (merchant clock). */
export const PIX_EXPIRED = { failure_code: 'pix_expired', failure_reason: 'The PIX BR Code expired before it was paid' } as const;
/** Host of the (sandbox) dynamic BR Code location. */
export const PIX_LOCATION_HOST = 'pix.sandbox.mpay.dev';
/** BR Code field 60 when the receiving seller has no address on file (merchants never do). */
export const PIX_DEFAULT_CITY = 'SAO PAULO';

/**
 * Payers of a charge with a due date (a boleto, or PIX with a due date) that act by themselves in
 * the sandbox, chosen by the local part of `customer.email` (case-insensitive): any other payer
 * pays only when told to (POST /v1/sandbox/charges/{id}/pay), or never.
 * - `…pays_late@…`: due work pays the charge SANDBOX_LATE_DAYS calendar days after its (moved)
 *   due date, at 10:00 São Paulo time, with the fine and the interest of that day; on its last
 *   payable day instead when that comes sooner.
 * - `…never_pays@…`: the charge cannot be paid, not even by the sandbox's pay operation (422):
 *   it expires unpaid.
 */
export const DUE_PAYERS = [
  { suffix: 'pays_late', outcome: 'captured', detail: 'paid by itself, late: fine and interest added' },
  { suffix: 'never_pays', outcome: 'expired', detail: 'never paid: the sandbox pay operation refuses it and it expires' },
] as const;
export type DuePayer = (typeof DUE_PAYERS)[number]['suffix'];
export const SANDBOX_LATE_DAYS = 5;
/** The hour (São Paulo) a late payer pays at. */
export const SANDBOX_LATE_PAY_HOUR = 10;
export const NEVER_PAYS_REASON = 'This payer never pays (sandbox: customer.email ends in never_pays@); the charge expires unpaid';

/** The magic payer of a customer e-mail, or null. */
export function duePayerOf(email: string): DuePayer | null {
  const local = email.slice(0, email.lastIndexOf('@')).toLowerCase();
  return DUE_PAYERS.find((p) => local.endsWith(p.suffix))?.suffix ?? null;
}

/** When a `pays_late` payer pays: SANDBOX_LATE_DAYS after the effective due date, or its last payable day if sooner, at 10:00. */
export function sandboxLatePayment(t: Pick<DueTerms, 'dueDate' | 'payUntilDays'>): Date {
  // the earlier of the two days (YYYY-MM-DD strings sort as dates)
  const [day] = [addDays(effectiveDueDate(t.dueDate), SANDBOX_LATE_DAYS), lastPayableDay(t)].sort();
  return new Date(startOfDay(day!).getTime() + SANDBOX_LATE_PAY_HOUR * 3_600_000);
}
