/**
 * The installment options as Brazilian checkouts show them ("3x de R$ 33,34 sem juros",
 * "12x de R$ 9,45 (total R$ 113,40)"), shared by the server-rendered page and the page's
 * script (bundled into it at build time), so both show the same text. Interest-free amounts
 * are split as receivables are (`splitInstallments`: the remainder goes to the first); with
 * buyer interest every installment is the Price table's (src/domain/pricing.ts), as charged.
 */
import { formatBRL, splitInstallments } from '../../domain/money.js';
import { buyerPaysInterest, installmentTerms, MERCHANT_PAYS_INTEREST, type InterestTerms } from '../../domain/pricing.js';

export function installmentLabel(amount: number | null, n: number, terms: InterestTerms = MERCHANT_PAYS_INTEREST): string {
  if (amount === null || amount <= 0) {
    if (n === 1) return '1x (à vista)';
    return buyerPaysInterest(n, terms) ? `${n}x com juros` : `${n}x sem juros`;
  }
  const t = installmentTerms(amount, n, terms);
  if (t.with_interest) return `${n}x de ${formatBRL(t.installment_amount)} (total ${formatBRL(t.total_amount)})`;
  if (n === 1) return `1x de ${formatBRL(amount)} (à vista)`;
  const [first, rest] = splitInstallments(amount, n) as [number, number];
  if (first === rest) return `${n}x de ${formatBRL(rest)} sem juros`;
  return `${n}x sem juros (1ª de ${formatBRL(first)}, demais de ${formatBRL(rest)})`;
}

/** What the buyer pays for `amount` in `n` installments (the amount, or the Price table's total). */
export function totalFor(amount: number, n: number, terms: InterestTerms = MERCHANT_PAYS_INTEREST): number {
  return installmentTerms(amount, n, terms).total_amount;
}
