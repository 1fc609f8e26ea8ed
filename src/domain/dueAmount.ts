/**
 * What a charge with a due date (a boleto, or PIX with a due date) asks on the day it is paid,
 * pure and in integer cents: the discount before the due date, the fine and the interest after
 * it, the last day it may be paid, and when the paid amount settles. Days are São Paulo calendar
 * days (YYYY-MM-DD, src/domain/calendar.ts).
 *
 * The rules follow the Banco Central's "Cobranças para pagamentos com vencimento: criação,
 * alteração e cálculo" (Manual de Padrões para Iniciação do Pix, Anexo III, sections 2.2–2.3),
 * which the PSP of a PIX charge with a due date must apply, and which matches how banks treat a
 * boleto (Lei 7.089/1983 art. 1: no interest on a title due on a Saturday, Sunday or holiday that
 * is paid on the next business day):
 *
 * - A due date on a weekend or a national holiday moves to the next business day: a payment on
 *   or before that day is on time, with no fine and no interest (`effectiveDueDate`).
 * - Amount due = amount − discount + fine + interest.
 * - Discount: a fixed amount, on a payment on or before `discount.until` (itself moved to the
 *   next business day when it falls on one that is not), which is on or before the due date.
 * - Fine: `fineBps` of the amount, charged once when the payment is a day or more late,
 *   truncated to the cent (Vm = Vo × Im / 100, "truncado com duas casas decimais").
 * - Interest: `interestMonthlyBps` per 30 days, simple, pro rata per calendar day after the
 *   (moved) due date. The factor bps / 10000 / 30 × days is truncated to 6 decimal places and
 *   the interest amount × factor truncated to the cent, as the Anexo III prescribes
 *   (Vj = Vo × (Ij/100)/30 × Dc). Truncation never charges the payer a cent more than the rate.
 * - Last day it may be paid: the due date + `payUntilDays` calendar days (default 29, at most
 *   59), moved to the next business day when it is not one ("validadeAposVencimento"). After it
 *   the charge can no longer be paid.
 * - A boleto's payment settles on the next business day after the day it was paid (D+1
 *   compensation).
 *
 * Only national holidays count (calendar.ts): the Anexo III moves dates for the payer's state and
 * municipal holidays too, which the sandbox does not know.
 */
import { addDays, daysBetween, localDate, nextBusinessDay, startOfDay } from './calendar.js';
import { assertCents } from './money.js';
import { isRealDate } from './brazil.js';

export const DEFAULT_PAY_UNTIL_DAYS = 29;
export const MAX_PAY_UNTIL_DAYS = 59;
/** How far ahead a due date may be: today … today + 365. */
export const MAX_DUE_DAYS_AHEAD = 365;
/** 100 %: the most a fine, or a month's interest, may be (in basis points). */
export const MAX_FINE_BPS = 10_000;
export const MAX_INTEREST_MONTHLY_BPS = 10_000;
/** Days in the month of a monthly interest rate (Anexo III: n = 30 for calendar days). */
export const INTEREST_DAYS_PER_MONTH = 30;

export interface DueTerms {
  /** the charge's amount, cents ≥ 1 */
  amountCents: number;
  /** payment_details.due_date */
  dueDate: string;
  /** payment_details.fine: percent of the amount in basis points, charged once after the due date */
  fineBps?: number;
  /** payment_details.interest: monthly percent in basis points, pro rata per calendar day late */
  interestMonthlyBps?: number;
  /** payment_details.discount: `amount` (cents) off on a payment on or before `until` */
  discount?: { amountCents: number; until: string } | null;
  /** payment_details.pay_until_days: default 29 */
  payUntilDays?: number;
}

export interface TermsProblem {
  /** the field under payment_details: due_date, fine, interest, discount.amount, discount.until, pay_until_days */
  field: string;
  message: string;
}

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);

/**
 * Why the terms of a charge created on `today` are refused, one entry per field (empty when they
 * are fine): due_date today … today + 365; fine and interest 0 … 10000 bps; discount.amount
 * 1 … amount − 1; discount.until today … due_date; pay_until_days 0 … 59.
 */
export function dueTermsProblems(t: DueTerms, today: string): TermsProblem[] {
  const out: TermsProblem[] = [];
  const lastDue = addDays(today, MAX_DUE_DAYS_AHEAD);
  const dueOk = isRealDate(t.dueDate) && t.dueDate >= today && t.dueDate <= lastDue;
  if (!dueOk) out.push({ field: 'due_date', message: `must be a São Paulo calendar day (YYYY-MM-DD) from ${today} to ${lastDue}` });
  if (t.fineBps !== undefined && !(isInt(t.fineBps) && t.fineBps >= 0 && t.fineBps <= MAX_FINE_BPS)) {
    out.push({ field: 'fine', message: `must be an integer percentage in basis points from 0 to ${MAX_FINE_BPS} (200 = 2 %)` });
  }
  if (t.interestMonthlyBps !== undefined && !(isInt(t.interestMonthlyBps) && t.interestMonthlyBps >= 0 && t.interestMonthlyBps <= MAX_INTEREST_MONTHLY_BPS)) {
    out.push({ field: 'interest', message: `must be an integer monthly percentage in basis points from 0 to ${MAX_INTEREST_MONTHLY_BPS} (100 = 1 % a month)` });
  }
  if (t.discount) {
    const { amountCents, until } = t.discount;
    if (!(isInt(amountCents) && amountCents >= 1 && amountCents < t.amountCents)) {
      out.push({
        field: 'discount.amount',
        message: t.amountCents > 1 ? `must be an integer number of cents from 1 to ${t.amountCents - 1} (less than the amount)` : 'cannot be given on an amount of 1 cent',
      });
    }
    if (!(isRealDate(until) && until >= today && (!dueOk || until <= t.dueDate))) {
      out.push({ field: 'discount.until', message: `must be a São Paulo calendar day (YYYY-MM-DD) from ${today} to the due date${dueOk ? ` (${t.dueDate})` : ''}` });
    }
  }
  if (t.payUntilDays !== undefined && !(isInt(t.payUntilDays) && t.payUntilDays >= 0 && t.payUntilDays <= MAX_PAY_UNTIL_DAYS)) {
    out.push({ field: 'pay_until_days', message: `must be an integer number of days from 0 to ${MAX_PAY_UNTIL_DAYS} (default ${DEFAULT_PAY_UNTIL_DAYS})` });
  }
  return out;
}

/** The day lateness counts from: the due date, or the next business day when it is not one. */
export function effectiveDueDate(dueDate: string): string {
  return nextBusinessDay(dueDate);
}

/** The last day the charge may be paid: due date + pay_until_days, moved to a business day. */
export function lastPayableDay(t: Pick<DueTerms, 'dueDate' | 'payUntilDays'>): string {
  return nextBusinessDay(addDays(t.dueDate, t.payUntilDays ?? DEFAULT_PAY_UNTIL_DAYS));
}

/** The charge's `expires_at`: the first instant after its last payable day (São Paulo midnight). */
export function payableUntil(t: Pick<DueTerms, 'dueDate' | 'payUntilDays'>): Date {
  return startOfDay(addDays(lastPayableDay(t), 1));
}

export interface AmountDue {
  /** false: the day is after the last payable day, and nothing is due (the charge has expired) */
  payable: boolean;
  /** what the payer must pay that day: amount − discount + fine + interest */
  amountDueCents: number;
  discountCents: number;
  fineCents: number;
  interestCents: number;
  /** calendar days after the effective due date (0 when on time) */
  daysLate: number;
  effectiveDueDate: string;
  lastPayableDay: string;
}

/**
 * What is due on a payment made on `payDay` (the São Paulo day of the payment: `localDate(paidAt)`).
 * A day after the last payable day answers `payable: false` with zero amounts.
 */
export function amountDueOn(t: DueTerms, payDay: string): AmountDue {
  assertCents(t.amountCents);
  if (t.amountCents < 1) throw new RangeError('the amount must be at least 1 cent');
  if (!isRealDate(payDay)) throw new RangeError(`not a date (YYYY-MM-DD): ${payDay}`);
  const due = effectiveDueDate(t.dueDate);
  const last = lastPayableDay(t);
  if (payDay > last) {
    return { payable: false, amountDueCents: 0, discountCents: 0, fineCents: 0, interestCents: 0, daysLate: daysBetween(due, payDay), effectiveDueDate: due, lastPayableDay: last };
  }
  const discountCents = t.discount && payDay <= nextBusinessDay(t.discount.until) ? t.discount.amountCents : 0;
  const daysLate = Math.max(0, daysBetween(due, payDay));
  const amount = BigInt(t.amountCents);
  const fineCents = daysLate > 0 ? Number((amount * BigInt(t.fineBps ?? 0)) / 10_000n) : 0;
  // the factor bps / 10000 / 30 × days in millionths, truncated: bps × days × 10 / 3
  const factorMicros = (BigInt(t.interestMonthlyBps ?? 0) * BigInt(daysLate) * 1_000_000n) / (10_000n * BigInt(INTEREST_DAYS_PER_MONTH));
  const interestCents = Number((amount * factorMicros) / 1_000_000n);
  return {
    payable: true,
    amountDueCents: t.amountCents - discountCents + fineCents + interestCents,
    discountCents,
    fineCents,
    interestCents,
    daysLate,
    effectiveDueDate: due,
    lastPayableDay: last,
  };
}

/** The day a boleto paid at `paidAt` settles: the next business day after its São Paulo day (D+1). */
export function boletoSettlementDay(paidAt: Date): string {
  return nextBusinessDay(addDays(localDate(paidAt), 1));
}

/** The settlement instant stored on the receivable: the first instant of its settlement day. */
export function boletoSettlementInstant(paidAt: Date): Date {
  return startOfDay(boletoSettlementDay(paidAt));
}
