import type { Migration } from './index.js';

/**
 * Authorise now, capture later: a charge keeps what was captured (`captured_amount`, the amount
 * or less after a partial capture), when it was authorised, and when and why an authorisation
 * was voided. Every charge already captured (or refunded) was captured whole, at once: its
 * captured_amount is its amount. The index serves the due work that voids authorisations past
 * their 7 days, by merchant and authorisation instant.
 */
export const m730_authorize_capture: Migration = {
  version: 730,
  name: 'authorised charges: captured_amount, authorized_at, voided_at, void_reason',
  sql: () => `
ALTER TABLE charges ADD COLUMN captured_amount BIGINT;
ALTER TABLE charges ADD COLUMN authorized_at TEXT;
ALTER TABLE charges ADD COLUMN voided_at TEXT;
ALTER TABLE charges ADD COLUMN void_reason TEXT;
UPDATE charges SET captured_amount = amount WHERE status IN ('captured', 'refunded');
CREATE INDEX charges_authorized ON charges (merchant_id, authorized_at) WHERE status = 'authorized';
`,
};
