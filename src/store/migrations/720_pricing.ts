import type { Migration } from './index.js';

/**
 * Pricing as configuration: a merchant's override of the server's pricing (`merchants.pricing`,
 * a JSON document, NULL for none), the rates each charge was created with (`charges.pricing`,
 * JSON), what its buyer pays (`total_amount`, `interest_amount`) and who pays a payment link's
 * installment interest (`payment_links.interest`).
 *
 * Charges stored before this have NULL `pricing` and `total_amount`: they were all priced by
 * the default figures with the merchant paying any interest, so their rates are those figures
 * and their total is their amount (src/server/services/charges/rows.ts reads them so), and no
 * row is rewritten here.
 */
export const m720_pricing: Migration = {
  version: 720,
  name: 'pricing documents and the rates of each charge',
  sql: () => `
ALTER TABLE merchants ADD COLUMN pricing TEXT;
ALTER TABLE charges ADD COLUMN pricing TEXT;
ALTER TABLE charges ADD COLUMN total_amount BIGINT;
ALTER TABLE charges ADD COLUMN interest_amount BIGINT NOT NULL DEFAULT 0;
ALTER TABLE payment_links ADD COLUMN interest TEXT NOT NULL DEFAULT 'merchant';
`,
};
