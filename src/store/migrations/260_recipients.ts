import type { Migration } from './index.js';

export const m260_recipients: Migration = {
  version: 260,
  name: 'recipients: payout destinations, one primary per type per owner',
  sql: () => `
CREATE TABLE recipients (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  owner_type TEXT NOT NULL CHECK (owner_type IN ('merchant', 'submerchant')),
  owner_id TEXT NOT NULL,
  type TEXT NOT NULL CHECK (type IN ('bank_account', 'pix', 'crypto')),
  is_primary INTEGER NOT NULL DEFAULT 1,
  details TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX recipients_one_primary ON recipients (owner_type, owner_id, type) WHERE is_primary = 1;
CREATE INDEX recipients_merchant ON recipients (merchant_id, created_at DESC, id DESC);
CREATE INDEX recipients_owner ON recipients (owner_id, created_at DESC, id DESC);
`,
};
