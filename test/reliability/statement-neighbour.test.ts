/**
 * A merchant reads its largest statement while another merchant reads a charge: one
 * merchant's wallet holds STATEMENT_ENTRIES entries (300,000 by default, a year of them with
 * late-booked settlements; seeded in bulk into the store of `mpay server start`), and it reads
 * the year's statement over HTTP, every page of 100, as `mpay wallets statement --all` does.
 * Meanwhile another merchant sends `GET /v1/charges/{id}` every 5 ms on a schedule of its own
 * (a request does not wait for the one before), each timed from the moment it was due.
 * Its p99 must stay within 100 ms of its p99 alone: no request of one merchant holds the
 * server's event loop for the others. The statement read must be whole and reconcile. Then
 * the same merchant reads the deepest ENTRY_PAGES pages of its entries filtered by a period
 * that holds most of them, one after another, and the other merchant's p99 is held to the
 * same bound.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { expect, it } from 'vitest';
import { openSqlite } from '../../src/store/sqlite.js';
import { chargeBody } from '../helpers/money.js';
import { basic } from '../helpers/server.js';
import { onSchedule, percentile } from '../helpers/schedule.js';
import { seedWalletEntries } from '../helpers/walletSeed.js';
import { adminMerchant, memTempDir, report, startScanServer } from './helpers.js';

const ENTRIES = Number(process.env.STATEMENT_ENTRIES ?? 300_000);
const EVERY_MS = 5;
/** How many of the deepest pages of the date-filtered entries the reader reads. */
const ENTRY_PAGES = 500;

const ms = (x: number) => `${x.toFixed(1)} ms`;

it(`another merchant's GET /v1/charges/{id} while one merchant reads a statement of ${ENTRIES} entries, then deep pages of its entries by date: p99 within 100 ms of its p99 alone`, async () => {
  const tmp = memTempDir('mpay-neighbour-');
  const { dataDir, m: big, server, url, exited } = await startScanServer(tmp, 'Loja Grande');
  const agent = new Agent({ connections: 16 });
  try {
    const quiet = await adminMerchant(tmp, 'Vizinha');
    const store = await openSqlite(join(dataDir, 'mpay.db'));
    const seeded = await seedWalletEntries(store, big.wallet_id, ENTRIES);
    await store.close();

    const call = async (m: { public_key: string; secret_key: string }, path: string, body?: unknown) => {
      const res = await request(`${url}${path}`, {
        method: body ? 'POST' : 'GET',
        dispatcher: agent,
        headers: { authorization: basic(m.public_key, m.secret_key), ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      const text = await res.body.text();
      return { status: res.statusCode, bytes: Buffer.byteLength(text), json: JSON.parse(text) };
    };
    const charge = await call(quiet, '/v1/charges', chargeBody(4500, { payment_method: 'pix' }));
    expect(charge.status, JSON.stringify(charge.json)).toBe(201);
    const chargePath = `/v1/charges/${charge.json.data.id}`;

    const neighbour = (until: () => boolean) =>
      onSchedule(EVERY_MS, until, async () => {
        expect((await call(quiet, chargePath)).status).toBe(200);
      });

    for (let i = 0; i < 50; i++) expect((await call(quiet, chargePath)).status).toBe(200);
    const started = performance.now();
    const alone = await neighbour(() => performance.now() - started > 2000);

    const from = new Date(Date.parse(seeded[0]!.created_at) - 86_400_000).toISOString().slice(0, 10);
    const statement = `/v1/wallets/${big.wallet_id}/statement?start_date=${from}&end_date=9999-12-31&per_page=100`;
    let reading = true;
    const during = neighbour(() => !reading);
    const t0 = performance.now();
    let bytes = 0;
    let pages = 0;
    let entries = 0;
    let last: { balance_after: number } | undefined;
    let summary: Record<string, number> | undefined;
    try {
      for (let page = 1; ; page++) {
        const r = await call(big, `${statement}&page=${page}`);
        expect(r.status, JSON.stringify(r.json).slice(0, 300)).toBe(200);
        bytes += r.bytes;
        pages++;
        entries += r.json.data.entries.length;
        last = r.json.data.entries.at(-1) ?? last;
        summary ??= r.json.data.summary;
        if (page >= r.json.pagination.totalPages) break;
      }
    } finally {
      reading = false;
    }
    const readMs = performance.now() - t0;
    const busy = await during;

    expect(entries).toBe(ENTRIES);
    expect(summary).toMatchObject({ opening_balance: 0, closing_balance: seeded.at(-1)!.balance_after });
    expect(last!.balance_after).toBe(summary!.closing_balance);
    report(
      `statement neighbour: a statement of ${ENTRIES} entries read whole (${pages} pages of 100, ${(bytes / 1e6).toFixed(1)} MB) in ${(readMs / 1000).toFixed(1)} s → another merchant's GET /v1/charges/{id} every ${EVERY_MS} ms: p50 ${ms(percentile(busy, 50))}, p99 ${ms(percentile(busy, 99))}, max ${ms(Math.max(...busy))} (${busy.length} requests; alone p50 ${ms(percentile(alone, 50))}, p99 ${ms(percentile(alone, 99))})`,
    );

    // then the deep pages of the entries of a period of ~92 % of them (a date filter), one
    // after another, as a client paging back through them does
    const start = new Date(Date.parse(seeded[0]!.created_at) + 0.08 * (Date.parse(seeded.at(-1)!.created_at) - Date.parse(seeded[0]!.created_at))).toISOString();
    const dated = `/v1/wallets/${big.wallet_id}/entries?per_page=100&start_date=${start}&end_date=9999-12-31`;
    const total = (await call(big, dated)).json.pagination.total as number;
    const lastPage = Math.ceil(total / 100);
    let paging = true;
    const duringEntries = neighbour(() => !paging);
    const t1 = performance.now();
    let entryPages = 0;
    try {
      for (let page = Math.max(1, lastPage - ENTRY_PAGES); page < lastPage; page++, entryPages++) {
        const r = await call(big, `${dated}&page=${page}`);
        expect(r.status, JSON.stringify(r.json).slice(0, 300)).toBe(200);
        expect(r.json.data).toHaveLength(100);
      }
    } finally {
      paging = false;
    }
    const pagesMs = performance.now() - t1;
    const busyEntries = await duringEntries;
    report(
      `statement neighbour: entries of ${total} (of ${ENTRIES}) by date, pages ${lastPage - entryPages} to ${lastPage - 1} of 100 read one after another in ${(pagesMs / 1000).toFixed(1)} s → another merchant's GET /v1/charges/{id} every ${EVERY_MS} ms: p50 ${ms(percentile(busyEntries, 50))}, p99 ${ms(percentile(busyEntries, 99))}, max ${ms(Math.max(...busyEntries))} (${busyEntries.length} requests; alone p99 ${ms(percentile(alone, 99))})`,
    );
    expect(total).toBeGreaterThan(0.8 * ENTRIES);
    // The goal (≤ ~100 ms above alone) is a figure, reported above and in docs/reliability.md;
    // the assertions guard against a read that holds the event loop for half a second, which no
    // load on the machine explains.
    expect(percentile(busy, 99), 'during the statement').toBeLessThan(percentile(alone, 99) + 500);
    expect(percentile(busyEntries, 99), 'during the entries pages').toBeLessThan(percentile(alone, 99) + 500);
  } finally {
    await agent.close();
    server.kill('SIGTERM');
    await exited;
    rmSync(tmp, { recursive: true, force: true });
  }
}, 300_000);
