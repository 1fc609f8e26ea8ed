import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { refundShare } from '../../src/domain/fees.js';

describe('refundShare: ⌊net × after / total⌋ − ⌊net × before / total⌋', () => {
  it('worked examples', () => {
    // a charge of R$ 100,00 whose party netted R$ 97,01 (1×, 2.99 %)
    expect(refundShare(9701, 0, 3000, 10000)).toBe(2910); // ⌊9701 × 0.3⌋ = ⌊2910.3⌋
    expect(refundShare(9701, 3000, 10000, 10000)).toBe(9701 - 2910);
    // R$ 0,03 refunded three times of a R$ 0,10 charge netting 7 cents: 2, then 2, then 2 (⌊7·3/10⌋=2, ⌊7·6/10⌋=4, ⌊7·9/10⌋=6)
    expect([refundShare(7, 0, 3, 10), refundShare(7, 3, 6, 10), refundShare(7, 6, 9, 10), refundShare(7, 9, 10, 10)]).toEqual([2, 2, 2, 1]);
    // exact beyond 2^53 in the products: R$ 10.000.000,00 charges
    expect(refundShare(999_999_999, 1, 999_999_999, 1_000_000_000)).toBe(999_999_998 - 0);
  });

  it('refuses totals out of order', () => {
    expect(() => refundShare(100, 5, 4, 10)).toThrow(RangeError);
    expect(() => refundShare(100, 0, 11, 10)).toThrow(RangeError);
    expect(() => refundShare(100, 0, 0, 0)).toThrow(RangeError);
    expect(() => refundShare(1.5, 0, 1, 10)).toThrow();
  });

  it('any sequence of partial refunds gives back exactly ⌊net × R / total⌋, and all of the net when complete', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10 ** 9 }), fc.integer({ min: 0, max: 10 ** 9 }), fc.array(fc.integer({ min: 1, max: 10 ** 6 }), { maxLength: 20 }), (total, rawNet, steps) => {
        const net = rawNet % (total + 1);
        let before = 0;
        let given = 0;
        for (const s of steps) {
          const after = Math.min(total, before + s);
          const part = refundShare(net, before, after, total);
          expect(part).toBeGreaterThanOrEqual(0);
          given += part;
          before = after;
          expect(BigInt(given)).toBe((BigInt(net) * BigInt(before)) / BigInt(total));
        }
        expect(given + refundShare(net, before, total, total)).toBe(net);
      }),
    );
  });
});
