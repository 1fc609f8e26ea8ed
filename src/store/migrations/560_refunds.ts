import type { Migration } from './index.js';

/**
 * Partial refunds: each refund of a charge is a record, and the charge keeps
 * the running total `refunded_amount` (what has been refunded so far, never above `amount`).
 * A charge refunded in full before this existed gets its whole amount as refunded_amount (and
 * no refund record: none was kept then).
 */
export const m560_refunds: Migration = {
  version: 560,
  name: 'refund records and refunded_amount',
  sql: () => `
ALTER TABLE charges ADD COLUMN refunded_amount BIGINT NOT NULL DEFAULT 0;
UPDATE charges SET refunded_amount = amount WHERE status = 'refunded';
CREATE TABLE refunds (
  id TEXT PRIMARY KEY,
  charge_id TEXT NOT NULL REFERENCES charges(id),
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  amount BIGINT NOT NULL CHECK (amount > 0),
  created_at TEXT NOT NULL
);
CREATE INDEX refunds_charge ON refunds (charge_id, created_at);
`,
};
