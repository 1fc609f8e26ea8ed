/**
 * The boleto's numbers, pure: the due-date factor, the 44-digit barcode, the 47-digit digitable
 * line ("linha digitável") and the checks that take a slip apart again. Dates are São Paulo
 * calendar days (YYYY-MM-DD, src/domain/calendar.ts); amounts are integer cents.
 *
 * The barcode (FEBRABAN layout, common to every bank; BCB Carta-Circular 2.926):
 *
 *   pos  1–3   bank code (COMPE)            pos 10–19  amount in cents, 10 digits
 *   pos  4     currency, 9 = real           pos 20–44  free field, 25 digits, the bank's own layout
 *   pos  5     general check digit (mod 11)
 *   pos  6–9   due-date factor
 *
 * - General check digit: modulo 11 of the other 43 digits, weights 2…9 from the right (repeating);
 *   11 − remainder, except that a result of 0, 10 or 11 is written 1: the digit is never 0.
 * - Due-date factor: days from the base date 1997-10-07. It reached 9999 on 2025-02-21 and
 *   restarts at 1000 on 2025-02-22 (FEBRABAN); so 1000 is 2000-07-03 in the first era and
 *   2025-02-22 in the second, whose 9999 is 2049-10-13. A factor of 0000 means the slip carries
 *   no due date.
 * - Digitable line: field 1 = bank, currency and free field 1–5, + mod-10 digit; field 2 = free
 *   field 6–15 + mod-10 digit; field 3 = free field 16–25 + mod-10 digit; field 4 = the general
 *   check digit; field 5 = factor + amount. Mod 10: weights 2, 1, 2… from the right, a product's
 *   digits added together (18 → 9), 10 − (sum mod 10), and 10 is written 0. Printed as
 *   `AAAAA.AAAAA BBBBB.BBBBBB CCCCC.CCCCCC D EEEEEEEEEEEEEE`.
 *
 * Sources: Banco do Brasil, "Especificações Técnicas para Confecção de Boleto de Pagamento"
 * (Doc5175, annexes III, V, VI); CAIXA, "Especificação do código de barras … SIGCB" (67.119,
 * annexes I–V); Santander, "Cobrança – Código de Barras" v35. test/domain/boleto.test.ts checks
 * their worked examples.
 *
 * The sandbox's bank code is 999. A slip must not pass for a real bank's: the Banco Central
 * assigns COMPE codes upward from 001, and its list of STR participants (as mirrored with their
 * Pix and boleto flags by the BancosBrasileiros data set, August 2026: 511 institutions) uses
 * codes up to 795 and none from 800 to 999. 999 is the code farthest from that frontier, is
 * plainly a test value, and no bank can capture it: a bank that reads the barcode finds no
 * institution, and no registration in the boleto platform, behind it. Its printed check digit
 * is 999-7 (`bankCodeWithDigit`).
 *
 * The sandbox's free field (25 digits), built from what the server has for a charge:
 *
 *   pos 20–23  agency (4 digits, the sandbox's is 0001)
 *   pos 24–31  the merchant's account number (8 digits)
 *   pos 32–43  "nosso número": the charge's number at the bank (12 digits, 1 … 999999999999)
 *   pos 44     check digit of pos 20–43: mod 11, weights 2…9 from the right, 11 − remainder,
 *              10 and 11 written 0 (as CAIXA's free-field digit)
 */
import { addDays, daysBetween } from './calendar.js';
import { isRealDate } from './brazil.js';

/** The sandbox's COMPE bank code: unassigned by the Banco Central (see above). */
export const SANDBOX_BANK_CODE = '999';
/** The sandbox's agency in the free field. */
export const SANDBOX_AGENCY = '0001';
/** Currency code of the real in a barcode. */
export const CURRENCY_REAL = '9';

/** Day 0 of the due-date factor. */
export const FACTOR_BASE_DATE = '1997-10-07';
/** The first day a factor expresses: factor 1000 of the first era. */
export const FIRST_FACTOR_DATE = '2000-07-03';
/** Factor 9999 of the first era, the day before the count restarted. */
export const FIRST_ERA_LAST_DATE = '2025-02-21';
/** Factor 1000 of the second (current) era. */
export const SECOND_ERA_START = '2025-02-22';
/** Factor 9999 of the second era: the last day a factor expresses until FEBRABAN says what follows. */
export const LAST_FACTOR_DATE = '2049-10-13';

/** The most a barcode's 10-digit amount holds: R$ 99.999.999,99. */
export const MAX_BARCODE_AMOUNT_CENTS = 9_999_999_999;

const digitsOnly = (s: string, n: number) => s.length === n && /^\d+$/.test(s);

function requireDigits(value: string, n: number, what: string): void {
  if (!digitsOnly(value, n)) throw new RangeError(`${what} must be ${n} digits, got ${JSON.stringify(value)}`);
}

/**
 * The due-date factor (1000–9999) of a due date between 2000-07-03 and 2049-10-13, in the era the
 * date falls in. Any other date is a RangeError: no factor expresses it.
 */
export function dueDateFactor(dueDate: string): number {
  if (!isRealDate(dueDate)) throw new RangeError(`due date must be a real date YYYY-MM-DD, got ${JSON.stringify(dueDate)}`);
  if (dueDate < FIRST_FACTOR_DATE || dueDate > LAST_FACTOR_DATE) {
    throw new RangeError(`a due-date factor expresses ${FIRST_FACTOR_DATE} to ${LAST_FACTOR_DATE}, not ${dueDate}`);
  }
  return dueDate <= FIRST_ERA_LAST_DATE ? daysBetween(FACTOR_BASE_DATE, dueDate) : 1000 + daysBetween(SECOND_ERA_START, dueDate);
}

/**
 * The due date a factor (1000–9999) stands for: in the current era (2025-02-22 … 2049-10-13) by
 * default, or in the first (2000-07-03 … 2025-02-21) when `era` is 1.
 */
export function factorDueDate(factor: number, era: 1 | 2 = 2): string {
  if (!Number.isInteger(factor) || factor < 1000 || factor > 9999) throw new RangeError(`a due-date factor is 1000 to 9999, got ${factor}`);
  return era === 1 ? addDays(FACTOR_BASE_DATE, factor) : addDays(SECOND_ERA_START, factor - 1000);
}

/** Sum of digit × weight, weights 2…9 from the right (repeating). */
function weightedSum(digits: string): number {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) sum += Number(digits[digits.length - 1 - i]) * (2 + (i % 8));
  return sum;
}

/** Modulo-10 check digit of a digitable-line field (weights 2, 1, 2… from the right). */
export function mod10(digits: string): number {
  if (!/^\d+$/.test(digits)) throw new RangeError('mod10 takes digits');
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    const p = Number(digits[digits.length - 1 - i]) * (i % 2 === 0 ? 2 : 1);
    sum += p > 9 ? p - 9 : p; // 18 → 1 + 8 = 9
  }
  return (10 - (sum % 10)) % 10;
}

/** The general check digit of a barcode, from its 43 other digits (pos 1–4 and 6–44); never 0. */
export function generalCheckDigit(digits43: string): number {
  requireDigits(digits43, 43, 'the barcode without its check digit');
  const d = 11 - (weightedSum(digits43) % 11);
  return d === 0 || d === 10 || d === 11 ? 1 : d;
}

/** Mod 11, weights 2…9, 11 − remainder, 10 and 11 written 0 (the free field's digit). */
function mod11Zero(digits: string): number {
  const d = 11 - (weightedSum(digits) % 11);
  return d >= 10 ? 0 : d;
}

/** The bank code as printed at the top of the slip, with its mod-11 digit: 001-9, 104-0, 999-7. */
export function bankCodeWithDigit(bankCode: string = SANDBOX_BANK_CODE): string {
  requireDigits(bankCode, 3, 'bank code');
  return `${bankCode}-${mod11Zero(bankCode)}`;
}

export interface FreeFieldParts {
  /** 4 digits */
  agency: string;
  /** 8 digits */
  account: string;
  /** the charge's number at the bank, 1 … 999999999999 */
  ourNumber: number;
}

export const MAX_OUR_NUMBER = 999_999_999_999;

/** The sandbox's 25-digit free field: agency, account, nosso número and their check digit. */
export function buildFreeField(p: FreeFieldParts): string {
  requireDigits(p.agency, 4, 'agency');
  requireDigits(p.account, 8, 'account');
  if (!Number.isSafeInteger(p.ourNumber) || p.ourNumber < 1 || p.ourNumber > MAX_OUR_NUMBER) {
    throw new RangeError(`nosso número must be an integer from 1 to ${MAX_OUR_NUMBER}, got ${p.ourNumber}`);
  }
  const body = p.agency + p.account + String(p.ourNumber).padStart(12, '0');
  return body + mod11Zero(body);
}

/** The parts of a sandbox free field, or null when it is not one (its check digit is wrong). */
export function parseFreeField(freeField: string): FreeFieldParts | null {
  if (!digitsOnly(freeField, 25)) return null;
  if (mod11Zero(freeField.slice(0, 24)) !== Number(freeField[24])) return null;
  const ourNumber = Number(freeField.slice(12, 24));
  if (ourNumber < 1) return null;
  return { agency: freeField.slice(0, 4), account: freeField.slice(4, 12), ourNumber };
}

export interface BarcodeInput {
  /** 3 digits; the sandbox's is SANDBOX_BANK_CODE */
  bankCode: string;
  /** a São Paulo day from 2000-07-03 to 2049-10-13 */
  dueDate: string;
  /** 0 … 9 999 999 999 */
  amountCents: number;
  /** 25 digits (buildFreeField for the sandbox's) */
  freeField: string;
}

/** The 44-digit barcode. Throws a RangeError naming the part that cannot be written. */
export function buildBarcode(b: BarcodeInput): string {
  requireDigits(b.bankCode, 3, 'bank code');
  requireDigits(b.freeField, 25, 'free field');
  if (!Number.isSafeInteger(b.amountCents) || b.amountCents < 0 || b.amountCents > MAX_BARCODE_AMOUNT_CENTS) {
    throw new RangeError(`a barcode's amount is 0 to ${MAX_BARCODE_AMOUNT_CENTS} cents, got ${b.amountCents}`);
  }
  const factor = dueDateFactor(b.dueDate);
  const rest = String(factor) + String(b.amountCents).padStart(10, '0') + b.freeField;
  const head = b.bankCode + CURRENCY_REAL;
  return head + generalCheckDigit(head + rest) + rest;
}

/** The 47-digit digitable line of a barcode (whose check digit is not checked here: see parseBoleto). */
function lineOf(barcode: string): string {
  const f1 = barcode.slice(0, 4) + barcode.slice(19, 24);
  const f2 = barcode.slice(24, 34);
  const f3 = barcode.slice(34, 44);
  return f1 + mod10(f1) + f2 + mod10(f2) + f3 + mod10(f3) + barcode[4] + barcode.slice(5, 19);
}

/** The barcode a 47-digit digitable line stands for (its check digits not checked here). */
function barcodeOf(line: string): string {
  return line.slice(0, 4) + line[32] + line.slice(33, 47) + line.slice(4, 9) + line.slice(10, 20) + line.slice(21, 31);
}

/** A 47-digit line as printed: `AAAAA.AAAAA BBBBB.BBBBBB CCCCC.CCCCCC D EEEEEEEEEEEEEE`. */
export function formatDigitableLine(line: string): string {
  requireDigits(line, 47, 'digitable line');
  const s = (a: number, b: number) => line.slice(a, b);
  return `${s(0, 5)}.${s(5, 10)} ${s(10, 15)}.${s(15, 21)} ${s(21, 26)}.${s(26, 32)} ${s(32, 33)} ${s(33, 47)}`;
}

export interface Slip {
  barcode: string;
  /** 47 digits */
  digitableLine: string;
  /** the printed form */
  formattedLine: string;
}

/** The barcode and both forms of the digitable line. */
export function buildSlip(b: BarcodeInput): Slip {
  const barcode = buildBarcode(b);
  const digitableLine = lineOf(barcode);
  return { barcode, digitableLine, formattedLine: formatDigitableLine(digitableLine) };
}

export interface SandboxSlipInput {
  dueDate: string;
  amountCents: number;
  /** the merchant's 8-digit account number */
  account: string;
  ourNumber: number;
  /** default SANDBOX_AGENCY */
  agency?: string;
}

/** The sandbox's slip for a charge: bank 999, the sandbox free field. */
export function buildSandboxSlip(s: SandboxSlipInput): Slip {
  const freeField = buildFreeField({ agency: s.agency ?? SANDBOX_AGENCY, account: s.account, ourNumber: s.ourNumber });
  return buildSlip({ bankCode: SANDBOX_BANK_CODE, dueDate: s.dueDate, amountCents: s.amountCents, freeField });
}

export interface ParsedBoleto extends Slip {
  bankCode: string;
  currency: string;
  checkDigit: number;
  /** 0 when the slip carries no due date */
  factor: number;
  /** the factor's day in the current era, or null for factor 0 */
  dueDate: string | null;
  amountCents: number;
  freeField: string;
}

export type BoletoCheck = { ok: true; boleto: ParsedBoleto } | { ok: false; message: string };

/**
 * Reads a barcode (44 digits) or a digitable line (47 digits; dots and spaces allowed, as
 * printed) and checks every check digit: each field's mod-10 digit of a line, and the general
 * mod-11 digit. A failure says which digit is wrong and what it should be. A factor below 1000
 * other than 0000 names no day and is refused; a factor is read in the current era.
 */
export function parseBoleto(code: string): BoletoCheck {
  if (!/^[\d.\s]*$/.test(code)) return { ok: false, message: 'must hold only digits (and the dots and spaces of a printed line)' };
  const digits = code.replace(/[.\s]/g, '');
  let barcode: string;
  if (digits.length === 47) {
    const fields: ReadonlyArray<readonly [string, number, number]> = [
      ['field 1', 0, 9],
      ['field 2', 10, 20],
      ['field 3', 21, 31],
    ];
    for (const [name, from, to] of fields) {
      const want = mod10(digits.slice(from, to));
      if (Number(digits[to]) !== want) return { ok: false, message: `${name} of the digitable line ends in ${digits[to]}, but its check digit is ${want}` };
    }
    barcode = barcodeOf(digits);
  } else if (digits.length === 44) {
    if (digits[0] === '8') return { ok: false, message: 'is a utility or tax bill (arrecadação: its barcode starts with 8), not a boleto' };
    barcode = digits;
  } else {
    return { ok: false, message: `must be a barcode of 44 digits or a digitable line of 47, got ${digits.length} digits` };
  }
  const general = generalCheckDigit(barcode.slice(0, 4) + barcode.slice(5));
  if (Number(barcode[4]) !== general) return { ok: false, message: `the general check digit is ${barcode[4]}, but the digits give ${general}` };
  const factor = Number(barcode.slice(5, 9));
  if (factor !== 0 && factor < 1000) return { ok: false, message: `the due-date factor ${barcode.slice(5, 9)} names no day (factors run 1000 to 9999)` };
  const digitableLine = lineOf(barcode);
  return {
    ok: true,
    boleto: {
      barcode,
      digitableLine,
      formattedLine: formatDigitableLine(digitableLine),
      bankCode: barcode.slice(0, 3),
      currency: barcode[3]!,
      checkDigit: general,
      factor,
      dueDate: factor === 0 ? null : factorDueDate(factor),
      amountCents: Number(barcode.slice(9, 19)),
      freeField: barcode.slice(19),
    },
  };
}

/** The digitable line of a barcode; throws a RangeError when its check digit is wrong. */
export function barcodeToDigitableLine(barcode: string): string {
  if (!digitsOnly(barcode, 44)) throw new RangeError('a barcode is 44 digits');
  const r = parseBoleto(barcode);
  if (!r.ok) throw new RangeError(r.message);
  return r.boleto.digitableLine;
}

/** The barcode of a digitable line (47 digits, printed or plain); throws a RangeError when any check digit is wrong. */
export function digitableLineToBarcode(line: string): string {
  const r = parseBoleto(line);
  if (!r.ok) throw new RangeError(r.message);
  if (line.replace(/[.\s]/g, '').length !== 47) throw new RangeError('a digitable line is 47 digits');
  return r.boleto.barcode;
}
