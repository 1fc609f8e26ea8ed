import type { Migration } from './index.js';

/**
 * PIX returns (docs/api.md, "Refunds" and "Chargebacks"):
 *
 * - `refunds.return_id`: the return id (`D…`, 32 characters, src/domain/pixReturns.ts) of a
 *   refund of a PIX charge, a devolução; NULL for the refunds of card and boleto charges, and
 *   for refunds recorded before the column existed (those stay NULL: their ids would be made up
 *   now, at a minute that is not when they were made).
 * - `chargebacks.type`: `chargeback` (a card charge's dispute; every row already stored is one)
 *   or `med` (a PIX charge's MED).
 * - `chargebacks.return_id`: the return id of the devolução that gave a lost or accepted MED's
 *   money back to the payer; NULL otherwise.
 *
 * Each return id is unique where it is set.
 */
export const m770_pix_returns: Migration = {
  version: 770,
  name: 'PIX return ids on refunds and MED disputes',
  sql: () => `
ALTER TABLE refunds ADD COLUMN return_id TEXT;
CREATE UNIQUE INDEX refunds_return_id ON refunds (return_id) WHERE return_id IS NOT NULL;
ALTER TABLE chargebacks ADD COLUMN type TEXT NOT NULL DEFAULT 'chargeback';
ALTER TABLE chargebacks ADD COLUMN return_id TEXT;
CREATE UNIQUE INDEX chargebacks_return_id ON chargebacks (return_id) WHERE return_id IS NOT NULL;
`,
};
