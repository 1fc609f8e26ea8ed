import type { Migration } from './index.js';

/** The spans entries are summed by, and the length of their key: `created_at`'s first characters. */
const SPANS = [
  ['month', 7], // 2026-03
  ['day', 10], // 2026-03-31
  ['hour', 13], // 2026-03-31T03
] as const;

const COLUMNS = 'wallet_entry_sums (wallet_id, span, period, entries, credits, debits)';
const ADD = `ON CONFLICT (wallet_id, span, period) DO UPDATE SET entries = wallet_entry_sums.entries + excluded.entries,
      credits = wallet_entry_sums.credits + excluded.credits, debits = wallet_entry_sums.debits + excluded.debits`;

/** The sums by span and key of the entries in `source` (a table of entries), negated with sign '-'. */
const sumsOf = (source: string, sign: '' | '-') =>
  SPANS.map(
    ([span, len]) => `SELECT wallet_id, '${span}', substr(created_at, 1, ${len}), ${sign}COUNT(*),
           ${sign}SUM(CASE WHEN direction = 'credit' THEN amount ELSE 0 END), ${sign}SUM(CASE WHEN direction = 'debit' THEN amount ELSE 0 END)
      FROM ${source} GROUP BY wallet_id, substr(created_at, 1, ${len})`,
  ).join('\n    UNION ALL ');

/** The sums of one entry (a trigger's NEW or OLD row), added to its month, day and hour. */
const addRow = (row: 'NEW' | 'OLD', sign: '' | '-') =>
  SPANS.map(
    ([span, len]) => `INSERT INTO ${COLUMNS}
    VALUES (${row}.wallet_id, '${span}', substr(${row}.created_at, 1, ${len}), ${sign}1,
            ${sign}CASE WHEN ${row}.direction = 'credit' THEN ${row}.amount ELSE 0 END, ${sign}CASE WHEN ${row}.direction = 'debit' THEN ${row}.amount ELSE 0 END)
    ${ADD};`,
  ).join('\n  ');

/**
 * Per-wallet sums of the entries by month, day and hour of `created_at` (UTC; `period` is
 * `created_at`'s first 7, 10 or 13 characters): how many, their credits and their debits,
 * kept exact by database triggers in the same transaction as every insert, change or delete
 * of an entry, whoever writes it. A statement's opening balance, totals and count, and where
 * any of its pages starts with the balance there, are read from a few dozen of these rows
 * (the months before the period, the days of one month, the hours of one day) and from the
 * entries of at most three hours (src/server/services/wallets.ts), never from every entry of
 * the period. A settlement booked late (dated before entries already written) is summed in
 * its own month, day and hour, so the sums hold in effective-time order whatever order the
 * entries were written in. Backfilled from the entries present when it is applied.
 *
 * The wallet's index by time orders by `seq` after `created_at` (the statement's order)
 * instead of by `id`; two more hold each entry's number by direction and by reference type,
 * so the entries list filtered on them counts and skips entries in an index alone.
 */
export const m610_wallet_entry_sums: Migration = {
  version: 610,
  name: 'wallet entry sums by month, day and hour',
  sql: (dialect) => {
    const table = `
CREATE TABLE wallet_entry_sums (
  wallet_id TEXT NOT NULL REFERENCES wallets(id),
  span TEXT NOT NULL CHECK (span IN ('month', 'day', 'hour')),
  period TEXT NOT NULL,
  entries BIGINT NOT NULL,
  credits BIGINT NOT NULL,
  debits BIGINT NOT NULL,
  PRIMARY KEY (wallet_id, span, period)
);
INSERT INTO ${COLUMNS}
    ${sumsOf('wallet_entries', '')};
DROP INDEX wallet_entries_wallet;
CREATE INDEX wallet_entries_time ON wallet_entries (wallet_id, created_at, seq);
CREATE INDEX wallet_entries_direction ON wallet_entries (wallet_id, direction, seq);
CREATE INDEX wallet_entries_kind ON wallet_entries (wallet_id, reference_type, seq);
`;
    if (dialect === 'postgres') {
      // statement triggers over the rows each statement wrote: a multi-row INSERT (a bulk load)
      // adds one row of sums per span and key, not three per entry
      return `${table}
CREATE FUNCTION wallet_entry_sums_maintain() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO ${COLUMNS}
    ${sumsOf('old_rows', '-')}
    ${ADD};
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO ${COLUMNS}
    ${sumsOf('new_rows', '')}
    ${ADD};
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER wallet_entry_sums_insert AFTER INSERT ON wallet_entries REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION wallet_entry_sums_maintain();
CREATE TRIGGER wallet_entry_sums_update AFTER UPDATE ON wallet_entries REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION wallet_entry_sums_maintain();
CREATE TRIGGER wallet_entry_sums_delete AFTER DELETE ON wallet_entries REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION wallet_entry_sums_maintain();
`;
    }
    return `${table}
CREATE TRIGGER wallet_entry_sums_insert AFTER INSERT ON wallet_entries BEGIN
  ${addRow('NEW', '')}
END;
CREATE TRIGGER wallet_entry_sums_update AFTER UPDATE OF wallet_id, direction, amount, created_at ON wallet_entries BEGIN
  ${addRow('OLD', '-')}
  ${addRow('NEW', '')}
END;
CREATE TRIGGER wallet_entry_sums_delete AFTER DELETE ON wallet_entries BEGIN
  ${addRow('OLD', '-')}
END;
`;
  },
};
