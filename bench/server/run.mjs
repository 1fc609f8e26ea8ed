// HTTP throughput benchmark on loopback, with wrk (Debian package `wrk`).
//
// Baselines measured in the same run:
//  - a bare node:http server answering a small JSON (for GET /v1/charges/{id})
//  - for reference, Hono on @hono/node-server answering the same JSON (hono-baseline.mjs):
//    what the framework mpay's server is built on costs by itself
//  - for reference, node:http answering GET /v1/charges/{id} with one SQLite read of the same
//    charge from mpay's database and nothing else (sqlite-read-baseline.mjs): the ceiling for
//    any GET that reads SQLite on this machine
//  - the raw single-transaction SQLite insert rate (better-sqlite3, WAL, synchronous=FULL,
//    BEGIN IMMEDIATE; INSERT one charge-sized row; COMMIT) (for POST /v1/charges)
// against `mpay server start --rate-limit off` on a temp data directory seeded through the
// CLI (admin merchants create) and the API (a card token, some charges).
// Each case runs REPEATS times (default 3), interleaved; the table shows medians.
// Targets: GET ≥ 35 % of bare node; POST ≥ 40 % of the raw insert rate.
//
//   node bench/server/run.mjs            # DURATION=5 REPEATS=3 CONNECTIONS=16 by default
//   RUNS_RPS=1 node bench/server/run.mjs # also print every run's req/s (the spread behind a median)
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = join(root, 'bin', 'mpay.js');
const DURATION = Number(process.env.DURATION ?? 5);
const REPEATS = Number(process.env.REPEATS ?? 3);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 16);

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
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', opts.stderr ?? 'ignore'] });
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

function wrk(url, script) {
  const args = ['-t1', `-c${CONNECTIONS}`, `-d${DURATION}s`, '--latency'];
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
const created = spawnSync(process.execPath, [bin, 'admin', 'merchants', 'create', '--name', 'Loja Bench', '--json'], { env, encoding: 'utf8' });
if (created.status !== 0) throw new Error(`admin merchants create: ${created.stderr}`);
const merchant = JSON.parse(created.stdout);
const mpay = await startServer([bin, 'server', 'start', '--port', '0', '--rate-limit', 'off']);
const bare = await startServer(['-e', BARE]);
const hono = await startServer([join(root, 'bench', 'server', 'hono-baseline.mjs')]);
const secret = `${merchant.public_key}:${merchant.secret_key}`;
const tok = await api(mpay.url, 'POST', '/v1/tokens', `${merchant.public_key}:`, {
  card: { number: '4111111111111111', holderName: 'Ana Souza', expirationMonth: '12', expirationYear: '2030', cvv: '123' },
});
const chargeBody = {
  amount: 1990,
  payment_method: 'credit_card',
  product_type: 'digital',
  customer: { name: 'Ana Souza', email: 'ana@example.com', tax_id: '52998224725', phone: '+5511987654321', type: 'individual' },
  items: [{ name: 'Curso', quantity: 1, unit_price: 1990, tangible: false }],
  payment_details: { token: tok.token, installments: 1 },
};
let chargeId = '';
for (let i = 0; i < 50; i++) chargeId = (await api(mpay.url, 'POST', '/v1/charges', secret, chargeBody)).id;
const sqliteRead = await startServer([join(root, 'bench', 'server', 'sqlite-read-baseline.mjs'), join(dataDir, 'mpay.db')]);

const authHeader = 'Basic ' + Buffer.from(secret).toString('base64');
const getLua = join(tmp, 'get.lua');
writeFileSync(getLua, `wrk.headers["Authorization"] = "${authHeader}"\n`);
const postLua = join(tmp, 'post.lua');
writeFileSync(
  postLua,
  `wrk.method = "POST"
wrk.headers["Authorization"] = "${authHeader}"
wrk.headers["Content-Type"] = "application/json"
wrk.body = [[${JSON.stringify(chargeBody)}]]
local n = 0
local prefix = tostring(os.time()) .. "-" .. tostring(math.random(1, 1e9))
request = function()
  n = n + 1
  wrk.headers["Idempotency-Key"] = "bench-" .. prefix .. "-" .. n
  return wrk.format()
end
`,
);

// --- measure --------------------------------------------------------------------------
const runs = { bare: [], hono: [], read: [], get: [], post: [], sqlite: [] };
// warm-up (JIT, page cache)
wrk(bare.url + '/', null);
wrk(`${hono.url}/v1/charges/${chargeId}`, null);
wrk(`${sqliteRead.url}/v1/charges/${chargeId}`, null);
wrk(`${mpay.url}/v1/charges/${chargeId}`, getLua);
for (let i = 0; i < REPEATS; i++) {
  runs.bare.push(wrk(bare.url + '/', null));
  runs.hono.push(wrk(`${hono.url}/v1/charges/${chargeId}`, null));
  runs.read.push(wrk(`${sqliteRead.url}/v1/charges/${chargeId}`, null));
  runs.get.push(wrk(`${mpay.url}/v1/charges/${chargeId}`, getLua));
  runs.sqlite.push({ rps: sqliteInsertRate(DURATION) });
  runs.post.push(wrk(`${mpay.url}/v1/charges`, postLua));
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
const med = (k, f) => median(runs[k].map((r) => r[f]));
const fmt = (v, d = 0) => (Number.isFinite(v) ? v.toFixed(d) : '–');
const bareRps = med('bare', 'rps');
const rawRps = med('sqlite', 'rps');
const rows = [
  ['bare node:http, small JSON', bareRps, med('bare', 'p50'), med('bare', 'p99'), '1.00 (baseline)', ''],
  ['Hono on @hono/node-server, same JSON', med('hono', 'rps'), med('hono', 'p50'), med('hono', 'p99'), `${fmt((100 * med('hono', 'rps')) / bareRps)} % of bare (reference)`, ''],
  ['node:http + 1 SQLite read, same charge', med('read', 'rps'), med('read', 'p50'), med('read', 'p99'), `${fmt((100 * med('read', 'rps')) / bareRps)} % of bare (reference: ceiling for a SQLite GET)`, ''],
  ['raw SQLite insert, 1 tx (WAL, FULL)', rawRps, NaN, NaN, '1.00 (baseline)', ''],
  ['GET /v1/charges/{id}', med('get', 'rps'), med('get', 'p50'), med('get', 'p99'), `${fmt((100 * med('get', 'rps')) / bareRps)} % of bare`, 0.35 <= med('get', 'rps') / bareRps ? 'target ≥ 35 %: met' : 'target ≥ 35 %: NOT met'],
  ['POST /v1/charges (card, 1x)', med('post', 'rps'), med('post', 'p50'), med('post', 'p99'), `${fmt((100 * med('post', 'rps')) / rawRps)} % of raw insert`, 0.4 <= med('post', 'rps') / rawRps ? 'target ≥ 40 %: met' : 'target ≥ 40 %: NOT met'],
];
const non2xx = [...runs.read, ...runs.get, ...runs.post].reduce((a, r) => a + r.non2xx, 0);
console.log(`server throughput on loopback, wrk -t1 -c${CONNECTIONS} -d${DURATION}s, median of ${REPEATS} runs (node ${process.versions.node})`);
console.log(`${'case'.padEnd(38)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)}  ratio`);
for (const [name, rps, p50, p99, ratio, target] of rows) {
  console.log(`${name.padEnd(38)} ${fmt(rps).padStart(8)} ${fmt(p50, 2).padStart(8)} ${fmt(p99, 2).padStart(8)}  ${ratio}${target ? `  (${target})` : ''}`);
}
console.log(`non-2xx responses from mpay and the SQLite read reference: ${non2xx}`);
if (process.env.RUNS_RPS) for (const [k, rs] of Object.entries(runs)) console.log(k, rs.map((r) => Math.round(r.rps)).join(' '));
if (process.env.VERBOSE) for (const r of [...runs.get, ...runs.post]) console.log(r.raw);
process.exit(0);
