import type { Migration } from './index.js';

/**
 * The corrections of a submerchant (PATCH /v1/submerchants/{id}): one row per request that
 * changed something, with the fields it changed as JSON `[{ field, from, to }]`, the
 * submerchant's status then and the API key that made it. Read newest first per submerchant.
 */
export const m710_submerchant_changes: Migration = {
  version: 710,
  name: 'submerchant corrections and their history',
  sql: () => `
CREATE TABLE submerchant_changes (
  id TEXT PRIMARY KEY,
  submerchant_id TEXT NOT NULL REFERENCES submerchants(id),
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  status TEXT NOT NULL,
  changes TEXT NOT NULL,
  changed_by TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX submerchant_changes_owner ON submerchant_changes (submerchant_id, created_at, id);
`,
};
