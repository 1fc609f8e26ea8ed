/**
 * The parts of a charge record that belong to a charge with a due date (a boleto, or a PIX with
 * a due date), made from its stored row: its terms (`due`), its slip (`boleto`) and what was
 * paid (`paid_amount`). Pure: everything comes from the row.
 */
import type { Charge } from '../../../contract/resources/charges.js';
import { barcodeToDigitableLine, formatDigitableLine, SANDBOX_BANK_CODE } from '../../../domain/boleto.js';
import { DEFAULT_PAY_UNTIL_DAYS, lastPayableDay, type DueTerms } from '../../../domain/dueAmount.js';
import { json } from '../../../store/db.js';
import type { ChargeRow } from './rows.js';

/** The terms as stored (`charges.due_terms`), in the API's names. */
export interface StoredDueTerms {
  due_date: string;
  fine: number;
  interest: number;
  discount: { amount: number; until: string } | null;
  pay_until_days: number;
  instructions: string | null;
}

/** What a payment's amount is made of (`charges.due_payment`). */
export interface StoredDuePayment {
  discount: number;
  fine: number;
  interest: number;
}

export function storedTerms(r: Pick<ChargeRow, 'due_terms'>): StoredDueTerms | null {
  return json.from<StoredDueTerms | null>(r.due_terms, null);
}

/** The stored terms as the domain's dueAmount.ts takes them. */
export function dueTermsOf(t: StoredDueTerms, amountCents: number): DueTerms {
  return {
    amountCents,
    dueDate: t.due_date,
    fineBps: t.fine,
    interestMonthlyBps: t.interest,
    discount: t.discount ? { amountCents: t.discount.amount, until: t.discount.until } : null,
    payUntilDays: t.pay_until_days ?? DEFAULT_PAY_UNTIL_DAYS,
  };
}

export function duePartsOf(r: ChargeRow): Pick<Charge, 'boleto' | 'due' | 'paid_amount'> {
  const t = storedTerms(r);
  if (!t) return { boleto: null, due: null, paid_amount: null };
  const paid = json.from<StoredDuePayment | null>(r.due_payment, null);
  const line = r.boleto_barcode ? barcodeToDigitableLine(r.boleto_barcode) : null;
  return {
    boleto:
      r.payment_method === 'boleto' && r.boleto_barcode && line
        ? {
            bank_code: SANDBOX_BANK_CODE,
            our_number: String(r.boleto_our_number ?? '').padStart(12, '0'),
            barcode: r.boleto_barcode,
            digitable_line: line,
            formatted_line: formatDigitableLine(line),
            due_date: t.due_date,
            url: r.boleto_url ?? '',
            expires_at: r.due_expires_at ?? '',
          }
        : null,
    due: {
      due_date: t.due_date,
      fine: t.fine,
      interest: t.interest,
      discount: t.discount,
      pay_until_days: t.pay_until_days,
      last_payable_day: lastPayableDay({ dueDate: t.due_date, payUntilDays: t.pay_until_days }),
      instructions: t.instructions,
      paid_on: r.paid_on ?? null,
      discount_amount: paid ? paid.discount : null,
      fine_amount: paid ? paid.fine : null,
      interest_amount: paid ? paid.interest : null,
    },
    paid_amount: r.paid_amount === null || r.paid_amount === undefined ? null : Number(r.paid_amount),
  };
}
