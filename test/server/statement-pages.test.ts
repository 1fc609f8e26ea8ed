/**
 * The wallet statement pages its entries like every list (docs/api.md, "Wallets"): the summary
 * covers the whole period on every page, each page's balance_after chains on from the page
 * before, and a page reads as much of the store at any depth.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { checkStatement, statementFromRows } from '../helpers/money.js';
import { seedWalletEntries } from '../helpers/walletSeed.js';
import { credit } from '../../src/server/services/ledger.js';

let env: TestEnv;
beforeEach(async () => {
  env = await testEnv();
});
afterEach(async () => env.close());

const HOUR = 3_600_000;

/** `n` sandbox adjustments an hour apart: credits, and every third a debit. */
async function adjustments(n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const debit = i % 3 === 2;
    const r = await env.call('POST', '/v1/sandbox/wallet/adjustments', { direction: debit ? 'debit' : 'credit', amount: debit ? 300 + i : 1000 + i });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    env.clock.advance(HOUR);
  }
}

describe('statement pages', () => {
  it('answers its entries a page at a time, oldest first; the summary covers the whole period', async () => {
    const w = env.merchant.wallet_id;
    await adjustments(25);
    const period = 'start_date=2000-01-01&end_date=9999-12-31';
    const first = await env.call('GET', `/v1/wallets/${w}/statement?${period}`);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.pagination).toEqual({ page: 1, perPage: 20, total: 25, totalPages: 2 });
    expect(first.body.data.entries).toHaveLength(20);
    const second = await env.call('GET', `/v1/wallets/${w}/statement?${period}&page=2`);
    expect(second.body.pagination).toEqual({ page: 2, perPage: 20, total: 25, totalPages: 2 });
    expect(second.body.data.entries).toHaveLength(5);

    const want = await statementFromRows(env, w, '2000-01-01', '9999-12-31');
    for (const page of [first, second]) expect(page.body.data.summary).toEqual(want.summary);
    expect([...first.body.data.entries, ...second.body.data.entries]).toEqual(want.entries.map((e) => expect.objectContaining(e)));
    // the second page's chain goes on from the first page's last balance
    const last = first.body.data.entries[19];
    const next = second.body.data.entries[0];
    expect(next.balance_after).toBe(last.balance_after + (next.direction === 'credit' ? next.amount : -next.amount));
    expect(second.body.data.entries[4].balance_after).toBe(want.summary.closing_balance);
  });

  it('a page past the last is empty and still carries the summary and the total', async () => {
    const w = env.merchant.wallet_id;
    await adjustments(4);
    const r = await env.call('GET', `/v1/wallets/${w}/statement?start_date=2000-01-01&end_date=9999-12-31&per_page=3&page=3`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.pagination).toEqual({ page: 3, perPage: 3, total: 4, totalPages: 2 });
    expect(r.body.data.entries).toEqual([]);
    expect(r.body.data.summary).toEqual((await statementFromRows(env, w, '2000-01-01', '9999-12-31')).summary);
  });

  it('takes page and per_page with the ranges of every list', async () => {
    const w = env.merchant.wallet_id;
    for (const [qs, field, message] of [
      ['per_page=101', 'per_page', 'must be at most 100'],
      ['per_page=0', 'per_page', 'must be at least 1'],
      ['page=0', 'page', 'must be at least 1'],
    ] as const) {
      const r = await env.call('GET', `/v1/wallets/${w}/statement?start_date=2026-01-01&end_date=2026-01-31&${qs}`);
      expect(r.status, qs).toBe(400);
      expect(r.body.details, qs).toEqual([{ field, message }]);
    }
  });

  it('every page equals the statement computed from the rows: late-booked entries, bounds inside an hour, any page size', async () => {
    const w = env.merchant.wallet_id;
    const seeded = await seedWalletEntries(env.rt.deps.db, w, 400, env.clock.now().getTime(), 70);
    // some settlements were written after entries dated later than they are
    const late = seeded.filter((e, i) => seeded.slice(0, i).some((f) => f.created_at > e.created_at));
    expect(late.length).toBeGreaterThan(10);
    // and one dated a month before any other, written last: its month's sums are the newest row
    const { ids } = env.rt.deps;
    await env.rt.deps.db.tx((q) =>
      credit(q, ids, { walletId: w, amount: 123, referenceType: 'test', referenceId: ids(), description: 'late', at: new Date(Date.parse(seeded[0]!.created_at) - 40 * 86_400_000) }),
    );
    const at = (i: number) => seeded[i]!.created_at;
    const days = [...new Set(seeded.map((e) => e.created_at.slice(0, 10)))].sort();
    const periods: Array<[string, string]> = [
      ['2000-01-01', '9999-12-31'],
      [days[1]!, days[3]!],
      [at(37), at(311)], // two entries' instants, neither on an hour
      [late[3]!.created_at, late[late.length - 2]!.created_at],
      [`${at(150).slice(0, 13)}:00:00Z`, at(260)], // from the start of an hour to an instant inside one
    ];
    for (const [from, to] of periods) {
      for (const perPage of [1, 7, 100]) {
        if (perPage === 1 && (await statementFromRows(env, w, from, to)).entries.length > 120) continue;
        await checkStatement(env, w, from, to, perPage);
      }
    }
  }, 120_000);

  it("an entry written while a page is answered is in none of the page's numbers", async () => {
    const w = env.merchant.wallet_id;
    await seedWalletEntries(env.rt.deps.db, w, 60, env.clock.now().getTime(), 3);
    const before = await statementFromRows(env, w, '2000-01-01', '9999-12-31');
    // between the statement's reads: a late-booked credit dated inside the period, before the
    // page asked for, and a new one at the end
    const db = env.rt.deps.db;
    const inner = { all: db.all.bind(db), get: db.get.bind(db) };
    let armed = true;
    const write = async () => {
      if (!armed) return;
      armed = false;
      await db.tx(async (q) => {
        await credit(q, env.rt.deps.ids, { walletId: w, amount: 777, referenceType: 'test', referenceId: env.rt.deps.ids(), description: 'late', at: new Date(Date.parse(before.entries[5]!.created_at) + 1) });
        await credit(q, env.rt.deps.ids, { walletId: w, amount: 555, referenceType: 'test', referenceId: env.rt.deps.ids(), description: 'new', at: env.clock.now() });
      });
    };
    let reads = 0;
    db.all = (async (sql: string, p?: never) => {
      const r = await inner.all(sql, p);
      if (/wallet_entr/.test(sql) && ++reads === 1) await write();
      return r;
    }) as typeof db.all;
    db.get = (async (sql: string, p?: never) => {
      const r = await inner.get(sql, p);
      if (/wallet_entr/.test(sql) && ++reads === 1) await write();
      return r;
    }) as typeof db.get;
    try {
      const r = await env.call('GET', `/v1/wallets/${w}/statement?start_date=2000-01-01&end_date=9999-12-31&per_page=10&page=3`);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(armed).toBe(false);
      expect(r.body.pagination.total).toBe(60);
      expect(r.body.data.summary).toEqual(before.summary);
      expect(r.body.data.entries).toEqual(before.entries.slice(20, 30).map((e) => expect.objectContaining(e)));
    } finally {
      db.all = inner.all as typeof db.all;
      db.get = inner.get as typeof db.get;
    }
  });
});

describe('wallet entries pages', () => {
  it('every page, with and without filters, is the rows in write order, newest first', async () => {
    const w = env.merchant.wallet_id;
    const seeded = await seedWalletEntries(env.rt.deps.db, w, 300, env.clock.now().getTime(), 4);
    const days = [...new Set(seeded.map((e) => e.created_at.slice(0, 10)))].sort();
    const refTypes = new Map((await env.rt.deps.db.all<{ id: string; reference_type: string }>('SELECT id, reference_type FROM wallet_entries WHERE wallet_id = ?', [w])).map((r) => [r.id, r.reference_type]));
    const { qFrom, qTo } = await import('../../src/contract/filters.js');
    const [from, to] = [qFrom().parse(days[1]!), qTo().parse(days[2]!)];
    const cases: Array<[string, (e: (typeof seeded)[number]) => boolean]> = [
      ['', () => true],
      ['direction=debit', (e) => e.direction === 'debit'],
      ['reference_type=receivable', (e) => refTypes.get(e.id) === 'receivable'],
      [`start_date=${days[1]}&end_date=${days[2]}`, (e) => e.created_at >= from && e.created_at < to],
      [`direction=credit&start_date=${days[1]}`, (e) => e.direction === 'credit' && e.created_at >= from],
    ];
    for (const [qs, keep] of cases) {
      const want = seeded.filter(keep).reverse();
      for (const perPage of [7, 100]) {
        const got: string[] = [];
        const pages = Math.ceil(want.length / perPage);
        for (let page = 1; page <= pages + 1; page++) {
          const r = await env.call('GET', `/v1/wallets/${w}/entries?per_page=${perPage}&page=${page}${qs ? `&${qs}` : ''}`);
          expect(r.status, JSON.stringify(r.body)).toBe(200);
          expect(r.body.pagination, qs).toEqual({ page, perPage, total: want.length, totalPages: pages });
          got.push(...r.body.data.map((e: { id: string; balance_after: number }) => `${e.id}/${e.balance_after}`));
        }
        expect(got, `${qs} per_page=${perPage}`).toEqual(want.map((e) => `${e.id}/${e.balance_after}`));
      }
    }
  });
});
