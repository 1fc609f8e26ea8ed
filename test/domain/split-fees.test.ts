/**
 * The fee of a split charge is the MDR of the whole charge, computed once, and
 * divided among the parties so that the parts add up to it exactly (and the gross likewise);
 * the cents left over go to the remainder party (charge_remainder_fee, else the first rule).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitShares, type PartyInput, type PaymentMethod } from '../../src/domain/fees.js';
import { defaultMdr, plan } from '../helpers/pricing.js';
import { percentOf } from '../../src/domain/money.js';

const parties = (shares: number[], extra: Partial<PartyInput<number>>[] = []): PartyInput<number>[] =>
  shares.map((share, i) => ({ key: i, share, bearsFee: true, ...extra[i] }));

describe('the fee of a split charge is the fee of the whole charge', () => {
  it('10001 in 1×: 299 unsplit, and 299 split 33.33/33.33/33.34 (the 2 cents left over to the first rule)', () => {
    expect(plan('credit_card', 1, parties([10001])).fee).toBe(299);
    const shares = splitShares(10001, [{ percentageBps: 3333 }, { percentageBps: 3333 }, { percentageBps: 3334 }]);
    expect(shares).toEqual([3334, 3333, 3334]);
    const p = plan('credit_card', 1, parties(shares));
    expect(p.fee).toBe(299);
    // 299 × 3334 / 10001 = 99.67 → 99; 299 × 3333 / 10001 = 99.64 → 99; left over 2 → first
    expect(p.parties.map((x) => x.fee)).toEqual([101, 99, 99]);
    expect(p.parties.reduce((a, x) => a + x.fee, 0)).toBe(299);
    expect(p.net).toBe(10001 - 299);
  });

  it('100 in 1×: 3 unsplit, and 3 split 50/50 (2 + 1)', () => {
    expect(plan('credit_card', 1, parties([100])).fee).toBe(3);
    const p = plan('credit_card', 1, parties([50, 50]));
    expect(p.fee).toBe(3);
    expect(p.parties.map((x) => x.fee)).toEqual([2, 1]);
  });

  it('the remainder party (charge_remainder_fee) takes the cents left over, of the fee and of the gross', () => {
    const shares = splitShares(10001, [{ percentageBps: 3333 }, { percentageBps: 3333 }, { percentageBps: 3334 }], 2);
    expect(shares).toEqual([3333, 3333, 3335]);
    const p = plan('credit_card', 1, parties(shares, [{}, {}, { takesRemainder: true }]));
    expect(p.parties.map((x) => x.fee)).toEqual([99, 99, 101]);
    expect(plan('credit_card', 1, parties([50, 50], [{}, { takesRemainder: true }])).parties.map((x) => x.fee)).toEqual([1, 2]);
  });

  it('a party that does not bear fees passes its part (left-over cents included) to the first that does', () => {
    const p = plan('credit_card', 1, parties([50, 50], [{ bearsFee: false, takesRemainder: true }, {}]));
    expect(p.parties.map((x) => x.fee)).toEqual([0, 3]);
    const q = plan('credit_card', 1, parties([7000, 3000], [{}, { bearsFee: false }]));
    expect(q.parties.map((x) => [x.fee, x.net])).toEqual([
      [299, 6701],
      [0, 3000],
    ]);
  });

  it('with installments: the whole fee at the installment MDR, every receivable adding up to it', () => {
    const p = plan('credit_card', 3, parties([3334, 3333, 3334]));
    expect(p.fee).toBe(percentOf(10001, 349)); // 349.03 → 349
    const all = p.parties.flatMap((x) => x.installments);
    expect(all.reduce((a, x) => a + x.fee, 0)).toBe(349);
    expect(all.reduce((a, x) => a + x.gross, 0)).toBe(10001);
  });

  it('property: for random amounts, splits and installments the parts add up to the whole fee and the whole gross', () => {
    const arb = fc
      .record({
        method: fc.constantFrom<PaymentMethod>('credit_card', 'pix'),
        installments: fc.integer({ min: 1, max: 12 }),
        amount: fc.integer({ min: 1, max: 1_000_000_000 }),
        weights: fc.array(fc.integer({ min: 1, max: 10_000 }), { minLength: 1, maxLength: 10 }),
        remainder: fc.nat(),
        notBearing: fc.array(fc.boolean(), { minLength: 10, maxLength: 10 }),
      })
      .map((r) => {
        // percentages in basis points adding up to 10000 (the last rule takes what is left)
        const sum = r.weights.reduce((a, b) => a + b, 0);
        const bps = r.weights.map((w) => Math.floor((w * 10000) / sum));
        bps[bps.length - 1]! += 10000 - bps.reduce((a, b) => a + b, 0);
        return { ...r, bps, remainder: r.remainder % r.weights.length };
      });
    fc.assert(
      fc.property(arb, ({ method, installments, amount, bps, remainder, notBearing }) => {
        const n = method === 'pix' ? 1 : installments;
        const shares = splitShares(
          amount,
          bps.map((b) => ({ percentageBps: b })),
          remainder,
        );
        expect(shares.reduce((a, b) => a + b, 0)).toBe(amount);
        const input = parties(
          shares,
          shares.map((_, i) => ({ takesRemainder: i === remainder, bearsFee: i === 0 || !notBearing[i] })),
        );
        let p;
        try {
          p = plan(method, n, input);
        } catch {
          return; // a share too small for its installments is refused; nothing to add up
        }
        const whole = percentOf(amount, defaultMdr(method, n));
        expect(p.fee).toBe(whole);
        expect(p.parties.reduce((a, x) => a + x.fee, 0)).toBe(whole);
        const all = p.parties.flatMap((x) => x.installments);
        expect(all.reduce((a, x) => a + x.fee, 0)).toBe(whole);
        expect(all.reduce((a, x) => a + x.gross, 0)).toBe(amount);
        expect(all.reduce((a, x) => a + x.net, 0)).toBe(amount - whole);
        input.forEach((party, i) => {
          if (!party.bearsFee) expect(p.parties[i]!.fee).toBe(0);
        });
      }),
      { numRuns: 500 },
    );
  });
});
