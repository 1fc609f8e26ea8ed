/**
 * The entries list with filters (docs/api.md, "Wallets"): its pages hold exactly what the
 * filters select, newest first in write order, and a deep page reads no more of the store than
 * the first: the total and where a page starts come from the wallet's blocks of entries
 * (migration 760), not from counting or skipping every entry that matches.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queryable, SqlValue } from '../../src/store/db.js';
import { uuidv7 } from '../../src/domain/ids.js';
import { backend } from '../helpers/backend.js';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { seedWalletEntries } from '../helpers/walletSeed.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Entries as the old list read them: every match counted, the page an offset over them. */
async function oldList(q: Queryable, walletId: string, filters: [string, string][], offset: number, limit: number) {
  const where = `wallet_id = ?${filters.map((f) => ` AND ${f[0]}`).join('')}`;
  const args = [walletId, ...filters.map((f) => f[1])];
  const total = Number((await q.get<{ n: number }>(`SELECT COUNT(*) AS n FROM wallet_entries WHERE ${where}`, args))!.n);
  const rows = await q.all<{ id: string }>(`SELECT id FROM wallet_entries WHERE ${where} ORDER BY seq DESC LIMIT ? OFFSET ?`, [...args, limit, offset]);
  return { total, ids: rows.map((r) => r.id) };
}

describe('entries filtered by date, direction and reference type, on a wallet written out of date order', () => {
  let env: TestEnv;
  const N = 5000;
  const t0 = Date.parse('2026-01-15T12:00:00.000Z');
  beforeAll(async () => {
    env = await testEnv();
    // entries spread over minutes, hours, days and months, in write order (seq), with the
    // merchant's clock jumping ahead by days and back by hours, and settlements dated at an
    // earlier midnight written late
    const rows: SqlValue[][] = [];
    let at = t0 - 200 * DAY;
    let balance = 0;
    for (let seq = 1; seq <= N; seq++) {
      if (seq % 997 === 0) at += 20 * DAY; // a jump ahead
      else if (seq % 613 === 0) at -= 30 * HOUR; // a jump back
      else at += ((seq * 7919) % 97) * 60_000 + ((seq * 13) % 3) * HOUR;
      const late = seq % 37 === 0;
      const when = late ? Math.floor((at - 2 * DAY) / DAY) * DAY : at;
      const direction = seq % 3 === 0 && balance > 1000 ? 'debit' : 'credit';
      const amount = direction === 'debit' ? 1000 : 500 + (seq % 700);
      balance += direction === 'credit' ? amount : -amount;
      const type = late ? 'receivable' : direction === 'debit' ? (seq % 2 ? 'refund' : 'withdrawal') : 'charge';
      rows.push([uuidv7(when), env.merchant.wallet_id, direction, amount, balance, type, uuidv7(when), 'seeded', new Date(when).toISOString(), seq]);
    }
    for (let i = 0; i < rows.length; i += 500) {
      const batch = rows.slice(i, i + 500);
      await env.rt.deps.db.run(
        `INSERT INTO wallet_entries (id, wallet_id, direction, amount, balance_after, reference_type, reference_id, description, created_at, seq)
         VALUES ${batch.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
        batch.flat(),
      );
    }
    await env.rt.deps.db.run('UPDATE wallets SET balance = ?, entry_seq = ? WHERE id = ?', [balance, N, env.merchant.wallet_id]);
    // and a few through the API, as of the merchant's clock
    env.clock.set(new Date(at + HOUR));
    for (let i = 0; i < 3; i++) {
      const r = await env.call('POST', '/v1/sandbox/wallet/adjustments', { direction: 'credit', amount: 100 + i });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      env.clock.advance(-10 * 60_000);
    }
  }, 60_000);
  afterAll(async () => env.close());

  it('every page of every filter holds what the old count-and-offset query held, in the same order', async () => {
    const all = await env.rt.deps.db.all<{ created_at: string }>('SELECT created_at FROM wallet_entries WHERE wallet_id = ? ORDER BY seq', [env.merchant.wallet_id]);
    const at = (i: number) => all[i]!.created_at;
    const bounds: [string | undefined, string | undefined][] = [
      [at(1200), undefined],
      [undefined, at(3100)],
      [at(1500), at(3700)],
      [at(999), at(1001)],
      [at(2450), at(2451)],
      [new Date(t0 - 400 * DAY).toISOString(), new Date(t0 + 400 * DAY).toISOString()],
      ['2030-01-01T00:00:00.000Z', undefined],
    ];
    const kinds: Record<string, string>[] = [{}, { direction: 'debit' }, { reference_type: 'receivable' }, { reference_type: 'charge', direction: 'credit' }, { reference_type: 'refund', direction: 'credit' }];
    let checked = 0;
    for (const [from, to] of bounds) {
      for (const kind of kinds) {
        const filters: [string, string][] = [];
        const params = new URLSearchParams({ per_page: '100' });
        if (kind.reference_type) filters.push(['reference_type = ?', kind.reference_type]), params.set('reference_type', kind.reference_type);
        if (kind.direction) filters.push(['direction = ?', kind.direction]), params.set('direction', kind.direction);
        if (from) filters.push(['created_at >= ?', from]), params.set('start_date', from);
        if (to) filters.push(['created_at < ?', to]), params.set('end_date', new Date(Date.parse(to) - 1).toISOString());
        if (!filters.length) continue;
        const first = await oldList(env.rt.deps.db, env.merchant.wallet_id, filters, 0, 100);
        const last = Math.max(1, Math.ceil(first.total / 100));
        for (const p of new Set([1, 2, 3, Math.ceil(last / 2), last - 1, last, last + 1].filter((x) => x >= 1))) {
          params.set('page', String(p));
          const r = await env.call('GET', `/v1/wallets/${env.merchant.wallet_id}/entries?${params}`);
          const what = `${params}`;
          expect(r.status, `${what}: ${JSON.stringify(r.body).slice(0, 300)}`).toBe(200);
          const want = await oldList(env.rt.deps.db, env.merchant.wallet_id, filters, (p - 1) * 100, 100);
          expect(r.body.pagination.total, what).toBe(want.total);
          expect(
            r.body.data.map((e: { id: string }) => e.id),
            what,
          ).toEqual(want.ids);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(150);
  });
});

describe('what a filtered page of entries reads', () => {
  let env: TestEnv;
  const BIG = 30_000;
  beforeAll(async () => {
    env = await testEnv({ readMemo: false });
    await seedWalletEntries(env.rt.deps.db, env.merchant.wallet_id, BIG, env.clock.now().getTime(), 60);
  }, 120_000);
  afterAll(async () => env.close());

  /**
   * The rows of wallet_entries a request's statements read. On PostgreSQL, as EXPLAIN ANALYZE
   * counts them at each scan of the table (rows returned and rows filtered out). On SQLite,
   * which has no such count: a count reads the rows it counts, a page the rows it skips and
   * returns (its OFFSET and LIMIT), any other statement what it returns; and the plan of each
   * must search a range of entry numbers bounded on both sides (a search by date alone reads
   * every entry of the period, whatever the statement then keeps of them).
   */
  async function rowsRead(path: string): Promise<{ read: number; body: any; statements: string[] }> {
    const db = env.rt.deps.db;
    const seen: [string, readonly SqlValue[]][] = [];
    const { all, get } = db;
    db.all = (sql, params) => (seen.push([sql, params ?? []]), all.call(db, sql, params)) as never;
    db.get = (sql, params) => (seen.push([sql, params ?? []]), get.call(db, sql, params)) as never;
    let r;
    try {
      r = await env.call('GET', path);
    } finally {
      db.all = all;
      db.get = get;
    }
    expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(200);
    let read = 0;
    const statements: string[] = [];
    for (const [sql, params] of seen) {
      if (!/FROM wallet_entries\b/.test(sql)) continue;
      let rows = 0;
      if (backend === 'postgres') {
        const [plan] = await all.call(db, `EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, params);
        type Node = { 'Relation Name'?: string; 'Actual Rows': number; 'Actual Loops': number; 'Rows Removed by Filter'?: number; Plans?: Node[] };
        const walk = (node: Node): number =>
          (node['Relation Name'] === 'wallet_entries' ? (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0)) * node['Actual Loops'] : 0) +
          (node.Plans ?? []).reduce((t, c) => t + walk(c), 0);
        rows = walk((Object.values(plan as object)[0] as [{ Plan: Node }])[0].Plan);
      } else {
        if (/LIMIT \? OFFSET \?/.test(sql)) rows = Number(params.at(-1)) + Number(params.at(-2));
        else if (/COUNT\(\*\)|SUM\(/.test(sql)) rows = Number(Object.values((await get.call(db, sql, params)) ?? { n: 0 })[0]);
        else rows = (await all.call(db, sql, params)).length;
        const plan = (await all.call(db, `EXPLAIN QUERY PLAN ${sql}`, params)) as { detail: string }[];
        for (const step of plan.filter((p) => /wallet_entries\b/.test(p.detail))) {
          expect(step.detail, `${sql}: ${step.detail}`).toMatch(/seq>\? AND seq<\?/);
        }
      }
      read += rows;
      statements.push(`${rows} rows: ${sql.replace(/\s+/g, ' ').slice(0, 160)}`);
    }
    return { read, body: r.body, statements };
  }

  it('a deep page filtered by date reads as few rows as the first, far fewer than match', async () => {
    const now = env.clock.now().getTime();
    const base = `/v1/wallets/${env.merchant.wallet_id}/entries?per_page=100&start_date=${new Date(now - 55 * DAY).toISOString()}&end_date=${new Date(now).toISOString()}`;
    const first = await rowsRead(base);
    const matches = first.body.pagination.total as number;
    expect(matches).toBeGreaterThan(20_000);
    const deep = await rowsRead(`${base}&page=${Math.floor(matches / 100) - 2}`);
    expect(deep.body.data).toHaveLength(100);
    for (const r of [first, deep]) expect(r.read, r.statements.join('\n')).toBeLessThan(5_000);
  });

  it('a deep page filtered by direction or by reference type, with or without dates, reads a bounded number of rows', async () => {
    const now = env.clock.now().getTime();
    const entries = `/v1/wallets/${env.merchant.wallet_id}/entries?per_page=100`;
    const dates = `&start_date=${new Date(now - 50 * DAY).toISOString()}&end_date=${new Date(now - 5 * DAY).toISOString()}`;
    for (const filter of ['direction=credit', 'reference_type=charge', `direction=debit${dates}`, `reference_type=receivable${dates}`]) {
      const first = await rowsRead(`${entries}&${filter}`);
      const total = first.body.pagination.total as number;
      expect(total, filter).toBeGreaterThan(500);
      const deep = await rowsRead(`${entries}&${filter}&page=${Math.ceil(total / 100) - 1}`);
      for (const r of [first, deep]) expect(r.read, `${filter}\n${r.statements.join('\n')}`).toBeLessThan(5_000);
    }
  });
});

describe('the blocks of entry numbers (migration 760)', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await testEnv();
  });
  afterAll(async () => env.close());

  it('count every entry of each block, type and direction, and span their dates, through inserts, changes and deletes', async () => {
    const db = env.rt.deps.db;
    const w = env.merchant.wallet_id;
    const end = env.clock.now().getTime();
    await seedWalletEntries(db, w, 3000, end, 20);
    // what no writer of the app does, but the triggers keep up with whoever writes
    await db.run("UPDATE wallet_entries SET created_at = '2020-01-01T00:00:00.000Z', reference_type = 'refund' WHERE wallet_id = ? AND seq IN (5, 1500)", [w]);
    await db.run("UPDATE wallet_entries SET direction = CASE WHEN direction = 'credit' THEN 'debit' ELSE 'credit' END WHERE wallet_id = ? AND seq BETWEEN 2000 AND 2100", [w]);
    await db.run('DELETE FROM wallet_entries WHERE wallet_id = ? AND seq BETWEEN 1020 AND 1030', [w]);
    const blocks = await db.all<{ block: number; reference_type: string; direction: string; entries: number; first_at: string; last_at: string }>(
      'SELECT block, reference_type, direction, entries, first_at, last_at FROM wallet_entry_blocks WHERE wallet_id = ? AND entries > 0 ORDER BY block, reference_type, direction',
      [w],
    );
    const actual = await db.all<{ block: number; reference_type: string; direction: string; entries: number; first_at: string; last_at: string }>(
      `SELECT (seq - 1) / 1024 AS block, reference_type, direction, COUNT(*) AS entries, MIN(created_at) AS first_at, MAX(created_at) AS last_at
         FROM wallet_entries WHERE wallet_id = ? GROUP BY (seq - 1) / 1024, reference_type, direction ORDER BY 1, 2, 3`,
      [w],
    );
    expect(blocks.map((b) => [Number(b.block), b.reference_type, b.direction, Number(b.entries)])).toEqual(
      actual.map((b) => [Number(b.block), b.reference_type, b.direction, Number(b.entries)]),
    );
    for (const [i, b] of blocks.entries()) {
      expect(b.first_at <= actual[i]!.first_at && b.last_at >= actual[i]!.last_at, JSON.stringify([b, actual[i]])).toBe(true);
    }
    expect(blocks.some((b) => b.reference_type === 'refund' && b.first_at === '2020-01-01T00:00:00.000Z')).toBe(true);
  });
});
