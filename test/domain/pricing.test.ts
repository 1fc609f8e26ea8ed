/**
 * The pricing document (defaults, validation, merge) and the Price table of installments a buyer
 * pays interest on, to the cent: published worked examples, and an independent exact
 * computation (the annuity as a sum of discounted installments, in rationals over BigInt).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PRICING, mergePricing, parsePricing, PRICING_LIMITS } from '../../src/contract/resources/pricing.js';
import { MAX_CHARGE_AMOUNT } from '../../src/contract/resources/charges.js';
import { CARD_BRANDS } from '../../src/domain/brands.js';
import { buyerPaysInterest, chargeRates, installmentTerms, priceInstallment, salePrice, type InterestTerms } from '../../src/domain/pricing.js';

/**
 * The installment of the Price table by its definition: the value P whose n monthly payments,
 * each discounted to the day of purchase at the monthly rate, add up to the amount:
 * Σ_{k=1..n} P / (1 + i)^k = PV. With i = b / 10000 that is P = PV × (10000 + b)^n / Σ_k 10000^k × (10000 + b)^(n−k),
 * an exact rational; rounded half up to the cent; never below ⌈PV / n⌉ (the documented floor).
 */
function referenceInstallment(pv: number, n: number, b: number): number {
  const PV = BigInt(pv);
  const B = BigInt(b);
  const up = 10_000n + B;
  let sum = 0n;
  for (let k = 1; k <= n; k++) sum += 10_000n ** BigInt(k) * up ** BigInt(n - k);
  const num = PV * up ** BigInt(n);
  const den = sum;
  // round half up: ⌊num/den + 1/2⌋
  const rounded = (2n * num + den) / (2n * den);
  const floor = (PV + BigInt(n) - 1n) / BigInt(n);
  return Number(rounded > floor ? rounded : floor);
}

const buyer = (bps: number, free = 1): InterestTerms => ({ interest: 'buyer', buyer_monthly_interest_bps: bps, free_installments: free });

describe('the Price table (installment = PMT rounded half up to the cent)', () => {
  it.each([
    // "Matemática Financeira — Material Didático", p. 53, Exemplo 01 (HP 12C: 1000 CHS PV 5 i 5 n PMT): R$ 1.000,00 in 5 months at 5 % a.m. → R$ 230,97
    // https://viewer.joomag.com/matemática-financeira-material-didático-matemática-financeira/0339439001512056004/p53
    [100_000, 5, 500, 23_097],
    // the same, p. 54, Exercício 02: R$ 17.450,00 in 4 months at 2,50 % a.m., first payment 30 days after → R$ 4.638,52
    [1_745_000, 4, 250, 463_852],
    // Passei Direto, "Tabela Price e SAC" (spreadsheet): R$ 80.000,00 in 8 months at 1 % a.m. → R$ 10.455,22
    // https://www.passeidireto.com/arquivo/92812089/tabela-price-e-sac/4
    [8_000_000, 8, 100, 1_045_522],
    // the same sheet: R$ 70.000,00 in 5 months at 2 % a.m. → R$ 14.851,09
    [7_000_000, 5, 200, 1_485_109],
    // aprendamatematica.com, "séries uniformes de pagamentos postecipadas": R$ 1.831,88 in 5 months at 3 % a.m. → R$ 400,00
    // http://aprendamatematica.com/site/exercicio-resolvido-sobre-series-uniformes-de-pagamentos-postecipadas/
    [183_188, 5, 300, 40_000],
    // the classic textbook case: R$ 1.000,00 in 3 months at 1 % a.m. → R$ 340,02
    [100_000, 3, 100, 34_002],
  ])('published example: %i cents in %i× at %i bps a month → %i cents', (pv, n, bps, expected) => {
    expect(priceInstallment(pv, n, bps)).toBe(expected);
    expect(referenceInstallment(pv, n, bps)).toBe(expected);
  });

  it('agrees with the exact reference for any amount, installments and rate', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: MAX_CHARGE_AMOUNT }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: PRICING_LIMITS.buyerInterestBps }),
        (pv, n, b) => {
          expect(priceInstallment(pv, n, b)).toBe(referenceInstallment(pv, n, b));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('at the edges: the largest amount at the highest rate in 12×, the smallest rate, 1 installment, 1 cent', () => {
    const edges: Array<[number, number, number]> = [
      [MAX_CHARGE_AMOUNT, 12, PRICING_LIMITS.buyerInterestBps],
      [MAX_CHARGE_AMOUNT, 2, 1],
      [MAX_CHARGE_AMOUNT, 12, 1],
      [1, 12, PRICING_LIMITS.buyerInterestBps],
      [1, 2, 1],
      [10_000, 1, 199],
      [10_000, 12, 199],
    ];
    for (const [pv, n, b] of edges) expect(priceInstallment(pv, n, b), `${pv} ${n} ${b}`).toBe(referenceInstallment(pv, n, b));
    // R$ 10.000.000,00 in 12× at 10 % a month: PMT = 146 763 314.68… → 146 763 315 (a float would still be exact here; the BigInt is for any rate)
    expect(priceInstallment(MAX_CHARGE_AMOUNT, 12, 1000)).toBe(146_763_315);
    // 1 installment is the amount grown by one month: R$ 100,00 at 1.99 % → R$ 101,99
    expect(priceInstallment(10_000, 1, 199)).toBe(10_199);
  });

  it('rounds half up: an exact half cent goes up, less than half goes down', () => {
    // n = 2 at 50 % a month: PMT = PV × 1.5² / (1.5 + 1.5²)… = 0.9 × PV exactly
    expect(priceInstallment(5, 2, 5000)).toBe(5); // 4.5 → 5
    expect(priceInstallment(15, 2, 5000)).toBe(14); // 13.5 → 14
    expect(priceInstallment(6, 2, 5000)).toBe(5); // 5.4 → 5
    expect(priceInstallment(7, 2, 5000)).toBe(6); // 6.3 → 6
  });

  it('never charges less than the amount: a tiny amount at a tiny rate takes ⌈amount / n⌉', () => {
    // R$ 1,00 in 12× at 0.01 % a month: PMT = 8.3378… → 8 would total 96 cents; the floor makes it 9 (108)
    expect(priceInstallment(100, 12, 1)).toBe(9);
    const t = installmentTerms(100, 12, buyer(1));
    expect(t).toMatchObject({ with_interest: true, installment_amount: 9, total_amount: 108, interest_amount: 8 });
  });

  it('the terms: total = installments × value and interest = total − amount, never negative', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MAX_CHARGE_AMOUNT }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 1, max: 12 }), (pv, n, b, free) => {
        const t = installmentTerms(pv, n, buyer(b, free));
        if (b === 0 || n <= free) {
          expect(t).toMatchObject({ with_interest: false, total_amount: pv, interest_amount: 0 });
        } else {
          expect(t.with_interest).toBe(true);
          expect(t.installment_amount).toBe(referenceInstallment(pv, n, b));
          expect(t.total_amount).toBe(n * t.installment_amount);
          expect(t.interest_amount).toBe(t.total_amount - pv);
          expect(t.interest_amount).toBeGreaterThanOrEqual(0);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('R$ 100,00 at the default 1.99 % a month: 12x de R$ 9,45 (total R$ 113,40); up to the free installments, none', () => {
    const terms = buyer(DEFAULT_PRICING.buyer_interest.monthly_bps, DEFAULT_PRICING.buyer_interest.free_installments);
    expect(installmentTerms(10_000, 12, terms)).toEqual({ installments: 12, with_interest: true, installment_amount: 945, total_amount: 11_340, interest_amount: 1_340 });
    expect(installmentTerms(10_000, 1, terms)).toMatchObject({ with_interest: false, total_amount: 10_000 });
    expect(installmentTerms(10_000, 3, buyer(199, 3))).toMatchObject({ with_interest: false, total_amount: 10_000 });
    expect(installmentTerms(10_000, 4, buyer(199, 3))).toMatchObject({ with_interest: true, installment_amount: 2_626, total_amount: 10_504 });
    // the merchant pays: no interest whatever the installments
    expect(installmentTerms(10_000, 12, { interest: 'merchant', buyer_monthly_interest_bps: null, free_installments: null })).toMatchObject({ with_interest: false, total_amount: 10_000 });
    expect(buyerPaysInterest(12, buyer(0))).toBe(false);
  });
});

describe('the rates of a charge', () => {
  it('the MDR of its brand and band, or of PIX; buyer interest only for a card', () => {
    const pricing = parsePricing({ card_mdr_bps: { amex: { installments_1: 350, installments_7_12: 450 } }, pix_mdr_bps: 79 });
    if (!pricing.ok) throw new Error(JSON.stringify(pricing.details));
    const p = pricing.pricing;
    expect(chargeRates(p, 'credit_card', 'amex', 1, 'merchant').mdr_bps).toBe(350);
    expect(chargeRates(p, 'credit_card', 'amex', 3, 'merchant').mdr_bps).toBe(349);
    expect(chargeRates(p, 'credit_card', 'amex', 12, 'merchant').mdr_bps).toBe(450);
    expect(chargeRates(p, 'credit_card', 'visa', 12, 'merchant').mdr_bps).toBe(399);
    expect(chargeRates(p, 'pix', null, 1, 'buyer')).toEqual({
      mdr_bps: 79,
      boleto_fee_amount: null,
      anticipation_monthly_bps: 250,
      chargeback_fee_amount: 1500,
      interest: 'merchant',
      buyer_monthly_interest_bps: null,
      free_installments: null,
    });
    expect(chargeRates(p, 'credit_card', 'elo', 6, 'buyer')).toMatchObject({ mdr_bps: 349, interest: 'buyer', buyer_monthly_interest_bps: 199, free_installments: 1 });
    // a boleto: no MDR, the fixed fee of the pricing, and never buyer interest
    expect(chargeRates({ ...p, boleto_fee_amount: 275 }, 'boleto', null, 1, 'buyer')).toMatchObject({ mdr_bps: 0, boleto_fee_amount: 275, interest: 'merchant' });
    expect(salePrice('boleto', chargeRates({ ...p, boleto_fee_amount: 275 }, 'boleto', null, 1, 'merchant'))).toEqual({ fixedFee: 275 });
    expect(salePrice('pix', chargeRates(p, 'pix', null, 1, 'merchant'))).toEqual({ mdrBps: 79 });
  });
});

describe('the pricing document', () => {
  it("defaults to the contract's figures", () => {
    for (const b of CARD_BRANDS) expect(DEFAULT_PRICING.card_mdr_bps[b]).toEqual({ installments_1: 299, installments_2_6: 349, installments_7_12: 399 });
    expect(DEFAULT_PRICING).toMatchObject({
      pix_mdr_bps: 99,
      anticipation_monthly_bps: 250,
      withdrawal_fees: {
        pix: { fixed_amount: 0, bps: 0, min_amount: 0 },
        ted: { fixed_amount: 367, bps: 0, min_amount: 0 },
        cryptocurrency: { fixed_amount: 0, bps: 100, min_amount: 100 },
      },
      chargeback_fee_amount: 1500,
      boleto_fee_amount: 349,
      buyer_interest: { monthly_bps: 199, free_installments: 1 },
    });
  });

  it('names every unknown field and bad value', () => {
    const r = parsePricing({
      pix_mdr: 99,
      card_mdr_bps: { visa: { installments_1: 2.99 }, maestro: {} },
      withdrawal_fees: { ted: { fixed_amount: -1 } },
      buyer_interest: { free_installments: 13, monthly_bps: '199' },
      anticipation_monthly_bps: 2001,
    });
    expect(r.ok).toBe(false);
    const fields = r.ok ? [] : r.details.map((d) => d.field).sort();
    expect(fields).toEqual(
      [
        'anticipation_monthly_bps',
        'buyer_interest.free_installments',
        'buyer_interest.monthly_bps',
        'card_mdr_bps.maestro',
        'card_mdr_bps.visa.installments_1',
        'pix_mdr',
        'withdrawal_fees.ted.fixed_amount',
      ].sort(),
    );
    const byField = new Map(r.ok ? [] : r.details.map((d) => [d.field, d.message]));
    expect(byField.get('pix_mdr')).toBe('is not a known field');
    expect(byField.get('card_mdr_bps.visa.installments_1')).toMatch(/whole number of basis points/);
    expect(byField.get('anticipation_monthly_bps')).toMatch(/2000/);
    expect(byField.get('buyer_interest.monthly_bps')).toMatch(/send the number without quotes/);
    expect(parsePricing([1]).ok).toBe(false);
    expect(parsePricing(null)).toEqual({ ok: false, details: [{ field: '(document)', message: expect.stringMatching(/JSON object/) }] });
  });

  it('a document names only what it changes: over the defaults, and a merchant over the server', () => {
    const server = parsePricing({ pix_mdr_bps: 89, card_mdr_bps: { visa: { installments_1: 279 } }, buyer_interest: { monthly_bps: 249 } });
    if (!server.ok) throw new Error('server');
    expect(server.pricing.card_mdr_bps.visa).toEqual({ installments_1: 279, installments_2_6: 349, installments_7_12: 399 });
    expect(server.pricing.buyer_interest).toEqual({ monthly_bps: 249, free_installments: 1 });
    const merchant = parsePricing({ card_mdr_bps: { visa: { installments_2_6: 329 } }, buyer_interest: { free_installments: 3 } }, server.pricing);
    if (!merchant.ok) throw new Error('merchant');
    expect(merchant.pricing.pix_mdr_bps).toBe(89);
    expect(merchant.pricing.card_mdr_bps.visa).toEqual({ installments_1: 279, installments_2_6: 329, installments_7_12: 399 });
    expect(merchant.pricing.buyer_interest).toEqual({ monthly_bps: 249, free_installments: 3 });
    expect(mergePricing({ a: { b: 1, c: 2 } }, { a: { c: 3 }, d: 4 })).toEqual({ a: { b: 1, c: 3 }, d: 4 });
    // an override replacing an object with a value is refused, naming it
    const bad = parsePricing({ card_mdr_bps: 299 }, server.pricing);
    expect(bad.ok ? [] : bad.details.map((d) => d.field)).toEqual(['card_mdr_bps']);
  });
});
