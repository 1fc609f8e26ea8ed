/**
 * Money is integer cents everywhere. Rates are expressed in basis points of a percent
 * (1/10000), so 2.99 % is 299 and every computation stays in integers.
 */

/** amount × bps / 10000, rounded half up to the cent. */
export function percentOf(amountCents: number, bps: number): number {
  assertCents(amountCents);
  // Integer arithmetic: (a*b + 5000) / 10000, floored, is round-half-up for non-negative values.
  return Math.floor((amountCents * bps + 5000) / 10000);
}

/**
 * A percentage as the API takes it (a number with at most two decimals: 2.99) in basis points
 * (299). Rounded to the nearest point, so the binary fraction of a decimal (0.29 × 100 is
 * 28.999…) lands on the point it names.
 */
export function percentToBps(percent: number): number {
  return Math.round(percent * 100);
}

/** Splits an amount into n integer parts; the remainder goes to the first part. */
export function splitInstallments(amountCents: number, n: number): number[] {
  assertCents(amountCents);
  if (!Number.isInteger(n) || n < 1) throw new RangeError('installments must be a positive integer');
  const base = Math.floor(amountCents / n);
  const parts = new Array<number>(n).fill(base);
  parts[0]! += amountCents - base * n;
  return parts;
}

export function assertCents(v: number): void {
  if (!Number.isSafeInteger(v)) throw new RangeError(`money must be an integer number of cents, got ${v}`);
}

/**
 * Cents as people read them: 7990 → "R$ 79,90", 123456789 → "R$ 1.234.567,89". For display
 * only (CLI tables, the checkout page); data stays in cents.
 */
export function formatBRL(cents: number): string {
  const neg = cents < 0;
  const abs = Math.abs(Math.trunc(cents));
  const reais = String(Math.floor(abs / 100)).replace(/\B(?=(\d{3})+(?!\d))/g, '.');
  const c = String(abs % 100).padStart(2, '0');
  return `${neg ? '-' : ''}R$ ${reais},${c}`;
}

/**
 * Reais as people type them, in cents, or null when it is not an amount: "79,90", "1.234,56",
 * "1234,5", "79.90", "1234", "R$ 150" (white space anywhere is ignored). A comma is the decimal
 * separator, dots then group thousands; without a comma, a dot followed by one or two digits
 * at the end is the decimal point ("1.234" is R$ 1.234,00). At most 12 digits of reais.
 */
export function parseBRL(text: string): number | null {
  const s = text.replace(/R\$/i, '').replace(/\s/g, '');
  const m = /^(\d{1,3}(?:\.\d{3})+|\d+)(?:,(\d{1,2}))?$/.exec(s) ?? /^(\d+)\.(\d{1,2})$/.exec(s);
  if (!m) return null;
  const int = m[1]!.replace(/\./g, '');
  if (int.length > 12) return null;
  return Number(int) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
}
