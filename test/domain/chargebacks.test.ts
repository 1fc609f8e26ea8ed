import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { drawDown } from '../../src/domain/agenda.js';
import { chargebackShares, contestOutcome } from '../../src/domain/chargebacks.js';
import { planSale } from '../../src/domain/fees.js';

describe('chargebackShares: who gives back what of a disputed amount', () => {
  it('one party gives back the whole amount, more than its net: the MDR is not returned', () => {
    // R$ 100,00 in 1×: fee 299, net 9701; the cardholder takes back all 10000
    expect(chargebackShares(10000, [{ net: 9701, liable: true }])).toEqual([10000]);
  });

  it('worked example: 60/30/10 split, the 10 % party not liable; its share moves to the others by their nets', () => {
    // R$ 100,00 in 1× split 60/30/10 %: the fee 299 divides 179/89/29 floored, the 2 cents left
    // to the first rule → fees 181/89/29, nets 5819/2911/971
    const plan = planSale('credit_card', 1, [
      { key: 'merchant', share: 6000, bearsFee: true },
      { key: 'subA', share: 3000, bearsFee: true },
      { key: 'subB', share: 1000, bearsFee: true },
    ], { mdrBps: 299 });
    expect(plan.parties.map((p) => p.net)).toEqual([5819, 2911, 971]);
    // liable weights 5819 and 2911 (8730): ⌊10000 × 5819 / 8730⌋ = 6665, ⌊10000 × 2911 / 8730⌋ = 3334,
    // the cent left over to the remainder party (the first rule) → 6666, 3334, and 0 for subB
    const parts = chargebackShares(
      10000,
      plan.parties.map((p) => ({ net: p.net, liable: p.key !== 'subB' })),
    );
    expect(parts).toEqual([6666, 3334, 0]);
  });

  it('the left-over cents go to the remainder party when it is liable, else to the first liable party', () => {
    const parties = [
      { net: 1, liable: true },
      { net: 1, liable: true },
      { net: 1, liable: true, takesRemainder: true },
    ];
    expect(chargebackShares(100, parties)).toEqual([33, 33, 34]);
    expect(chargebackShares(100, [{ ...parties[0]!, liable: false }, parties[1]!, { ...parties[2]!, liable: false }])).toEqual([0, 100, 0]);
    expect(chargebackShares(101, [{ net: 1, liable: false }, { net: 1, liable: true }, { net: 1, liable: true, takesRemainder: false }])).toEqual([0, 51, 50]);
  });

  it('refuses a charge with no liable party, and amounts that are not cents', () => {
    expect(() => chargebackShares(100, [{ net: 50, liable: false }])).toThrow(/liable/);
    expect(() => chargebackShares(1.5, [{ net: 50, liable: true }])).toThrow(RangeError);
    expect(() => chargebackShares(-1, [{ net: 50, liable: true }])).toThrow(RangeError);
  });

  it('the parts add up to the amount, liable parties only, each in proportion within a cent', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000_000 }),
        fc.array(fc.record({ net: fc.integer({ min: 1, max: 1_000_000_000 }), liable: fc.boolean() }), { minLength: 1, maxLength: 10 }),
        fc.nat(),
        (amount, ps, r) => {
          fc.pre(ps.some((p) => p.liable));
          const parties = ps.map((p, i) => ({ ...p, takesRemainder: i === r % ps.length }));
          const parts = chargebackShares(amount, parties);
          expect(parts.reduce((a, b) => a + b, 0)).toBe(amount);
          const weight = parties.reduce((a, p) => a + (p.liable ? p.net : 0), 0);
          parties.forEach((p, i) => {
            if (!p.liable) expect(parts[i]).toBe(0);
            else {
              // ⌊amount × net / weight⌋, plus at most the left-over cents (fewer than the parties)
              const floor = Number((BigInt(amount) * BigInt(p.net)) / BigInt(weight));
              expect(parts[i]! - floor).toBeGreaterThanOrEqual(0);
              expect(parts[i]! - floor).toBeLessThan(parties.length);
            }
          });
        },
      ),
    );
  });
});

describe('drawDown: a part taken from the agenda, in order, before the wallet', () => {
  it('takes whole nets while more is owed, then what is still owed; the rest goes to the wallet', () => {
    expect(drawDown(5000, [3217, 3217, 3217])).toEqual({ taken: [3217, 1783, 0], rest: 0 });
    expect(drawDown(10000, [3217, 3217, 3217])).toEqual({ taken: [3217, 3217, 3217], rest: 349 });
    expect(drawDown(0, [10])).toEqual({ taken: [0], rest: 0 });
    expect(drawDown(7, [])).toEqual({ taken: [], rest: 7 });
    expect(() => drawDown(-1, [])).toThrow(RangeError);
  });
});

describe('the sandbox issuer', () => {
  it('decides a contest by its text, as Stripe test mode does', () => {
    expect(contestOutcome('winning_evidence')).toBe('won');
    expect(contestOutcome('Entrega assinada. winning_evidence')).toBe('won');
    expect(contestOutcome('losing_evidence')).toBe('lost');
    expect(contestOutcome('Entrega assinada pelo comprador')).toBe('lost');
    expect(contestOutcome('WINNING_EVIDENCE')).toBe('lost');
  });
});
