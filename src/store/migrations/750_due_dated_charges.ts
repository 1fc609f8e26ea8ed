import type { Migration } from './index.js';

/**
 * Charges with a due date: boletos and PIX with a due date (cobv).
 * - `due_terms`: their terms as JSON `{ due_date, fine, interest, discount, pay_until_days,
 *   instructions }`; `due_expires_at`: the first instant after the last payable day, when due
 *   work moves an unpaid one to `expired` (indexed for that sweep, pending ones only).
 * - `paid_amount`, `paid_on` (São Paulo day) and `due_payment` (JSON: the discount, fine and
 *   interest of the payment): what the payer paid, set with the capture.
 * - `sandbox_pays_at`: when the sandbox's late payer (customer.email …pays_late@) pays by itself.
 * - `boleto_our_number` (unique in the store), `boleto_barcode` and `boleto_url` (the printable
 *   page, on the base URL the charge was created through, as a PIX's code is kept): the slip.
 * - `merchants.boleto_account`: the merchant's 8-digit account number on its slips, given on its
 *   first boleto (unique in the store).
 * - `counters`: named sequences taken inside the transaction that uses a value (`UPDATE …
 *   RETURNING`: the row lock orders concurrent writers on PostgreSQL, a rolled-back
 *   transaction gives its value back), so every replica on one store draws from the same one.
 */
export const m750_due_dated_charges: Migration = {
  version: 750,
  name: 'boletos and PIX with a due date',
  sql: () => `
ALTER TABLE charges ADD COLUMN due_terms TEXT;
ALTER TABLE charges ADD COLUMN due_expires_at TEXT;
ALTER TABLE charges ADD COLUMN paid_amount BIGINT;
ALTER TABLE charges ADD COLUMN paid_on TEXT;
ALTER TABLE charges ADD COLUMN due_payment TEXT;
ALTER TABLE charges ADD COLUMN sandbox_pays_at TEXT;
ALTER TABLE charges ADD COLUMN boleto_our_number BIGINT;
ALTER TABLE charges ADD COLUMN boleto_barcode TEXT;
ALTER TABLE charges ADD COLUMN boleto_url TEXT;
CREATE UNIQUE INDEX charges_boleto_our_number ON charges (boleto_our_number) WHERE boleto_our_number IS NOT NULL;
CREATE INDEX charges_due_expiry ON charges (merchant_id, due_expires_at) WHERE status = 'pending' AND due_expires_at IS NOT NULL;
CREATE INDEX charges_sandbox_pays ON charges (merchant_id, sandbox_pays_at) WHERE status = 'pending' AND sandbox_pays_at IS NOT NULL;
ALTER TABLE merchants ADD COLUMN boleto_account TEXT;
CREATE UNIQUE INDEX merchants_boleto_account ON merchants (boleto_account) WHERE boleto_account IS NOT NULL;
CREATE TABLE counters (
  name TEXT PRIMARY KEY,
  value BIGINT NOT NULL
);
INSERT INTO counters (name, value) VALUES ('boleto_our_number', 0), ('boleto_account', 0);
`,
};
