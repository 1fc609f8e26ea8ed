import { describe, expect, it } from 'vitest';
import { anticipationFee, cardMdrBps, planSale, PlanError, splitShares } from '../../src/domain/fees.js';
import { DEFAULT_PRICING } from '../../src/contract/resources/pricing.js';
import { ANTICIPATION_BPS, plan } from '../helpers/pricing.js';
import { buildBrCode, crc16ccitt, parseBrCode } from '../../src/domain/brcode.js';
import { decideCard, TEST_CARDS } from '../../src/domain/sandbox.js';

const single = (share: number) => [{ key: 'm', share, bearsFee: true }];

describe('MDR and installments (worked examples)', () => {
  it('rates by installments: 1× 2.99 %, 2–6× 3.49 %, 7–12× 3.99 %', () => {
    const visa = DEFAULT_PRICING.card_mdr_bps.visa;
    expect([1, 2, 6, 7, 12].map((n) => cardMdrBps(visa, n))).toEqual([299, 349, 349, 399, 399]);
    expect(() => cardMdrBps(visa, 0)).toThrow();
    expect(() => cardMdrBps(visa, 13)).toThrow();
    // the band is read from the bands given, not from a table of its own
    expect([1, 2, 7].map((n) => cardMdrBps({ installments_1: 150, installments_2_6: 250, installments_7_12: 350 }, n))).toEqual([150, 250, 350]);
  });

  it('R$ 100,00 in 1×: fee R$ 2,99, one receivable at +30 days', () => {
    const p = plan('credit_card', 1, single(10000));
    expect(p).toMatchObject({ fee: 299, net: 9701 });
    expect(p.parties[0]!.installments).toEqual([{ installment: 1, gross: 10000, fee: 299, net: 9701, settlementDays: 30 }]);
  });

  it('R$ 100,00 in 3×: fee 3.49 % = R$ 3,49; gross 33,34 + 33,33 + 33,33; fee 1,17 + 1,16 + 1,16 (remainders on the first)', () => {
    const p = plan('credit_card', 3, single(10000));
    expect(p.fee).toBe(349);
    expect(p.parties[0]!.installments).toEqual([
      { installment: 1, gross: 3334, fee: 117, net: 3217, settlementDays: 30 },
      { installment: 2, gross: 3333, fee: 116, net: 3217, settlementDays: 60 },
      { installment: 3, gross: 3333, fee: 116, net: 3217, settlementDays: 90 },
    ]);
  });

  it('R$ 1.000,00 in 12×: fee 3.99 % = R$ 39,90; first installment carries both remainders', () => {
    const p = plan('credit_card', 12, single(100000));
    const inst = p.parties[0]!.installments;
    expect(p.fee).toBe(3990);
    expect(inst[0]).toMatchObject({ gross: 8337, fee: 338, net: 7999 });
    for (const x of inst.slice(1)) expect(x).toMatchObject({ gross: 8333, fee: 332, net: 8001 });
    expect(inst.reduce((a, x) => a + x.net, 0)).toBe(100000 - 3990);
    expect(inst.map((x) => x.settlementDays)).toEqual(Array.from({ length: 12 }, (_, i) => 30 * (i + 1)));
  });

  it('rounds half up to the cent: R$ 50,00 × 2.99 % = 149.5 → 150; PIX R$ 50,00 × 0.99 % = 49.5 → 50; R$ 100,50 × 0.99 % = 99.495 → 99', () => {
    expect(plan('credit_card', 1, single(5000)).fee).toBe(150);
    expect(plan('pix', 1, single(5000)).fee).toBe(50);
    expect(plan('pix', 1, single(10050)).fee).toBe(99);
    expect(plan('credit_card', 1, single(10)).fee).toBe(0);
  });

  it('a paid boleto: a fixed fee (R$ 3,49 by default) whatever the amount, one receivable settling D+1', () => {
    expect(DEFAULT_PRICING.boleto_fee_amount).toBe(349);
    for (const amount of [350, 10000, 1_000_000_000]) {
      const p = plan('boleto', 1, single(amount));
      expect(p).toMatchObject({ mdrBps: 0, fee: 349, net: amount - 349 });
      expect(p.parties[0]!.installments).toEqual([{ installment: 1, gross: amount, fee: 349, net: amount - 349, settlementDays: 1 }]);
    }
    // split 70/30: the fixed fee is divided like any fee (floored, the cent left over to the first party)
    const split = plan('boleto', 1, [
      { key: 'a', share: 7000, bearsFee: true },
      { key: 'b', share: 3000, bearsFee: true },
    ]);
    expect(split.parties.map((x) => [x.fee, x.net])).toEqual([
      [245, 6755],
      [104, 2896],
    ]);
    // a boleto that would net nothing after its fee cannot be planned
    expect(() => plan('boleto', 1, single(349))).toThrow(PlanError);
    // the fee is the one given, not a figure of its own
    expect(planSale('boleto', 1, single(10000), { fixedFee: 500 })).toMatchObject({ fee: 500, net: 9500 });
    expect(() => planSale('boleto', 1, single(500), { fixedFee: 500 })).toThrow(PlanError);
  });

  it('PIX settles at once in one receivable whatever the installments', () => {
    const p = plan('pix', 1, single(10000));
    expect(p.parties[0]!.installments).toEqual([{ installment: 1, gross: 10000, fee: 99, net: 9901, settlementDays: 0 }]);
  });

  it('split: the whole fee divided in proportion to the shares; charge_processing_fee false passes it to the first party that bears fees', () => {
    const both = plan('credit_card', 1, [
      { key: 'a', share: 7000, bearsFee: true },
      { key: 'b', share: 3000, bearsFee: true },
    ]);
    // whole fee 10000 × 2.99 % = 299; 299 × 70 % = 209.3 → 209; 299 × 30 % = 89.7 → 89; 1 left over → first
    expect(both.parties.map((p) => p.fee)).toEqual([210, 89]);
    const passed = plan('credit_card', 1, [
      { key: 'a', share: 7000, bearsFee: true },
      { key: 'b', share: 3000, bearsFee: false },
    ]);
    expect(passed.parties.map((p) => [p.fee, p.net])).toEqual([
      [299, 6701],
      [0, 3000],
    ]);
    expect(() => plan('credit_card', 1, [{ key: 'a', share: 100, bearsFee: false }])).toThrow(PlanError);
  });

  it('refuses a share too small for its installments', () => {
    expect(() => plan('credit_card', 3, single(2))).toThrow(PlanError);
    expect(plan('credit_card', 3, single(3)).parties[0]!.installments.map((x) => x.net)).toEqual([1, 1, 1]);
  });

  it('percentage shares are floored with the remainder on the first rule', () => {
    expect(splitShares(10001, [{ percentageBps: 3333 }, { percentageBps: 3333 }, { percentageBps: 3334 }])).toEqual([3334, 3333, 3334]);
    expect(splitShares(999, [{ percentageBps: 5000 }, { percentageBps: 5000 }])).toEqual([500, 499]);
    expect(splitShares(1000, [{ amount: 600 }, { amount: 400 }])).toEqual([600, 400]);
    expect(() => splitShares(1000, [{ amount: 600 }, { amount: 300 }])).toThrow(PlanError);
  });
});

describe('anticipation fee (net × 2.5 % / 30 × days, half up)', () => {
  it('worked examples', () => {
    // 9701 × 2.5 % = 242.525 → 243 for 30 days
    expect(anticipationFee(9701, 30, ANTICIPATION_BPS)).toBe(243);
    // 3217 × 2.5 % / 30 × 60 = 160.85 → 161
    expect(anticipationFee(3217, 60, ANTICIPATION_BPS)).toBe(161);
    // exactly half a cent rounds up; just under half rounds down
    expect(anticipationFee(600, 1, ANTICIPATION_BPS)).toBe(1);
    expect(anticipationFee(599, 1, ANTICIPATION_BPS)).toBe(0);
    expect(anticipationFee(6000, 1, ANTICIPATION_BPS)).toBe(5);
    expect(anticipationFee(10000, 0, ANTICIPATION_BPS)).toBe(0);
    // another rate: 9701 × 1.8 % = 174.618 → 175 for 30 days
    expect(anticipationFee(9701, 30, 180)).toBe(175);
  });
});

describe('PIX BR Code', () => {
  it('CRC16-CCITT (0x1021, init 0xFFFF): the standard check value and the BCB example', () => {
    expect(crc16ccitt('123456789')).toBe('29B1');
    const example =
      '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***6304';
    expect(crc16ccitt(example)).toBe('1D3D');
  });

  it('builds a dynamic payload whose fields and CRC check out', () => {
    const code = buildBrCode({ location: 'pix.example.com/v2/abc', amountCents: 123456, merchantName: 'Padaria São João Ltda', merchantCity: 'São Paulo' });
    const { fields, crcValid } = parseBrCode(code);
    expect(crcValid).toBe(true);
    expect(fields).toMatchObject({ '00': '01', '01': '12', '52': '0000', '53': '986', '54': '1234.56', '58': 'BR', '59': 'PADARIA SAO JOAO LTDA', '60': 'SAO PAULO' });
    expect(fields['26']).toBe('0014br.gov.bcb.pix2522pix.example.com/v2/abc');
    expect(fields['62']).toBe('0503***'); // dynamic: the txid travels in the location (BCB manual)
    const tampered = code.replace('1234.56', '1234.57');
    expect(parseBrCode(tampered).crcValid).toBe(false);
  });
});

describe('sandbox test cards', () => {
  it('declines the two magic numbers and approves any other Luhn-valid number', () => {
    expect(TEST_CARDS.filter((c) => c.outcome === 'declined').map((c) => [c.number, c.failure_code])).toEqual([
      ['4000000000000002', 'card_declined'],
      ['4000000000009995', 'insufficient_funds'],
    ]);
    expect(decideCard('4000000000000002')).toMatchObject({ approved: false, failure_code: 'card_declined' });
    expect(decideCard('4000000000009995')).toMatchObject({ approved: false, failure_code: 'insufficient_funds' });
    expect(decideCard('5555555555554444')).toEqual({ approved: true });
    expect(decideCard('4111111111111112')).toMatchObject({ approved: false, failure_code: 'invalid_card' });
    expect(decideCard('4111111111111111', true)).toMatchObject({ approved: false, failure_code: 'expired_card' });
  });

  it("approves Stripe's two dispute cards and says when their charges are disputed", () => {
    expect(decideCard('4000000000000259')).toEqual({ approved: true, dispute: { reason: 'fraud', after_days: 1 } });
    expect(decideCard('4000000000002685')).toEqual({ approved: true, dispute: { reason: 'not_received', after_days: 7 } });
    // an expired dispute card is declined like any expired card
    expect(decideCard('4000000000000259', true)).toMatchObject({ approved: false, failure_code: 'expired_card' });
  });
});
