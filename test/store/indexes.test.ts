/**
 * The lists' indexes are ascending, so a new row appends to them (migration 570): in a
 * `created_at DESC, id DESC` index the newest row goes to the front of its range, and every
 * insert splits a page on its left edge. The lists read them backwards at the same cost: the
 * plans below use the index for the ORDER BY, with no sort of their own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/store/db.js';
import { backend, testStore, type TestStore } from '../helpers/backend.js';

let store: TestStore;
let db: Db;
beforeAll(async () => {
  store = await testStore();
  db = await store.open();
});
afterAll(async () => {
  await db.close();
  await store.cleanup();
});

describe('indexes that new rows append to', () => {
  it('no index of the schema orders a column descending', async () => {
    const defs =
      backend === 'sqlite'
        ? (await db.all<{ name: string; sql: string }>("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")).map((r) => r.sql)
        : (await db.all<{ indexdef: string }>('SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema()')).map((r) => r.indexdef);
    expect(defs.length).toBeGreaterThan(20);
    expect(defs.filter((d) => /\bDESC\b/i.test(d))).toEqual([]);
  });

  it('the indexes by submerchant and payment link hold only the rows that have one', async () => {
    if (backend !== 'sqlite') return;
    const rows = await db.all<{ name: string; sql: string }>(
      "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND name IN ('charges_submerchant', 'charges_payment_link', 'withdrawals_submerchant', 'payment_links_submerchant', 'files_submerchant')",
    );
    expect(rows).toHaveLength(5);
    for (const r of rows) expect(r.sql).toMatch(/WHERE (submerchant_id|payment_link_id) IS NOT NULL$/);
  });
});

describe('the Idempotency-Keys', () => {
  // every index is written by every keyed request (and its rightmost page by every group commit)
  it('have one index beside their key: by merchant and expiry, the one their purge reads', async () => {
    const names =
      backend === 'sqlite'
        ? (await db.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'idempotency_keys' AND sql IS NOT NULL")).map((r) => r.name)
        : (await db.all<{ indexname: string }>("SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'idempotency_keys' AND indexname <> 'idempotency_keys_pkey'")).map((r) => r.indexname);
    expect(names).toEqual(['idempotency_merchant_expiry']);
    if (backend !== 'sqlite') return;
    const plan = await db.all<{ detail: string }>('EXPLAIN QUERY PLAN SELECT key FROM idempotency_keys WHERE merchant_id = ? AND expires_at <= ? ORDER BY expires_at LIMIT ?', ['m', 'x', 10]);
    expect(plan.map((r) => r.detail).join(' | ')).toMatch(/USING (COVERING )?INDEX idempotency_merchant_expiry \(merchant_id=\? AND expires_at<\?\)/);
  });
});

describe.runIf(backend === 'sqlite')('list plans (SQLite)', () => {
  const plan = async (sql: string) => {
    const n = (sql.match(/\?/g) ?? []).length;
    const rows = await db.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, Array(n).fill('x'));
    return rows.map((r) => r.detail).join(' | ');
  };
  const newestFirst = 'ORDER BY created_at DESC, id DESC LIMIT 20';
  it.each([
    ['charges', `SELECT * FROM charges WHERE merchant_id = ? ${newestFirst}`, 'charges_merchant'],
    ['charges, next page', `SELECT * FROM charges WHERE merchant_id = ? AND created_at <= ? AND (created_at < ? OR id < ?) ${newestFirst}`, 'charges_merchant'],
    ['charges by status and method', `SELECT * FROM charges WHERE merchant_id = ? AND status = ? AND payment_method = ? ${newestFirst}`, 'charges_merchant_status'],
    ['charges between dates', `SELECT * FROM charges WHERE merchant_id = ? AND created_at >= ? AND created_at < ? ${newestFirst}`, 'charges_merchant'],
    ['charges of a submerchant', `SELECT * FROM charges WHERE merchant_id = ? AND submerchant_id = ? ${newestFirst}`, 'charges_submerchant'],
    ['events', `SELECT * FROM events WHERE merchant_id = ? ${newestFirst} OFFSET 0`, 'events_merchant'],
    ['receivables', `SELECT * FROM receivables WHERE merchant_id = ? ${newestFirst} OFFSET 0`, 'receivables_merchant'],
    ['withdrawals', `SELECT * FROM withdrawals WHERE merchant_id = ? AND status = ? ${newestFirst} OFFSET 0`, 'withdrawals_merchant_status'],
    ['webhook deliveries', `SELECT * FROM webhook_delivery_logs WHERE merchant_id = ? ${newestFirst} OFFSET 0`, 'webhook_logs_merchant'],
  ])('%s: read backwards from its index, no sort', async (_name, sql, index) => {
    const p = await plan(sql);
    expect(p).toContain(`USING INDEX ${index} `);
    expect(p).not.toContain('TEMP B-TREE');
  });
  // the wallet's entries and statement (src/server/services/wallets.ts): every page a seek
  it.each([
    ['a page of entries', 'SELECT * FROM wallet_entries WHERE wallet_id = ? AND seq > ? AND seq <= ? ORDER BY seq DESC', /USING INDEX wallet_entries_seq \(wallet_id=\? AND seq>\? AND seq<\?\)/],
    ['entries by direction', 'SELECT seq FROM wallet_entries WHERE wallet_id = ? AND seq <= ? AND direction = ? ORDER BY seq DESC LIMIT 20 OFFSET 40', /USING COVERING INDEX wallet_entries_direction \(wallet_id=\? AND direction=\? AND seq<\?\)/],
    ['entries by reference type', 'SELECT COUNT(*) FROM wallet_entries WHERE wallet_id = ? AND seq <= ? AND reference_type = ?', /USING COVERING INDEX wallet_entries_kind \(wallet_id=\? AND reference_type=\? AND seq<\?\)/],
    ['entries of a period', 'SELECT COUNT(*) FROM wallet_entries WHERE wallet_id = ? AND seq <= ? AND created_at >= ? AND created_at < ?', /USING COVERING INDEX wallet_entries_time \(wallet_id=\? AND created_at>\? AND created_at<\?\)/],
    ['a statement page', 'SELECT * FROM wallet_entries WHERE wallet_id = ? AND created_at >= ? AND created_at < ? AND seq <= ? ORDER BY created_at, seq LIMIT 20 OFFSET 3', /USING INDEX wallet_entries_time \(wallet_id=\? AND created_at>\? AND created_at<\?\)/],
    [
      'the sums of a statement',
      "SELECT * FROM wallet_entry_sums WHERE (wallet_id = ? AND span = 'month' AND period >= ? AND period < ?) OR (wallet_id = ? AND span = 'day' AND period >= ? AND period < ?)",
      /MULTI-INDEX OR.*\(wallet_id=\? AND span=\? AND period>\? AND period<\?\).*\(wallet_id=\? AND span=\? AND period>\? AND period<\?\)/,
    ],
  ])('%s: a seek on its index, no sort', async (_name, sql, want) => {
    const p = await plan(sql);
    expect(p).toMatch(want);
    expect(p).not.toContain('TEMP B-TREE');
  });
  it('a charge count by payment link uses the partial index', async () => {
    expect(await plan("SELECT COUNT(*) AS n FROM charges WHERE payment_link_id = ? AND status = 'pending'")).toContain('charges_payment_link');
  });
});
