import type { Migration } from './index.js';

/**
 * A per-wallet sequence number on wallet entries, so the balance_after chain has one order
 * that does not depend on timestamps (several entries of a wallet can share a millisecond,
 * and the sandbox clock moves per merchant). Existing entries are numbered by
 * (created_at, id); the wallet keeps the last number used.
 */
export const m211_wallet_entry_seq: Migration = {
  version: 211,
  name: 'ledger: per-wallet entry sequence',
  sql: () => `
ALTER TABLE wallets ADD COLUMN entry_seq BIGINT NOT NULL DEFAULT 0;
ALTER TABLE wallet_entries ADD COLUMN seq BIGINT NOT NULL DEFAULT 0;
UPDATE wallet_entries SET seq = (
  SELECT COUNT(*) FROM wallet_entries e2
   WHERE e2.wallet_id = wallet_entries.wallet_id
     AND (e2.created_at < wallet_entries.created_at OR (e2.created_at = wallet_entries.created_at AND e2.id <= wallet_entries.id))
);
UPDATE wallets SET entry_seq = (SELECT COUNT(*) FROM wallet_entries e WHERE e.wallet_id = wallets.id);
CREATE UNIQUE INDEX wallet_entries_seq ON wallet_entries (wallet_id, seq);
`,
};
