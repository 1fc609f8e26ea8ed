/**
 * What a charge with a due date asks on the day it is paid. The rules and their worked examples
 * come from the Banco Central's Manual de Padrões para Iniciação do Pix, Anexo III ("Cobranças
 * para pagamentos com vencimento: criação, alteração e cálculo"), v2.6.2:
 * https://www.bcb.gov.br/content/estabilidadefinanceira/pix/Regulamento_Pix/II_ManualdePadroesparaIniciacaodoPix.pdf
 * Where the manual gives no numbers, the expected values are worked out in the comment beside
 * them, by hand, from its equations.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays, isBusinessDay } from '../../src/domain/calendar.js';
import {
  amountDueOn,
  boletoSettlementDay,
  boletoSettlementInstant,
  dueTermsProblems,
  effectiveDueDate,
  lastPayableDay,
  payableUntil,
  type DueTerms,
} from '../../src/domain/dueAmount.js';

describe('the amount due on the day of payment', () => {
  it('R$ 100,00 paid 5 days late with a 2 % fine and 1 % a month: R$ 102,16', () => {
    // worked example: https://ajuda.kobana.com.br/pt-BR/articles/8843476-multa-e-juros-de-mora
    // "100 x 0,01 = 1,00; (1,00 / 30) x 5 = 0,16 … 100 + 2 + 0,16 = R$102,16"
    const t: DueTerms = { amountCents: 10_000, dueDate: '2026-03-10', fineBps: 200, interestMonthlyBps: 100 };
    expect(amountDueOn(t, '2026-03-15')).toMatchObject({ payable: true, fineCents: 200, interestCents: 16, daysLate: 5, amountDueCents: 10_216 });
  });

  it('the interest factor is truncated to 6 places and the interest to the cent (Anexo III, 2.3.3.2)', () => {
    // R$ 123.456,78 one day late at 1 % a month: factor 0,01 / 30 × 1 = 0,000333333… → 0,000333;
    // 123456,78 × 0,000333 = 41,1111… → R$ 41,11 (the untruncated factor would give R$ 41,15)
    const t: DueTerms = { amountCents: 12_345_678, dueDate: '2026-03-10', interestMonthlyBps: 100 };
    expect(amountDueOn(t, '2026-03-11')).toMatchObject({ interestCents: 4111, fineCents: 0, amountDueCents: 12_345_678 + 4111 });
    // R$ 3.000,00 ten days late at 1 % a month: factor 0,003333 → 9,999 → R$ 9,99 (not R$ 10,00)
    expect(amountDueOn({ amountCents: 300_000, dueDate: '2026-03-10', interestMonthlyBps: 100 }, '2026-03-20').interestCents).toBe(999);
    // the fine is truncated too: 2,5 % of R$ 0,99 = 0,02475 → R$ 0,02
    expect(amountDueOn({ amountCents: 99, dueDate: '2026-03-10', fineBps: 250 }, '2026-03-11').fineCents).toBe(2);
  });

  it('the fine is charged once: the same on the first day late and the 29th', () => {
    const t: DueTerms = { amountCents: 50_000, dueDate: '2026-03-10', fineBps: 200 };
    expect(amountDueOn(t, '2026-03-10')).toMatchObject({ fineCents: 0, amountDueCents: 50_000 });
    expect(amountDueOn(t, '2026-03-11')).toMatchObject({ fineCents: 1000, daysLate: 1, amountDueCents: 51_000 });
    expect(amountDueOn(t, '2026-04-08')).toMatchObject({ fineCents: 1000, daysLate: 29, amountDueCents: 51_000 });
  });

  it('a fixed discount up to its day, inclusive (Anexo III, 2.3.2.1: R$ 300,00 until 2020-12-10)', () => {
    const t: DueTerms = { amountCents: 100_000, dueDate: '2020-12-15', discount: { amountCents: 30_000, until: '2020-12-10' } };
    expect(amountDueOn(t, '2020-12-01')).toMatchObject({ discountCents: 30_000, amountDueCents: 70_000 });
    expect(amountDueOn(t, '2020-12-10')).toMatchObject({ discountCents: 30_000, amountDueCents: 70_000 });
    expect(amountDueOn(t, '2020-12-11')).toMatchObject({ discountCents: 0, amountDueCents: 100_000 });
  });

  it('a due date on a weekend or holiday moves to the next business day, and lateness counts from there', () => {
    // 2026-02-14 is the Saturday before Carnival: the next business day is Ash Wednesday, 2026-02-18
    const t: DueTerms = { amountCents: 100_000, dueDate: '2026-02-14', fineBps: 200, interestMonthlyBps: 300 };
    expect(effectiveDueDate('2026-02-14')).toBe('2026-02-18');
    expect(amountDueOn(t, '2026-02-18')).toMatchObject({ daysLate: 0, fineCents: 0, interestCents: 0, amountDueCents: 100_000 });
    // one day after the moved date: 3 % / 30 × 1 = 0,001 → R$ 1,00; fine R$ 20,00
    expect(amountDueOn(t, '2026-02-19')).toMatchObject({ daysLate: 1, fineCents: 2000, interestCents: 100, amountDueCents: 102_100 });
    // a discount whose day is a Sunday holds until the Monday
    const d: DueTerms = { amountCents: 10_000, dueDate: '2026-03-10', discount: { amountCents: 500, until: '2026-03-08' } };
    expect(amountDueOn(d, '2026-03-09').discountCents).toBe(500);
    expect(amountDueOn(d, '2026-03-10').discountCents).toBe(0);
    expect(effectiveDueDate('2026-03-10')).toBe('2026-03-10');
  });

  it('the last day it may be paid: due date + pay_until_days (default 29), moved to a business day', () => {
    expect(lastPayableDay({ dueDate: '2026-03-10' })).toBe('2026-04-08');
    expect(lastPayableDay({ dueDate: '2026-03-10', payUntilDays: 59 })).toBe('2026-05-08');
    // 2026-03-05 + 29 = 2026-04-03, Good Friday → Monday 2026-04-06
    expect(lastPayableDay({ dueDate: '2026-03-05' })).toBe('2026-04-06');
    // pay_until_days 0 on a Saturday: still payable until the Monday
    expect(lastPayableDay({ dueDate: '2026-03-14', payUntilDays: 0 })).toBe('2026-03-16');
    const t: DueTerms = { amountCents: 10_000, dueDate: '2026-03-10', fineBps: 200 };
    expect(amountDueOn(t, '2026-04-08').payable).toBe(true);
    expect(amountDueOn(t, '2026-04-09')).toMatchObject({ payable: false, amountDueCents: 0, lastPayableDay: '2026-04-08' });
    // expires_at: the first instant of the day after, São Paulo midnight (03:00 UTC)
    expect(payableUntil({ dueDate: '2026-03-10' }).toISOString()).toBe('2026-04-09T03:00:00.000Z');
  });

  it('settles on the next business day after the payment\'s São Paulo day (D+1)', () => {
    expect(boletoSettlementDay(new Date('2026-03-10T15:00:00Z'))).toBe('2026-03-11'); // Tuesday → Wednesday
    expect(boletoSettlementDay(new Date('2026-03-13T15:00:00Z'))).toBe('2026-03-16'); // Friday → Monday
    expect(boletoSettlementDay(new Date('2026-03-14T15:00:00Z'))).toBe('2026-03-16'); // Saturday → Monday
    expect(boletoSettlementDay(new Date('2026-02-13T15:00:00Z'))).toBe('2026-02-18'); // Friday before Carnival → Ash Wednesday
    // 23:30 on Monday in São Paulo is 02:30 UTC on Tuesday: the payment's day is Monday
    expect(boletoSettlementDay(new Date('2026-03-10T02:30:00Z'))).toBe('2026-03-10');
    expect(boletoSettlementInstant(new Date('2026-03-13T15:00:00Z')).toISOString()).toBe('2026-03-16T03:00:00.000Z');
  });
});

describe('checking the terms', () => {
  const today = '2026-03-01';
  const ok: DueTerms = { amountCents: 10_000, dueDate: '2026-03-10', fineBps: 200, interestMonthlyBps: 100, discount: { amountCents: 500, until: '2026-03-05' }, payUntilDays: 29 };

  it('accepts good terms, including the bounds', () => {
    expect(dueTermsProblems(ok, today)).toEqual([]);
    expect(dueTermsProblems({ amountCents: 10_000, dueDate: today }, today)).toEqual([]);
    expect(dueTermsProblems({ ...ok, dueDate: addDays(today, 365), payUntilDays: 59, fineBps: 10_000, interestMonthlyBps: 0 }, today)).toEqual([]);
    expect(dueTermsProblems({ ...ok, discount: { amountCents: 9_999, until: '2026-03-10' } }, today)).toEqual([]);
  });

  it('names each field that is wrong and what is allowed', () => {
    const fields = (t: DueTerms) => dueTermsProblems(t, today).map((p) => p.field);
    // a wrong due date is named once: the discount's day is not blamed for it
    expect(dueTermsProblems({ ...ok, dueDate: '2026-02-28' }, today)).toEqual([
      { field: 'due_date', message: 'must be a São Paulo calendar day (YYYY-MM-DD) from 2026-03-01 to 2027-03-01' },
    ]);
    expect(fields({ ...ok, dueDate: '2027-03-02' })).toContain('due_date');
    expect(fields({ ...ok, dueDate: '2026-02-30' })).toContain('due_date');
    expect(fields({ ...ok, fineBps: 10_001 })).toEqual(['fine']);
    expect(fields({ ...ok, fineBps: 1.5 })).toEqual(['fine']);
    expect(fields({ ...ok, interestMonthlyBps: -1 })).toEqual(['interest']);
    expect(fields({ ...ok, discount: { amountCents: 10_000, until: '2026-03-05' } })).toEqual(['discount.amount']);
    expect(fields({ ...ok, discount: { amountCents: 0, until: '2026-03-05' } })).toEqual(['discount.amount']);
    expect(dueTermsProblems({ ...ok, amountCents: 1, discount: { amountCents: 1, until: '2026-03-05' } }, today)).toEqual([
      { field: 'discount.amount', message: 'cannot be given on an amount of 1 cent' },
    ]);
    expect(dueTermsProblems({ ...ok, discount: { amountCents: 500, until: '2026-03-11' } }, today)).toEqual([
      { field: 'discount.until', message: 'must be a São Paulo calendar day (YYYY-MM-DD) from 2026-03-01 to the due date (2026-03-10)' },
    ]);
    expect(fields({ ...ok, discount: { amountCents: 500, until: '2026-02-28' } })).toEqual(['discount.until']);
    expect(fields({ ...ok, payUntilDays: 60 })).toEqual(['pay_until_days']);
    expect(fields({ ...ok, payUntilDays: -1 })).toEqual(['pay_until_days']);
  });
});

describe('properties', () => {
  const day = fc.integer({ min: 0, max: 3650 }).map((n) => addDays('2026-01-01', n));
  const terms = fc.record({
    amountCents: fc.integer({ min: 1, max: 9_999_999_999 }),
    dueDate: day,
    fineBps: fc.integer({ min: 0, max: 10_000 }),
    interestMonthlyBps: fc.integer({ min: 0, max: 10_000 }),
    payUntilDays: fc.integer({ min: 0, max: 59 }),
  });

  it('on time, the amount (less a discount in force); late, the amount + fine + interest, interest never above the rate', () => {
    fc.assert(
      fc.property(terms, fc.integer({ min: -30, max: 70 }), (t, offset) => {
        const payDay = addDays(t.dueDate, offset);
        const r = amountDueOn(t, payDay);
        const last = lastPayableDay(t);
        expect(isBusinessDay(last)).toBe(true);
        expect(r.payable).toBe(payDay <= last);
        if (!r.payable) return;
        expect(r.amountDueCents).toBe(t.amountCents - r.discountCents + r.fineCents + r.interestCents);
        if (payDay <= effectiveDueDate(t.dueDate)) {
          expect(r).toMatchObject({ daysLate: 0, fineCents: 0, interestCents: 0 });
        } else {
          expect(r.fineCents).toBe(Math.floor((t.amountCents * t.fineBps) / 10_000));
          // truncation: never more than amount × rate × days, and less by under a cent plus the factor's 10⁻⁶
          const exact = (BigInt(t.amountCents) * BigInt(t.interestMonthlyBps) * BigInt(r.daysLate)) / 300_000n;
          expect(BigInt(r.interestCents) <= exact).toBe(true);
          expect(Number(exact) - r.interestCents).toBeLessThanOrEqual(1 + Math.ceil(t.amountCents / 1_000_000));
        }
      }),
    );
  });

  it('each later day asks no less than the one before', () => {
    fc.assert(
      fc.property(terms, (t) => {
        let before = 0;
        for (let d = 0; d <= 70; d++) {
          const r = amountDueOn(t, addDays(t.dueDate, d));
          if (!r.payable) break;
          expect(r.amountDueCents).toBeGreaterThanOrEqual(before);
          before = r.amountDueCents;
        }
      }),
      { numRuns: 50 },
    );
  });
});
