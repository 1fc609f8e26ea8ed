import type { Migration } from './index.js';

/** How many entry numbers a block holds: block b holds the entries numbered b·1024 + 1 to (b + 1)·1024. */
const ENTRY_BLOCK = 1024;

/** The PostgreSQL trigger of each operation and the transition tables it reads. */
const TRANSITIONS = { INSERT: 'NEW TABLE AS new_rows', UPDATE: 'OLD TABLE AS old_rows NEW TABLE AS new_rows', DELETE: 'OLD TABLE AS old_rows' };

const COLUMNS = 'wallet_entry_blocks (wallet_id, block, reference_type, direction, entries, first_at, last_at)';

/**
 * Per-wallet blocks of entry numbers (`seq`): for each block of 1,024 numbers and each
 * reference type and direction in it, how many entries and the earliest and latest
 * `created_at` among them, kept by database triggers in the same transaction as every insert,
 * change or delete of an entry, whoever writes it. The entries list is in write order (`seq`)
 * and its filters are on reference type, direction and `created_at`: a block whose entries of
 * the type and direction asked for are all dated inside the period asked for counts whole, one
 * whose are all outside counts nothing, and only a block that spans a bound of the period is
 * counted from its rows. So a filtered list's total, and where any of its pages starts, are
 * read from one row per block and type and from the rows of the blocks that span a bound
 * (src/server/services/wallets.ts), never from every entry that matches.
 *
 * A change or delete of an entry takes it out of its block's count and leaves the block's
 * dates as they were: a span that still holds every entry left in the block, which is all a
 * reader needs of it. Backfilled from the entries present when it is applied.
 */
export const m760_wallet_entry_blocks: Migration = {
  version: 760,
  name: 'wallet entry blocks by number, reference type and direction',
  sql: (dialect) => {
    const blockOf = (row: string) => `(${row}seq - 1) / ${ENTRY_BLOCK}`;
    const table = `
CREATE TABLE wallet_entry_blocks (
  wallet_id TEXT NOT NULL REFERENCES wallets(id),
  block BIGINT NOT NULL,
  reference_type TEXT NOT NULL,
  direction TEXT NOT NULL,
  entries BIGINT NOT NULL,
  first_at TEXT NOT NULL,
  last_at TEXT NOT NULL,
  PRIMARY KEY (wallet_id, block, reference_type, direction)
);
INSERT INTO ${COLUMNS}
  SELECT wallet_id, ${blockOf('')}, reference_type, direction, COUNT(*), MIN(created_at), MAX(created_at)
    FROM wallet_entries GROUP BY wallet_id, ${blockOf('')}, reference_type, direction;
`;
    if (dialect === 'postgres') {
      // statement triggers over the rows each statement wrote, as the sums by month, day and hour
      const add = (source: string) => `INSERT INTO ${COLUMNS}
    SELECT wallet_id, ${blockOf('')}, reference_type, direction, COUNT(*), MIN(created_at), MAX(created_at)
      FROM ${source} GROUP BY wallet_id, ${blockOf('')}, reference_type, direction
    ON CONFLICT (wallet_id, block, reference_type, direction) DO UPDATE SET entries = wallet_entry_blocks.entries + excluded.entries,
      first_at = LEAST(wallet_entry_blocks.first_at, excluded.first_at), last_at = GREATEST(wallet_entry_blocks.last_at, excluded.last_at);`;
      return `${table}
CREATE FUNCTION wallet_entry_blocks_maintain() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    UPDATE wallet_entry_blocks b SET entries = b.entries - o.entries
      FROM (SELECT wallet_id, ${blockOf('')} AS block, reference_type, direction, COUNT(*) AS entries
              FROM old_rows GROUP BY wallet_id, ${blockOf('')}, reference_type, direction) o
     WHERE b.wallet_id = o.wallet_id AND b.block = o.block AND b.reference_type = o.reference_type AND b.direction = o.direction;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    ${add('new_rows')}
  END IF;
  RETURN NULL;
END $$;
${Object.entries(TRANSITIONS)
  .map(([op, tables]) => `CREATE TRIGGER wallet_entry_blocks_${op.toLowerCase()} AFTER ${op} ON wallet_entries REFERENCING ${tables}
  FOR EACH STATEMENT EXECUTE FUNCTION wallet_entry_blocks_maintain();`)
  .join('\n')}
`;
    }
    const addRow = `INSERT INTO ${COLUMNS}
    VALUES (NEW.wallet_id, ${blockOf('NEW.')}, NEW.reference_type, NEW.direction, 1, NEW.created_at, NEW.created_at)
    ON CONFLICT (wallet_id, block, reference_type, direction) DO UPDATE SET entries = wallet_entry_blocks.entries + 1,
      first_at = min(wallet_entry_blocks.first_at, excluded.first_at), last_at = max(wallet_entry_blocks.last_at, excluded.last_at);`;
    const takeRow = `UPDATE wallet_entry_blocks SET entries = entries - 1
     WHERE wallet_id = OLD.wallet_id AND block = ${blockOf('OLD.')} AND reference_type = OLD.reference_type AND direction = OLD.direction;`;
    return `${table}
CREATE TRIGGER wallet_entry_blocks_insert AFTER INSERT ON wallet_entries BEGIN
  ${addRow}
END;
CREATE TRIGGER wallet_entry_blocks_update AFTER UPDATE OF wallet_id, seq, reference_type, direction, created_at ON wallet_entries BEGIN
  ${takeRow}
  ${addRow}
END;
CREATE TRIGGER wallet_entry_blocks_delete AFTER DELETE ON wallet_entries BEGIN
  ${takeRow}
END;
`;
  },
};
