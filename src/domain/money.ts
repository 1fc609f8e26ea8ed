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

/** Splits an amount into n integer parts; the remainder goes to the first part. */
export function splitInstallments(amountCents: number, n: number): number[] {
  assertCents(amountCents);
  if (!Number.isInteger(n) || n < 1) throw new RangeError('installments must be a positive integer');
  const base = Math.floor(amountCents / n);
  const parts = Array.from({ length: n }, () => base);
  parts[0]! += amountCents - base * n;
  return parts;
}

export function assertCents(v: number): void {
  if (!Number.isSafeInteger(v)) throw new RangeError(`money must be an integer number of cents, got ${v}`);
}

/** R$ 1.234,56 — for tables only; data stays in cents. */
export function formatBRL(cents: number): string {
  const neg = cents < 0;
  const abs = Math.abs(cents);
  const reais = Math.floor(abs / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, '.');
  const c = String(abs % 100).padStart(2, '0');
  return `${neg ? '-' : ''}R$ ${reais},${c}`;
}
