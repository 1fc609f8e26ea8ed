/**
 * A partial capture scales every split party's share in proportion to the captured amount, with
 * the cents left over to the remainder party; the sale of the scaled shares (planSale, here at
 * the default MDR) is what the receivables, the fee and the refunds of the charge then follow.
 * And an authorisation holds for 7 days of the merchant's clock.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AUTHORIZATION_VALID_DAYS, authorizationExpiresAt, captureShares, expiredAuthorizationsBefore } from '../../src/domain/capture.js';
import { refundShare } from '../../src/domain/fees.js';
import { plan as planAtDefaults } from '../helpers/pricing.js';

describe('captureShares: each share × captured / authorised, floored, the rest to the remainder party', () => {
  it('worked examples', () => {
    // R$ 100,00 split 60/40, R$ 75,00 captured: 4500 and 3000 exactly
    expect(captureShares([6000, 4000], 7500, 0)).toEqual([4500, 3000]);
    // R$ 100,01 split 3334/3333/3334, R$ 50,00 captured: ⌊1666.83⌋ ⌊1666.33⌋ ⌊1666.83⌋ = 1666 each, 2 cents left over
    expect(captureShares([3334, 3333, 3334], 5000, 0)).toEqual([1668, 1666, 1666]);
    // the same with the remainder party third (charge_remainder_fee on the last rule)
    expect(captureShares([3334, 3333, 3334], 5000, 2)).toEqual([1666, 1666, 1668]);
    // 1 cent captured of R$ 100,00 split 50/50: it all goes to the remainder party
    expect(captureShares([5000, 5000], 1, 1)).toEqual([0, 1]);
    // one party: the captured amount itself
    expect(captureShares([10000], 2500, 0)).toEqual([2500]);
    // exact beyond 2^53 in the products: R$ 10.000.000,00 split in three, 1 cent less captured:
    // ⌊333333333.67⌋ ⌊333333332.67⌋ ⌊333333332.67⌋, the 2 cents left over to the first
    expect(captureShares([333_333_334, 333_333_333, 333_333_333], 999_999_999, 0)).toEqual([333_333_335, 333_333_332, 333_333_332]);
  });

  it('capturing all of it leaves the shares as they are', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 10 ** 8 }), { minLength: 1, maxLength: 10 }), fc.nat(), (shares, r) => {
        fc.pre(shares.some((s) => s > 0));
        const total = shares.reduce((a, b) => a + b, 0);
        expect(captureShares(shares, total, r % shares.length)).toEqual(shares);
      }),
    );
  });

  it('the scaled shares add up to the captured amount, each within a cent of its exact proportion (the remainder party within n cents)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 10 ** 8 }), { minLength: 1, maxLength: 10 }), fc.nat(), fc.nat(), (shares, c, r) => {
        const total = shares.reduce((a, b) => a + b, 0);
        const captured = 1 + (c % total);
        const rem = r % shares.length;
        const out = captureShares(shares, captured, rem);
        expect(out.reduce((a, b) => a + b, 0)).toBe(captured);
        out.forEach((s, i) => {
          const exact = (BigInt(shares[i]!) * BigInt(captured)) / BigInt(total);
          if (i !== rem) expect(BigInt(s)).toBe(exact);
          else {
            expect(BigInt(s)).toBeGreaterThanOrEqual(exact);
            expect(BigInt(s) - exact).toBeLessThan(BigInt(shares.length));
          }
        });
      }),
    );
  });

  it('refuses a capture of nothing, of more than the authorisation, or a remainder party that is none of them', () => {
    expect(() => captureShares([6000, 4000], 0, 0)).toThrow(RangeError);
    expect(() => captureShares([6000, 4000], 10001, 0)).toThrow(/1 to 10000/);
    expect(() => captureShares([6000, 4000], 100, 2)).toThrow(RangeError);
    expect(() => captureShares([6000, 4000], 1.5, 0)).toThrow(RangeError);
  });

  it('the sale of the scaled shares: the fee is the MDR of the captured amount, and a full refund of it gives back every net', () => {
    // R$ 200,00 in 3× split 70/30 (remainder: first), R$ 123,45 captured
    const shares = captureShares([14000, 6000], 12345, 0);
    expect(shares).toEqual([8642, 3703]); // ⌊8641.5⌋ + 1 left over, ⌊3703.5⌋
    const plan = planAtDefaults('credit_card', 3, shares.map((share, key) => ({ key, share, bearsFee: true })));
    expect(plan.fee).toBe(431); // 3.49 % of 12345 = 430.84 → 431
    expect(plan.parties.map((p) => p.fee)).toEqual([302, 129]); // ⌊301.6⌋ + 1, ⌊129.4⌋
    expect(plan.parties.flatMap((p) => p.installments.map((i) => i.gross)).reduce((a, b) => a + b, 0)).toBe(12345);
    // refunds of the captured total: halves telescope to the whole net of each party
    for (const p of plan.parties) expect(refundShare(p.net, 0, 6000, 12345) + refundShare(p.net, 6000, 12345, 12345)).toBe(p.net);
  });
});

describe('an authorisation holds for 7 days of the merchant clock', () => {
  it('expires 7 × 24 h after it was made; due when that instant has come', () => {
    expect(AUTHORIZATION_VALID_DAYS).toBe(7);
    const at = new Date('2026-01-15T13:00:00.000Z');
    expect(authorizationExpiresAt(at).toISOString()).toBe('2026-01-22T13:00:00.000Z');
    expect(expiredAuthorizationsBefore(new Date('2026-01-22T13:00:00.000Z')).toISOString()).toBe(at.toISOString());
  });
});
