/**
 * `wallet_entry_sums` (migration 610): the per-wallet sums of the entries by month, day and
 * hour equal the sums of the rows, whoever writes them — the ledger's one-row inserts, a bulk
 * insert, a change or a delete — and the migration fills them from the entries already there.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Db } from '../../src/store/db.js';
import { uuidv7 } from '../../src/domain/ids.js';
import { createMerchant } from '../../src/server/services/merchants.js';
import { credit, debit } from '../../src/server/services/ledger.js';
import { Keyring } from '../../src/server/keyring.js';
import { backend, testStore, type TestStore } from '../helpers/backend.js';
import { seedWalletEntries } from '../helpers/walletSeed.js';

let store: TestStore;
let db: Db;
beforeEach(async () => {
  store = await testStore();
  db = await store.open();
});
afterEach(async () => {
  await db.close();
  await store.cleanup();
});

async function wallet(name: string): Promise<string> {
  const deps = { ids: () => uuidv7(), keyring: Keyring.fromEnvOrDir(store.dir) } as never;
  return (await db.tx((q) => createMerchant(q, deps, name, new Date('2026-03-01T00:00:00Z')))).wallet_id;
}

/** The sums as stored, and as the rows give them, in one comparable form (empty spans left out). */
async function both() {
  const stored = await db.all<Record<string, unknown>>(
    'SELECT wallet_id, span, period, entries, credits, debits FROM wallet_entry_sums WHERE entries <> 0 OR credits <> 0 OR debits <> 0 ORDER BY wallet_id, span, period',
  );
  const fromRows = [];
  for (const [span, len] of [['day', 10], ['hour', 13], ['month', 7]] as const) {
    fromRows.push(
      ...(await db.all<Record<string, unknown>>(
        `SELECT wallet_id, '${span}' AS span, substr(created_at, 1, ${len}) AS period, COUNT(*) AS entries,
                SUM(CASE WHEN direction = 'credit' THEN amount ELSE 0 END) AS credits, SUM(CASE WHEN direction = 'debit' THEN amount ELSE 0 END) AS debits
           FROM wallet_entries GROUP BY wallet_id, substr(created_at, 1, ${len})`,
      )),
    );
  }
  const key = (r: Record<string, unknown>) => `${r.wallet_id} ${r.span} ${r.period}`;
  fromRows.sort((a, b) => (key(a) < key(b) ? -1 : 1));
  return { stored, fromRows };
}

it('hold the sums of the rows after ledger writes, a bulk insert, a change and a delete', async () => {
  const [a, b] = [await wallet('A'), await wallet('B')];
  const at = (iso: string) => new Date(iso);
  const ids = () => uuidv7();
  await db.tx(async (q) => {
    await credit(q, ids, { walletId: a, amount: 1000, referenceType: 'test', referenceId: ids(), description: 'x', at: at('2026-03-31T02:59:59.999Z') });
    await credit(q, ids, { walletId: a, amount: 250, referenceType: 'test', referenceId: ids(), description: 'x', at: at('2026-03-31T03:00:00.000Z') });
    await debit(q, ids, { walletId: a, amount: 300, referenceType: 'test', referenceId: ids(), description: 'x', at: at('2026-04-01T00:00:00.000Z') });
    // booked late: dated before the entries already written
    await credit(q, ids, { walletId: a, amount: 70, referenceType: 'test', referenceId: ids(), description: 'x', at: at('2026-03-15T12:00:00.000Z') });
  });
  await seedWalletEntries(db, b, 1200, Date.parse('2026-05-01T00:00:00Z'), 70);
  let s = await both();
  expect(s.stored.length).toBeGreaterThan(100);
  expect(s.stored).toEqual(s.fromRows);

  await db.run("UPDATE wallet_entries SET amount = amount + 1, created_at = '2026-02-01T10:00:00.000Z' WHERE wallet_id = ? AND seq = 2", [a]);
  await db.run('UPDATE wallet_entries SET description = ? WHERE wallet_id = ?', ['changed', b]);
  await db.run('DELETE FROM wallet_entries WHERE wallet_id = ? AND seq > 1100', [b]);
  s = await both();
  expect(s.stored).toEqual(s.fromRows);
});

it('are filled from the entries already there when the migration is applied', async () => {
  const w = await wallet('A');
  // the store as it was before migration 610, with entries written then
  if (backend === 'postgres') await db.run('DROP FUNCTION wallet_entry_sums_maintain() CASCADE');
  else for (const t of ['insert', 'update', 'delete']) await db.run(`DROP TRIGGER wallet_entry_sums_${t}`);
  await db.run('DROP TABLE wallet_entry_sums');
  for (const index of ['time', 'direction', 'kind']) await db.run(`DROP INDEX wallet_entries_${index}`);
  await db.run('CREATE INDEX wallet_entries_wallet ON wallet_entries (wallet_id, created_at, id)');
  await db.run('DELETE FROM schema_migrations WHERE version = 610');
  await seedWalletEntries(db, w, 500, Date.parse('2026-05-01T00:00:00Z'), 40);
  await db.close();
  db = await store.open();
  const s = await both();
  expect(s.stored.length).toBeGreaterThan(40);
  expect(s.stored).toEqual(s.fromRows);
});
