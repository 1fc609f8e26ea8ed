import type { Migration } from './index.js';

/**
 * Hosted checkout: a charge remembers the payment link it was paid through, so its capture
 * counts a use of the link (in the same transaction) and the pending charges of a link can
 * reserve its last uses (see src/server/services/checkout.ts).
 */
export const m500_checkout: Migration = {
  version: 500,
  name: 'checkout: charges.payment_link_id',
  sql: () => `
ALTER TABLE charges ADD COLUMN payment_link_id TEXT REFERENCES payment_links(id);
CREATE INDEX charges_payment_link ON charges (payment_link_id, status);
`,
};
