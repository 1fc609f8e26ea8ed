import type { Migration } from './index.js';

export const m200_ledger: Migration = {
  version: 200,
  name: 'ledger: immutable wallet entries',
  sql: () => `
CREATE TABLE wallet_entries (
  id TEXT PRIMARY KEY,
  wallet_id TEXT NOT NULL REFERENCES wallets(id),
  direction TEXT NOT NULL CHECK (direction IN ('credit', 'debit')),
  amount BIGINT NOT NULL CHECK (amount > 0),
  balance_after BIGINT NOT NULL CHECK (balance_after >= 0),
  reference_type TEXT NOT NULL,
  reference_id TEXT NOT NULL,
  description TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX wallet_entries_wallet ON wallet_entries (wallet_id, created_at DESC, id DESC);
CREATE INDEX wallet_entries_reference ON wallet_entries (reference_type, reference_id);
`,
};
