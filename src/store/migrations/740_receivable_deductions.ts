import type { Migration } from './index.js';

/**
 * Every amount a refund or a chargeback took from a receivable before it settled (reduced, or
 * cancelled: the deduction is then all of its net), with the refunded charge (reference_type
 * refund) or the chargeback (reference_type chargeback) it was taken for, and the wallet whose
 * receivable it was. A receivable's net at capture is its net now (none once cancelled) plus
 * its deductions; a refund that takes from other charges' receivables of a party (what its
 * wallet lacks) leaves here the only trace of it.
 */
export const m740_receivable_deductions: Migration = {
  version: 740,
  name: 'receivable deductions of refunds and chargebacks',
  sql: () => `
CREATE TABLE receivable_deductions (
  id TEXT PRIMARY KEY,
  receivable_id TEXT NOT NULL REFERENCES receivables(id),
  wallet_id TEXT NOT NULL REFERENCES wallets(id),
  amount BIGINT NOT NULL CHECK (amount > 0),
  reference_type TEXT NOT NULL CHECK (reference_type IN ('refund', 'chargeback')),
  reference_id TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX receivable_deductions_receivable ON receivable_deductions (receivable_id);
CREATE INDEX receivable_deductions_reference ON receivable_deductions (reference_type, reference_id);
`,
};
