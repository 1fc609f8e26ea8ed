/**
 * Authorise now, capture later: the rules of a card charge created with `capture: false`, pure
 * and in integer cents.
 *
 * - An authorisation holds for AUTHORIZATION_VALID_DAYS days of the merchant's clock; one not
 *   captured by then is voided (`void_reason: "expired"`). A void asked for is `"requested"`.
 * - A charge is captured once, for 1 cent up to the authorised amount; the rest of the
 *   authorisation is released.
 * - On a partial capture every split party's share scales in proportion to the captured
 *   amount, floored to the cent, and the cents left over go to the remainder party (the one
 *   that takes the remainder, else the first), so the shares add up to the captured amount
 *   exactly. The fee, the installments and the receivables are then those of a sale of the
 *   scaled shares (src/domain/fees.ts planSale).
 */
import { DAY_MS, prorate } from './fees.js';
import { assertCents } from './money.js';

/** Days of the merchant's clock an authorisation may be captured in. */
export const AUTHORIZATION_VALID_DAYS = 7;

/** Why an authorised charge was voided: the merchant asked, or the authorisation expired. */
export const VOID_REASONS = ['requested', 'expired'] as const;
export type VoidReason = (typeof VOID_REASONS)[number];

/** The instant an authorisation made at `authorizedAt` expires (AUTHORIZATION_VALID_DAYS × 24 h later). */
export function authorizationExpiresAt(authorizedAt: Date): Date {
  return new Date(authorizedAt.getTime() + AUTHORIZATION_VALID_DAYS * DAY_MS);
}

/** The latest authorisation instant that has expired at `now`: authorisations at or before it are due to be voided. */
export function expiredAuthorizationsBefore(now: Date): Date {
  return new Date(now.getTime() - AUTHORIZATION_VALID_DAYS * DAY_MS);
}

/**
 * The parties' shares of a capture of `captured` cents of an authorisation whose shares are
 * `shares` (they add up to the authorised amount): each share × captured / authorised, floored,
 * and the cents left over to `remainderIndex`. Capturing all of it gives the shares unchanged.
 * Exact integer arithmetic. Throws RangeError unless 1 ≤ captured ≤ Σ shares.
 */
export function captureShares(shares: readonly number[], captured: number, remainderIndex: number): number[] {
  assertCents(captured);
  for (const s of shares) {
    assertCents(s);
    if (s < 0) throw new RangeError('a share cannot be negative');
  }
  if (!Number.isInteger(remainderIndex) || remainderIndex < 0 || remainderIndex >= shares.length) {
    throw new RangeError('remainderIndex must name one of the shares');
  }
  const authorized = shares.reduce((a, b) => a + b, 0);
  if (captured < 1 || captured > authorized) throw new RangeError(`the captured amount must be 1 to ${authorized} cents, got ${captured}`);
  return prorate(captured, shares, remainderIndex);
}
