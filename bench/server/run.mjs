// HTTP throughput benchmark on loopback, with wrk (Debian package `wrk`).
//
// Baselines measured in the same run:
//  - a bare node:http server answering a small JSON
//  - node:http answering GET /v1/charges/{id} with one SQLite read of the same charge from
//    mpay's database and nothing else (sqlite-read-baseline.mjs): the ceiling for any GET that
//    reads SQLite on this machine (the baseline of both GET rows)
//  - the raw single-transaction SQLite insert rate (better-sqlite3, WAL, synchronous=FULL,
//    BEGIN IMMEDIATE; INSERT one charge-sized row; COMMIT) (for POST /v1/charges)
//  - with MPAY_TEST_DATABASE_URL set: node:http answering the same GET with one PostgreSQL read
//    (pg-read-baseline.mjs), the baseline of the PostgreSQL row (a figure, no target)
// against `mpay server start` on a temp data directory seeded through the CLI (admin merchants
// create) and the API (a card token, some charges), with the rate limiter on (at a rate wrk
// does not reach: every request still takes a token). A second server holds 100k charges
// seeded through the store (bench/scale/entry.ts) for "POST after 100k".
// A second mpay server on the same data directory runs with --no-read-memo: the two GET rows
// again with the store read for every request (src/server/readMemo.ts), as figures.
// Each case runs REPEATS times (default 3), interleaved; the table shows medians. While a case
// runs, the benchmark's other servers are stopped (SIGSTOP), so their timers stay off the cores.
// A server is stopped only 100 ms after its case (the requests wrk left in flight answered), not
// inside a read transaction: a reader stopped there would keep the WAL of the store it shares from
// restarting for the cases after it (the line "WAL files at the end" tells).
// Targets: GET /v1/charges/{id} ≥ 60 % of the SQLite read row, p99 ≤ 3 ms at
// 16 connections; GET /v1/charges (first page of 20) ≥ 40 % of it; POST ≥ 60 % of the raw
// insert; POST on 100k stored charges ≥ 80 % of POST on the (nearly) empty store.
//
//   node bench/server/run.mjs            # DURATION=5 REPEATS=3 CONNECTIONS=16 by default
//   RUNS_RPS=1 node bench/server/run.mjs # also print every run's req/s and p99 (the spread behind a median)
//   CASES=read,get node bench/server/run.mjs   # only these cases (names as in `cases` below)
//   WARM=0 node bench/server/run.mjs     # no unmeasured load before each case (default 2 s)
//   MPAY_TEST_DATABASE_URL=postgres://… node bench/server/run.mjs   # adds the PostgreSQL rows
// The CPU column is the server process's CPU time (user + system, /proc) per request answered.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = join(root, 'bin', 'mpay.js');
const DURATION = Number(process.env.DURATION ?? 5);
const REPEATS = Number(process.env.REPEATS ?? 3);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 16);
// A server continued after ~40 s stopped has looked idle to V8, which shrinks its young
// generation to 1 MB at the next collection and grows it back only under load: for its first
// seconds it scavenges two to three times as often (--trace-gc: 314 scavenges in its first 5 s,
// 140 in the next 5), and the GET's p99 measured that (first 5 s 3.79, 3.99, 2.36 ms; the same
// GET right after, 2.77, 2.62, 1.96). Each case therefore runs WARM seconds of its own load,
// unmeasured, before it is measured: every server's row a steady state, the baselines' too.
// WARM=0: none.
const WARM = Number(process.env.WARM ?? 2);

if (spawnSync('wrk', ['--version']).error) {
  console.error('wrk is not installed: apt-get install -y wrk');
  process.exit(2);
}
const build = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--no-types', '--quiet'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const tmp = mkdtempSync(join(tmpdir(), 'mpay-bench-server-'));
const dataDir = join(tmp, 'data');
const env = { ...process.env, MPAY_DATA_DIR: dataDir, MPAY_CONFIG_DIR: join(tmp, 'conf'), NO_COLOR: '1' };
const children = [];
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
});

/** Starts a process that prints its URL as the first line of stdout. */
function startServer(args, opts = {}) {
  const child = spawn(process.execPath, args, { env: opts.env ?? env, stdio: ['ignore', 'pipe', opts.stderr ?? 'ignore'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const line = out.split('\n')[0];
      if (out.includes('\n')) resolve({ url: line.trim(), child });
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}`)));
  });
}

const BARE = `
const http = require('node:http');
const body = JSON.stringify({ success: true, message: 'ok', data: { id: '0190a8a2-7c1e-7b3e-9f00-000000000000', amount: 1990, status: 'captured' } });
const s = http.createServer((req, res) => { res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) }); res.end(body); });
s.listen(0, '127.0.0.1', () => console.log('http://127.0.0.1:' + s.address().port));
`;

function wrk(url, script, seconds = DURATION) {
  const args = ['-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--latency'];
  if (script) args.push('-s', script);
  args.push(url);
  const r = spawnSync('wrk', args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`wrk failed: ${r.stderr}`);
  const out = r.stdout;
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
  const toMs = (v, u) => Number(v) * ({ us: 0.001, ms: 1, s: 1000 }[u] ?? NaN);
  const pct = (p) => {
    const m = new RegExp(`\\s${p}%\\s+([\\d.]+)(us|ms|s)`).exec(out);
    return m ? toMs(m[1], m[2]) : NaN;
  };
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  const errors = /Socket errors:.*/.exec(out)?.[0] ?? '';
  return { rps, p50: pct(50), p99: pct(99), non2xx, errors, raw: out };
}

/** Raw single-transaction insert rate of a charge-sized row, WAL + synchronous=FULL. */
function sqliteInsertRate(seconds) {
  const db = new Database(join(tmp, 'raw.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec(`CREATE TABLE IF NOT EXISTS charges (id TEXT PRIMARY KEY, merchant_id TEXT NOT NULL, amount BIGINT NOT NULL, status TEXT NOT NULL,
    payment_method TEXT NOT NULL, customer TEXT NOT NULL, items TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
    CREATE INDEX IF NOT EXISTS charges_merchant ON charges (merchant_id, created_at DESC, id DESC);`);
  const ins = db.prepare('INSERT INTO charges VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
  const customer = JSON.stringify({ name: 'Ana Souza', email: 'ana@example.com', tax_id: '52998224725', phone: '+5511987654321', type: 'individual' });
  const items = JSON.stringify([{ name: 'Curso', quantity: 1, unit_price: 1990, tangible: false }]);
  let n = 0;
  const end = performance.now() + seconds * 1000;
  const started = performance.now();
  while (performance.now() < end) {
    const ts = new Date().toISOString();
    db.exec('BEGIN IMMEDIATE');
    ins.run(crypto.randomUUID(), 'm1', 1990, 'captured', 'credit_card', customer, items, ts, ts);
    db.exec('COMMIT');
    n++;
  }
  const rate = n / ((performance.now() - started) / 1000);
  db.close();
  return rate;
}

async function api(url, method, path, auth, body) {
  const res = await fetch(url + path, {
    method,
    headers: { authorization: 'Basic ' + Buffer.from(auth).toString('base64'), 'content-type': 'application/json' },
    body: body && JSON.stringify(body),
  });
  const json = await res.json();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

// --- seed -----------------------------------------------------------------------------
// every request takes a token from its key's bucket; the bucket is large enough never to refuse
const RATE = ['--rate-limit', '100000000,100000000'];
function createMerchant(envOf, extra = []) {
  const r = spawnSync(process.execPath, [bin, 'admin', 'merchants', 'create', '--name', 'Loja Bench', '--json', ...extra], { env: envOf, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`admin merchants create: ${r.stderr}`);
  return JSON.parse(r.stdout);
}
const merchant = createMerchant(env);
const mpay = await startServer([bin, 'server', 'start', '--port', '0', ...RATE]);
const bare = await startServer(['-e', BARE]);
const secret = `${merchant.public_key}:${merchant.secret_key}`;
const card = { number: '4111111111111111', holderName: 'Ana Souza', expirationMonth: '12', expirationYear: '2030', cvv: '123' };
const chargeBodyOf = (token) => ({
  amount: 1990,
  payment_method: 'credit_card',
  product_type: 'digital',
  customer: { name: 'Ana Souza', email: 'ana@example.com', tax_id: '52998224725', phone: '+5511987654321', type: 'individual' },
  items: [{ name: 'Curso', quantity: 1, unit_price: 1990, tangible: false }],
  payment_details: { token, installments: 1 },
});
const tok = await api(mpay.url, 'POST', '/v1/tokens', `${merchant.public_key}:`, { card });
const chargeBody = chargeBodyOf(tok.token);
let chargeId = '';
for (let i = 0; i < 50; i++) chargeId = (await api(mpay.url, 'POST', '/v1/charges', secret, chargeBody)).id;
// the same data directory, every charge read from the store (no memo): figures beside the targets
const noMemo = await startServer([bin, 'server', 'start', '--port', '0', '--no-read-memo', ...RATE]);
const sqliteRead = await startServer([join(root, 'bench', 'server', 'sqlite-read-baseline.mjs'), join(dataDir, 'mpay.db')]);

// a second store holding 100k charges of its merchant, seeded through the store (not HTTP)
const SEEDED = Number(process.env.SEEDED ?? 100_000);
const bigEnv = { ...env, MPAY_DATA_DIR: join(tmp, 'big') };
const bigMerchant = createMerchant(bigEnv);
{
  // bundled under the repository, where its packages resolve
  const out = join(root, 'test-artifacts', `server-bench-${process.pid}`, 'runtime.mjs');
  process.on('exit', () => rmSync(dirname(out), { recursive: true, force: true }));
  const { build } = await import('esbuild');
  await build({ entryPoints: [join(root, 'bench', 'scale', 'entry.ts')], outfile: out, bundle: true, platform: 'node', format: 'esm', packages: 'external', logLevel: 'warning' });
  const { openRuntime, seedCharges } = await import(out);
  const rt = await openRuntime({ dataDir: bigEnv.MPAY_DATA_DIR, rateLimit: null });
  await seedCharges(rt.deps.db, bigMerchant.merchant_id, SEEDED);
  await rt.close();
}
const big = await startServer([bin, 'server', 'start', '--port', '0', ...RATE], { env: bigEnv });
const bigSecret = `${bigMerchant.public_key}:${bigMerchant.secret_key}`;
const bigTok = await api(big.url, 'POST', '/v1/tokens', `${bigMerchant.public_key}:`, { card });

// PostgreSQL: a schema of its own on the server of MPAY_TEST_DATABASE_URL (dropped at the end)
const PG_URL = process.env.MPAY_TEST_DATABASE_URL;
let pgServer, pgRead, pgSecret, pgChargeId, dropSchema;
if (PG_URL) {
  const { default: pg } = await import('pg');
  const schema = `bench_${process.pid}_${Date.now()}`;
  const admin = async (sql) => {
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await admin(`CREATE SCHEMA ${schema}`);
  dropSchema = () => admin(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  const u = new URL(PG_URL);
  u.searchParams.set('options', `-c search_path=${schema}`);
  const pgEnv = { ...env, MPAY_DATA_DIR: join(tmp, 'pg'), MPAY_MASTER_KEY: randomBytes(32).toString('base64'), MPAY_DATABASE_URL: u.toString() };
  const m = createMerchant(pgEnv);
  pgServer = await startServer([bin, 'server', 'start', '--port', '0', ...RATE], { env: pgEnv });
  pgSecret = `${m.public_key}:${m.secret_key}`;
  const t = await api(pgServer.url, 'POST', '/v1/tokens', `${m.public_key}:`, { card });
  for (let i = 0; i < 50; i++) pgChargeId = (await api(pgServer.url, 'POST', '/v1/charges', pgSecret, chargeBodyOf(t.token))).id;
  pgRead = await startServer([join(root, 'bench', 'server', 'pg-read-baseline.mjs'), u.toString()]);
}

const basic = (s) => 'Basic ' + Buffer.from(s).toString('base64');
function getScript(name, auth) {
  const file = join(tmp, `${name}.lua`);
  writeFileSync(file, `wrk.headers["Authorization"] = "${basic(auth)}"\n`);
  return file;
}
function postScript(name, auth, body) {
  const file = join(tmp, `${name}.lua`);
  writeFileSync(
    file,
    `wrk.method = "POST"
wrk.headers["Authorization"] = "${basic(auth)}"
wrk.headers["Content-Type"] = "application/json"
wrk.body = [[${JSON.stringify(body)}]]
local n = 0
local prefix = tostring(os.time()) .. "-" .. tostring(math.random(1, 1e9))
request = function()
  n = n + 1
  wrk.headers["Idempotency-Key"] = "bench-" .. prefix .. "-" .. n
  return wrk.format()
end
`,
  );
  return file;
}
const getLua = getScript('get', secret);
const postLua = postScript('post', secret, chargeBody);
const bigPostLua = postScript('post-big', bigSecret, chargeBodyOf(bigTok.token));
const pgGetLua = PG_URL ? getScript('pg-get', pgSecret) : null;

// --- measure --------------------------------------------------------------------------
const cases = {
  bare: (d) => wrk(bare.url + '/', null, d),
  read: (d) => wrk(`${sqliteRead.url}/v1/charges/${chargeId}`, null, d),
  get: (d) => wrk(`${mpay.url}/v1/charges/${chargeId}`, getLua, d),
  list: (d) => wrk(`${mpay.url}/v1/charges`, getLua, d),
  getNoMemo: (d) => wrk(`${noMemo.url}/v1/charges/${chargeId}`, getLua, d),
  listNoMemo: (d) => wrk(`${noMemo.url}/v1/charges`, getLua, d),
  sqlite: () => ({ rps: sqliteInsertRate(DURATION) }),
  post: (d) => wrk(`${mpay.url}/v1/charges`, postLua, d),
  postBig: (d) => wrk(`${big.url}/v1/charges`, bigPostLua, d),
  ...(PG_URL
    ? {
        pgRead: (d) => wrk(`${pgRead.url}/v1/charges/${pgChargeId}`, null, d),
        pgGet: (d) => wrk(`${pgServer.url}/v1/charges/${pgChargeId}`, pgGetLua, d),
      }
    : {}),
};
// Each case runs with the benchmark's other servers stopped (SIGSTOP): on a 2-core machine
// (wrk on one core, the measured server on the other) the idle ones' timers — due work,
// webhook workers, eight processes — would otherwise take a core now and then, and the p99s
// would measure them. The measured server is continued first and given a moment to run the
// timers that fell due while it was stopped. Before it, `sync`: the dirty pages of the case
// before (the POST cases) are written back then, not by the kernel during this case.
const serverOf = {
  bare,
  read: sqliteRead,
  get: mpay,
  list: mpay,
  getNoMemo: noMemo,
  listNoMemo: noMemo,
  sqlite: null,
  post: mpay,
  postBig: big,
  ...(PG_URL ? { pgRead, pgGet: pgServer } : {}),
};
const SETTLE = new Int32Array(new SharedArrayBuffer(4));
function alone(k, run) {
  const own = serverOf[k]?.child;
  // wrk has returned, but the previous case's server is still answering the requests it left
  // in flight (a few ms): stopped now, it would stop inside one, a read transaction of a
  // database it shares with other servers among them, and a reader held there keeps every
  // checkpoint from resetting the WAL: the writer of the cases after it then works on a WAL
  // that only grows (POST p99s of 190-300 ms, 36 % of the raw insert, in a run without this)
  Atomics.wait(SETTLE, 0, 0, 100);
  own?.kill('SIGCONT');
  for (const c of children) if (c !== own) c.kill('SIGSTOP');
  // the dirty pages the previous case left (a POST case writes ~100 MB of WAL) are written
  // back now, not by the kernel's flusher threads during this case
  spawnSync('sync');
  Atomics.wait(SETTLE, 0, 0, 200);
  // its own load first, unmeasured: see WARM
  if (own && WARM > 0) cases[k](WARM);
  return run();
}
// CPU time (user + system) of a process so far, in microseconds, from /proc (Linux); NaN elsewhere
function cpuMicros(pid) {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1e6) / CLOCK_TICKS;
  } catch {
    return NaN;
  }
}
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;
/** Runs a case; for a server case, adds the server's CPU time per request (µs) to its result. */
function measured(k, run) {
  const pid = serverOf[k]?.child.pid;
  const c0 = pid ? cpuMicros(pid) : NaN;
  const r = run();
  const n = Number(/(\d+) requests in/.exec(r.raw ?? '')?.[1]);
  return pid ? { ...r, cpu: (cpuMicros(pid) - c0) / n } : r;
}
// CASES=get,read (say) measures only those cases (their rows need their baselines to show ratios)
const only = process.env.CASES ? new Set(process.env.CASES.split(',')) : null;
const chosen = Object.keys(cases).filter((k) => !only || only.has(k));
const runs = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
// warm-up (JIT, page cache), the POST rows too: otherwise their first repeat is their warm-up
for (const k of chosen) if (k !== 'sqlite') alone(k, cases[k]);
for (let i = 0; i < REPEATS; i++) for (const k of chosen) runs[k].push(alone(k, () => measured(k, cases[k])));
for (const c of children) c.kill('SIGCONT');

const median = (xs) => {
  if (!xs.length) return NaN; // a case not measured (CASES)
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
const med = (k, f) => median(runs[k].map((r) => r[f]));
const fmt = (v, d = 0) => (Number.isFinite(v) ? v.toFixed(d) : '–');
const pctOf = (k, base) => (100 * med(k, 'rps')) / med(base, 'rps');
// a target whose figure was not measured (CASES) says so rather than "NOT met"
const target = (ok, text, figure = 0) => `target ${text}: ${Number.isFinite(figure) ? (ok ? 'met' : 'NOT met') : 'not measured'}`;
const row = (name, k, ratio, t = '') => [name, med(k, 'rps'), med(k, 'p50'), med(k, 'p99'), med(k, 'cpu'), ratio, t];
const rows = [
  row('bare node:http, small JSON', 'bare', '1.00 (baseline)'),
  row('node:http + 1 SQLite read, same charge', 'read', `1.00 (baseline of the GETs; ${fmt(pctOf('read', 'bare'))} % of bare)`),
  row('GET /v1/charges/{id}', 'get', `${fmt(pctOf('get', 'read'))} % of the SQLite read`, target(pctOf('get', 'read') >= 60, '≥ 60 %', pctOf('get', 'read'))),
  row('GET /v1/charges (page 1 of 20)', 'list', `${fmt(pctOf('list', 'read'))} % of the SQLite read`, target(pctOf('list', 'read') >= 40, '≥ 40 %', pctOf('list', 'read'))),
  row('GET /v1/charges/{id}, --no-read-memo', 'getNoMemo', `${fmt(pctOf('getNoMemo', 'read'))} % of the SQLite read (the store read every time)`),
  row('GET /v1/charges, --no-read-memo', 'listNoMemo', `${fmt(pctOf('listNoMemo', 'read'))} % of the SQLite read (the store read every time)`),
  row('raw SQLite insert, 1 tx (WAL, FULL)', 'sqlite', '1.00 (baseline of the POSTs)'),
  row('POST /v1/charges (card, 1x)', 'post', `${fmt(pctOf('post', 'sqlite'))} % of raw insert`, target(pctOf('post', 'sqlite') >= 60, '≥ 60 %', pctOf('post', 'sqlite'))),
  row(`POST /v1/charges, ${SEEDED / 1000}k stored`, 'postBig', `${fmt(pctOf('postBig', 'post'))} % of POST above`, target(pctOf('postBig', 'post') >= 80, '≥ 80 %', pctOf('postBig', 'post'))),
  ...(PG_URL
    ? [
        row('node:http + 1 pg read, same charge', 'pgRead', `1.00 (baseline of PG; ${fmt(pctOf('pgRead', 'bare'))} % of bare)`),
        row('GET /v1/charges/{id} on PostgreSQL', 'pgGet', `${fmt(pctOf('pgGet', 'pgRead'))} % of the pg read (no target)`),
      ]
    : []),
];
const checked = ['read', 'get', 'list', 'getNoMemo', 'listNoMemo', 'post', 'postBig', ...(PG_URL ? ['pgRead', 'pgGet'] : [])];
const non2xx = checked.reduce((a, k) => a + runs[k].reduce((b, r) => b + r.non2xx, 0), 0);
const load = loadavg().map((l) => l.toFixed(1)).join(' ');
console.log(`server throughput on loopback, wrk -t1 -c${CONNECTIONS} -d${DURATION}s, median of ${REPEATS} runs (node ${process.versions.node}; load average at the end ${load})`);
console.log(`${'case'.padEnd(38)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'CPU µs'.padStart(7)}  ratio`);
for (const [name, rps, p50, p99, cpu, ratio, t] of rows) {
  console.log(`${name.padEnd(38)} ${fmt(rps).padStart(8)} ${fmt(p50, 2).padStart(8)} ${fmt(p99, 2).padStart(8)} ${fmt(cpu, 1).padStart(7)}  ${ratio}${t ? `  (${t})` : ''}`);
}
console.log(`p99 of GET /v1/charges/{id} at ${CONNECTIONS} connections: ${fmt(med('get', 'p99'), 2)} ms  (${target(med('get', 'p99') <= 3, '≤ 3 ms', med('get', 'p99'))})`);
console.log(`non-2xx responses from mpay and the read references: ${non2xx}`);
if (process.env.RUNS_RPS) {
  for (const [k, rs] of Object.entries(runs)) {
    const p99s = rs.every((r) => Number.isFinite(r.p99)) ? `  (p99 ms: ${rs.map((r) => fmt(r.p99, 2)).join(' ')})` : '';
    if (rs.length) console.log(k, rs.map((r) => Math.round(r.rps)).join(' ') + p99s);
  }
}
// SQLite's checkpoints keep a WAL near 4 MB (1000 pages); a larger file means a reader held an
// old snapshot during a case (the WAL cannot restart behind it) and the POST rows are suspect
const walMB = (dir) => {
  try {
    return statSync(join(dir, 'mpay.db-wal')).size / 1e6;
  } catch {
    return 0;
  }
};
if (only === null || only.has('post') || only.has('postBig')) {
  console.log(`WAL files at the end: ${fmt(walMB(dataDir), 1)} MB (POST store), ${fmt(walMB(bigEnv.MPAY_DATA_DIR), 1)} MB (100k store); above ~4.5 MB a reader held a snapshot`);
}
if (process.env.VERBOSE) for (const r of [...runs.get, ...runs.post]) console.log(r.raw);
await dropSchema?.();
process.exit(0);
