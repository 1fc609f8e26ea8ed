/**
 * The installment plan as a Brazilian buyer reads it, shared by the server-rendered page and
 * the page's script (bundled into it at build time), so both show the same text. Amounts are
 * split as receivables are (`splitInstallments`: the remainder goes to the first).
 */
import { formatBRL, splitInstallments } from '../../domain/money.js';

export function installmentLabel(amount: number | null, n: number): string {
  if (amount === null || amount <= 0) return n === 1 ? '1× (à vista)' : `${n}× sem juros`;
  if (n === 1) return `1× de ${formatBRL(amount)} (à vista)`;
  const [first, rest] = splitInstallments(amount, n) as [number, number];
  if (first === rest) return `${n}× de ${formatBRL(rest)} sem juros`;
  return `${n}× sem juros (1ª de ${formatBRL(first)}, demais de ${formatBRL(rest)})`;
}
