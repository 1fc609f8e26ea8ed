/**
 * The sandbox acquirer's magic values, in one place: the server decides with them and
 * `mpay sandbox values` lists them. Any Luhn-valid card number not listed here is approved.
 */
import { luhnValid } from './luhn.js';

export interface TestCard {
  number: string;
  outcome: 'declined';
  failure_code: 'card_declined' | 'insufficient_funds';
  failure_reason: string;
}

export const TEST_CARDS: readonly TestCard[] = [
  { number: '4000000000000002', outcome: 'declined', failure_code: 'card_declined', failure_reason: 'The card was declined by the issuer' },
  {
    number: '4000000000009995',
    outcome: 'declined',
    failure_code: 'insufficient_funds',
    failure_reason: 'The card has insufficient funds',
  },
];

/** Numbers that are approved (any other Luhn-valid number is approved too). */
export const APPROVED_TEST_CARDS: readonly string[] = ['4111111111111111', '5555555555554444', '6362970000457013', '378282246310005'];

export type CardDecision =
  | { approved: true }
  | { approved: false; failure_code: string; failure_reason: string };

export function decideCard(number: string, expired = false): CardDecision {
  const magic = TEST_CARDS.find((c) => c.number === number);
  if (magic) return { approved: false, failure_code: magic.failure_code, failure_reason: magic.failure_reason };
  if (!luhnValid(number)) return { approved: false, failure_code: 'invalid_card', failure_reason: 'The card number is not valid' };
  if (expired) return { approved: false, failure_code: 'expired_card', failure_reason: 'The card has expired' };
  return { approved: true };
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
