/**
 * Money as a Brazilian buyer reads and types it. Shared by the server-rendered page and the
 * page's script (bundled into it at build time), so both show the same text.
 */

/** 7990 → "R$ 79,90"; 123456789 → "R$ 1.234.567,89". */
export function formatBRL(cents: number): string {
  const neg = cents < 0;
  const abs = Math.abs(Math.trunc(cents));
  const reais = String(Math.floor(abs / 100)).replace(/\B(?=(\d{3})+(?!\d))/g, '.');
  const cts = String(abs % 100).padStart(2, '0');
  return `${neg ? '-' : ''}R$ ${reais},${cts}`;
}

/**
 * What a buyer types as an amount, in cents, or null when it is not an amount: "79,90",
 * "79.90", "1.234,56", "1234", "R$ 10". A comma is the decimal separator when present (dots
 * then group thousands); without a comma, a dot followed by one or two digits at the end is
 * the decimal point.
 */
export function parseBRL(text: string): number | null {
  let t = text.replace(/R\$/i, '').replace(/\s/g, '');
  if (!t) return null;
  if (t.includes(',')) {
    if (!/^\d{1,3}(\.\d{3})*(,\d{1,2})?$|^\d+(,\d{1,2})?$/.test(t)) return null;
    t = t.replace(/\./g, '').replace(',', '.');
  } else if (/^\d+\.\d{1,2}$/.test(t)) {
    // a decimal point
  } else if (/^\d{1,3}(\.\d{3})+$/.test(t)) {
    t = t.replace(/\./g, '');
  } else if (!/^\d+$/.test(t)) {
    return null;
  }
  const [int, frac = ''] = t.split('.') as [string, string?];
  if (int.length > 12) return null;
  return Number(int) * 100 + Number(frac.padEnd(2, '0'));
}

/** The installment plan as the page shows it: the remainder goes to the first installment, as in receivables. */
export function installmentLabel(amount: number | null, n: number): string {
  if (amount === null || amount <= 0) return n === 1 ? '1× (à vista)' : `${n}× sem juros`;
  if (n === 1) return `1× de ${formatBRL(amount)} (à vista)`;
  const per = Math.floor(amount / n);
  const rem = amount - per * n;
  if (rem === 0) return `${n}× de ${formatBRL(per)} sem juros`;
  return `${n}× sem juros (1ª de ${formatBRL(per + rem)}, demais de ${formatBRL(per)})`;
}
