import type { Migration } from './index.js';

/** −R$ 10 trillion: the floor of a balance, the mirror of MAX_WALLET_BALANCE (src/server/services/ledger.ts). */
const FLOOR = '-1000000000000000';
/** The entries that may leave a balance below zero: a chargeback's debits, and credits that raise a negative balance. */
const ENTRY_RULE = "balance_after >= 0 OR direction = 'credit' OR reference_type IN ('chargeback', 'chargeback_fee')";

/**
 * A chargeback may take a wallet below zero, the one operation that may (docs/api.md,
 * "Negative balances"): `wallets.balance` loses its CHECK (balance >= 0) for a floor, and
 * `wallet_entries.balance_after` may be negative only on a chargeback's debit
 * (reference_type chargeback or chargeback_fee) or on a credit (a settlement raising a negative
 * balance toward zero). Every other debit is still conditional in the ledger
 * (src/server/services/ledger.ts); these constraints are its last line of defence.
 *
 * SQLite cannot change a CHECK in place, and `wallets` is the parent of other tables' foreign
 * keys: the migration runs in a transaction with foreign keys on, where dropping and renaming a
 * parent table fails. So each column is replaced instead — a new one with the new CHECK, the
 * values copied, the old one dropped (SQLite rewrites the table), the new one renamed — which
 * keeps the tables, their indexes, triggers and the foreign keys that point at them. The
 * column moves to the end of its table; no statement reads these tables with `SELECT *`.
 */
export const m741_negative_balances: Migration = {
  version: 741,
  name: 'a chargeback may take a wallet below zero',
  sql: (dialect) =>
    dialect === 'postgres'
      ? `
ALTER TABLE wallets DROP CONSTRAINT wallets_balance_check;
ALTER TABLE wallets ADD CONSTRAINT wallets_balance_check CHECK (balance >= ${FLOOR});
ALTER TABLE wallet_entries DROP CONSTRAINT wallet_entries_balance_after_check;
ALTER TABLE wallet_entries ADD CONSTRAINT wallet_entries_balance_after_check CHECK (${ENTRY_RULE});
`
      : `
ALTER TABLE wallets ADD COLUMN balance_next BIGINT NOT NULL DEFAULT 0 CHECK (balance_next >= ${FLOOR});
UPDATE wallets SET balance_next = balance;
ALTER TABLE wallets DROP COLUMN balance;
ALTER TABLE wallets RENAME COLUMN balance_next TO balance;
ALTER TABLE wallet_entries ADD COLUMN balance_after_next BIGINT NOT NULL DEFAULT 0 CHECK (${ENTRY_RULE.replace('balance_after', 'balance_after_next')});
UPDATE wallet_entries SET balance_after_next = balance_after;
ALTER TABLE wallet_entries DROP COLUMN balance_after;
ALTER TABLE wallet_entries RENAME COLUMN balance_after_next TO balance_after;
`,
};
