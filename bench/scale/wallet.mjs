// A wallet at scale: one merchant's wallet holds ENTRIES entries over a year (seeded in bulk
// with SQL, shaped like the ledger writes them, late-booked settlements included:
// `seedWalletEntries`, test/helpers/walletSeed.ts). Measured through the app in-process (app.request:
// the whole pipeline without the socket), medians of RUNS calls after 2 warm-ups:
//  - the year's statement: its first page, its last page, and the whole statement (every page
//    of 100, as `mpay wallets statement --all` reads it);
//  - the entries list: page 1 and page 2999 of 100, and pages filtered by direction, by
//    reference type and by date (a period of about 275,000 entries: its page 1 and page 2700);
//  - what a ledger entry costs to write: 2,000 credits, one a transaction, 200 in flight;
//  - another merchant's GET /v1/charges/{id}, one every 5 ms, while the first merchant reads
//    its whole statement, and while it reads pages 2000 to 2700 of the period's entries:
//    p50 / p99 / max from each call's scheduled moment, against the same calls alone.
// A server without statement pages (it refuses `per_page` with a 400) is measured on its one
// whole answer instead. With MPAY_DATABASE_URL the store is that PostgreSQL (a schema of its
// own, dropped at the end) instead of SQLite in a temp directory.
//
//   npm run bench:wallet            # ENTRIES=300000 RUNS=5 WRITES=2000
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const ENTRIES = Number(process.env.ENTRIES ?? 300_000);
const RUNS = Number(process.env.RUNS ?? 5);
const PG = process.env.MPAY_DATABASE_URL;

const out = join(root, 'test-artifacts', `wallet-${process.pid}`, 'runtime.mjs');
const { build } = await import('esbuild');
await build({ entryPoints: [join(root, 'bench', 'scale', 'entry.ts')], outfile: out, bundle: true, platform: 'node', format: 'esm', packages: 'external', logLevel: 'warning' });
const { openRuntime, createMerchant, credit, seedCharges, seedWalletEntries, onSchedule, percentile } = await import(out);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

let schema;
let databaseUrl;
if (PG) {
  const pg = (await import('pg')).default;
  schema = `bench_${process.pid}`;
  const c = new pg.Client({ connectionString: PG });
  await c.connect();
  await c.query(`CREATE SCHEMA ${schema}`);
  await c.end();
  const u = new URL(PG);
  u.searchParams.set('options', `-c search_path=${schema}`);
  databaseUrl = u.toString();
}
const dir = mkdtempSync(join(tmpdir(), 'mpay-wallet-'));
const rt = await openRuntime({ dataDir: dir, rateLimit: null, databaseUrl });
const a = await rt.deps.db.tx((q) => createMerchant(q, rt.deps, 'Loja Grande', new Date()));
const b = await rt.deps.db.tx((q) => createMerchant(q, rt.deps, 'Vizinha', new Date()));
// what writing an entry costs (its indexes and sums included): 2,000 credits through the
// ledger, 200 transactions in flight at a time (group-committed), to the other merchant's wallet
const WRITES = Number(process.env.WRITES ?? 2000);
const tw = performance.now();
for (let done = 0; done < WRITES; done += 200) {
  await Promise.all(
    Array.from({ length: 200 }, () =>
      rt.deps.db.tx((q) => credit(q, rt.deps.ids, { walletId: b.wallet_id, amount: 100, referenceType: 'test', referenceId: rt.deps.ids(), description: 'bench', at: new Date() })),
    ),
  );
}
const writesPerS = WRITES / ((performance.now() - tw) / 1000);
const t0 = performance.now();
await seedWalletEntries(rt.deps.db, a.wallet_id, ENTRIES);
await seedCharges(rt.deps.db, b.merchant_id, 100);
console.error(`seeded ${ENTRIES.toLocaleString('en')} entries in ${((performance.now() - t0) / 1000).toFixed(1)} s (${PG ? 'PostgreSQL' : 'SQLite'})`);
const chargeId = (await rt.deps.db.get('SELECT id FROM charges WHERE merchant_id = ? ORDER BY created_at DESC LIMIT 1', [b.merchant_id])).id;

const authOf = (m) => 'Basic ' + Buffer.from(`${m.public_key}:${m.secret_key}`).toString('base64');
async function call(m, path) {
  const t = performance.now();
  const res = await rt.app.request(path, { headers: { authorization: authOf(m) } });
  const text = await res.text();
  const ms = performance.now() - t;
  return { ms, status: res.status, bytes: Buffer.byteLength(text), body: JSON.parse(text) };
}
async function measure(m, path) {
  for (let i = 0; i < 2; i++) await call(m, path);
  const xs = [];
  let last;
  for (let i = 0; i < RUNS; i++) {
    last = await call(m, path);
    if (last.status !== 200) throw new Error(`${path}: ${last.status} ${JSON.stringify(last.body).slice(0, 300)}`);
    xs.push(last.ms);
  }
  return { ms: median(xs), bytes: last.bytes, body: last.body };
}

const end = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
const start = new Date(Date.now() - 366 * 86_400_000).toISOString().slice(0, 10);
const statement = `/v1/wallets/${a.wallet_id}/statement?start_date=${start}&end_date=${end}`;
const paged = (await call(a, `${statement}&per_page=100`)).status === 200;
const rows = [];
const row = (name, r) => rows.push({ name, ms: r.ms, bytes: r.bytes });

/** The whole statement as a client reads it: every page of 100, or the one answer. */
async function readWholeStatement() {
  const t = performance.now();
  let bytes = 0;
  let entries = 0;
  for (let page = 1; ; page++) {
    const r = await call(a, paged ? `${statement}&per_page=100&page=${page}` : statement);
    if (r.status !== 200) throw new Error(`statement: ${r.status}`);
    bytes += r.bytes;
    entries += r.body.data.entries.length;
    if (!paged || page >= r.body.pagination.totalPages) break;
    // the next request arrives as a client's would, through the event loop (in-process calls
    // on SQLite otherwise run one after another without ever letting a timer fire)
    await new Promise((res) => setImmediate(res));
  }
  return { ms: performance.now() - t, bytes, entries };
}

if (paged) {
  const first = await measure(a, `${statement}&per_page=100`);
  row('statement, page 1 of 100', first);
  row(`statement, page ${first.body.pagination.totalPages} of 100 (last)`, await measure(a, `${statement}&per_page=100&page=${first.body.pagination.totalPages}`));
}
const whole = [];
for (let i = 0; i < Math.max(1, Math.min(RUNS, 3)); i++) whole.push(await readWholeStatement());
row(paged ? `whole statement (${whole[0].entries} entries, every page)` : `whole statement (${whole[0].entries} entries, one answer)`, {
  ms: median(whole.map((w) => w.ms)),
  bytes: whole[0].bytes,
});
const entries = `/v1/wallets/${a.wallet_id}/entries?per_page=100`;
row('entries, page 1 of 100', await measure(a, entries));
row('entries, page 2999 of 100', await measure(a, `${entries}&page=2999`));
row('entries direction=debit, page 1', await measure(a, `${entries}&direction=debit`));
row('entries direction=debit, page 700', await measure(a, `${entries}&direction=debit&page=700`));
row('entries reference_type=receivable, page 1', await measure(a, `${entries}&reference_type=receivable`));
row('entries reference_type=receivable, page 70', await measure(a, `${entries}&reference_type=receivable&page=70`));
const monthAgo = new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10);
row('entries of the last 30 days, page 1', await measure(a, `${entries}&start_date=${monthAgo}`));
// a period of about 275,000 of the entries, as a date filter, at its first and a deep page
const dated = `${entries}&start_date=${new Date(Date.now() - 335 * 86_400_000).toISOString().slice(0, 10)}&end_date=${end}`;
const datedFirst = await measure(a, dated);
row(`entries of 335 days (${datedFirst.body.pagination.total} match), page 1`, datedFirst);
row('entries of 335 days, page 2700', await measure(a, `${dated}&page=2700`));
row('entries of 335 days direction=credit, page 2000', await measure(a, `${dated}&direction=credit&page=2000`));

// another merchant's reads while the statement is read: one due every 5 ms, each timed from
// when it was due (test/helpers/schedule.ts)
const neighbour = (until) =>
  onSchedule(5, until, async () => {
    const r = await call(b, `/v1/charges/${chargeId}`);
    if (r.status !== 200) throw new Error(`GET /v1/charges/{id}: ${r.status}`);
  });
for (let i = 0; i < 50; i++) await call(b, `/v1/charges/${chargeId}`);
const alone = await neighbour(((t) => () => performance.now() - t > 1500)(performance.now()));
let stop = false;
const busy = neighbour(() => stop);
const reads = [];
for (let i = 0; i < Math.max(1, Math.min(RUNS, 3)); i++) reads.push(await readWholeStatement());
stop = true;
const during = await busy;
// … and while it reads the deep pages of the entries of 335 days, one after another
stop = false;
const busyEntries = neighbour(() => stop);
const tEntries = performance.now();
let entryPages = 0;
for (let page = 2000; page <= 2700; page++, entryPages++) {
  const r = await call(a, `${dated}&page=${page}`);
  if (r.status !== 200 || r.body.data.length !== 100) throw new Error(`entries page ${page}: ${r.status}`);
  await new Promise((res) => setImmediate(res));
}
const entriesMs = performance.now() - tEntries;
stop = true;
const duringEntries = await busyEntries;

await rt.close();
rmSync(dir, { recursive: true, force: true });
rmSync(dirname(out), { recursive: true, force: true });
if (PG) {
  const pg = (await import('pg')).default;
  const c = new pg.Client({ connectionString: PG });
  await c.connect();
  await c.query(`DROP SCHEMA ${schema} CASCADE`);
  await c.end();
}

console.log(`A wallet of ${ENTRIES.toLocaleString('en')} entries (${PG ? 'PostgreSQL' : 'SQLite'}), through the app in-process, median of ${RUNS} (node ${process.versions.node})`);
for (const r of rows) console.log(`  ${r.name.padEnd(48)} ${r.ms.toFixed(1).padStart(9)} ms ${(r.bytes / 1e6).toFixed(2).padStart(8)} MB`);
console.log(`  ledger credits, ${WRITES} in transactions of one (200 in flight): ${writesPerS.toFixed(0)} /s`);
const fmt = (xs) => `p50 ${median(xs).toFixed(1)} ms, p99 ${percentile(xs, 99).toFixed(1)} ms, max ${Math.max(...xs).toFixed(1)} ms (${xs.length} calls)`;
console.log(`  another merchant's GET /v1/charges/{id} alone:            ${fmt(alone)}`);
console.log(`  … while the statement is read ${reads.length}× (${(median(reads.map((r) => r.ms)) / 1000).toFixed(2)} s each): ${fmt(during)}`);
console.log(`  … while ${entryPages} deep pages of the 335 days' entries are read (${(entriesMs / 1000).toFixed(2)} s): ${fmt(duringEntries)}`);
