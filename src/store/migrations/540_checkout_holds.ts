import type { Migration } from './index.js';

/**
 * Which checkout client (a keyed hash of its IP address, never the address) made each pending
 * checkout payment on a link with max_uses: a client holds at most one use of a link at a time
 * (src/server/services/checkout.ts, reserveUse).
 */
export const m540_checkout_holds: Migration = {
  version: 540,
  name: 'checkout holds per client',
  sql: () => `
CREATE TABLE checkout_holds (
  charge_id TEXT PRIMARY KEY, -- written before its charge, in the same transaction
  payment_link_id TEXT NOT NULL REFERENCES payment_links(id),
  client TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX checkout_holds_client ON checkout_holds (payment_link_id, client);
`,
};
