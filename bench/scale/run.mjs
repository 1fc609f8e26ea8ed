// List latency at scale: GET /v1/charges page 1, a deep page, and filtered lists, for one
// merchant holding 1k, 100k and 1M charges (seeded in bulk with SQL, in batches inside
// transactions, rows shaped like the service writes them), measured through the app
// in-process (app.request: the whole pipeline without the socket). Medians of RUNS calls.
// The charge read memo is off (readMemo: false): a repeated call would otherwise be answered
// from memory, and this measures the store's queries at each size.
// Target: page 1 at 1M rows within 2× of page 1 at 1k.
//
//   node bench/scale/run.mjs            # SIZES=1000,100000,1000000 RUNS=15
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SIZES = (process.env.SIZES ?? '1000,100000,1000000').split(',').map(Number);
const RUNS = Number(process.env.RUNS ?? 15);

// the runtime (createApp + SQLite store) from a bundle of the sources
const out = join(root, 'test-artifacts', `scale-${process.pid}`, 'runtime.mjs');
const { build } = await import('esbuild');
await build({ entryPoints: [join(root, 'bench', 'scale', 'entry.ts')], outfile: out, bundle: true, platform: 'node', format: 'esm', packages: 'external', logLevel: 'warning' });
const { openRuntime, createMerchant, seedCharges } = await import(out);

const day = (offset) => new Date(Math.floor(Date.now() / 86_400_000 + offset) * 86_400_000).toISOString();
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function measure(app, auth, path) {
  const call = async () => {
    const t = performance.now();
    const res = await app.request(path, { headers: { authorization: auth } });
    const body = await res.json();
    const ms = performance.now() - t;
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
    return { ms, body };
  };
  for (let i = 0; i < 3; i++) await call();
  const samples = [];
  let last;
  for (let i = 0; i < RUNS; i++) {
    last = await call();
    samples.push(last.ms);
  }
  return { ms: median(samples), pagination: last.body.pagination, n: last.body.data.length };
}

const results = [];
for (const size of SIZES) {
  const dir = mkdtempSync(join(tmpdir(), 'mpay-scale-'));
  const rt = await openRuntime({ dataDir: dir, rateLimit: null, readMemo: false });
  const m = await rt.deps.db.tx((q) => createMerchant(q, rt.deps, 'Loja Escala', new Date()));
  // another merchant's rows in the same table (a tenth), so the owner column matters
  const other = await rt.deps.db.tx((q) => createMerchant(q, rt.deps, 'Outra', new Date()));
  const t0 = performance.now();
  await seedCharges(rt.deps.db, other.merchant_id, Math.ceil(size / 10));
  await seedCharges(rt.deps.db, m.merchant_id, size);
  const seedS = (performance.now() - t0) / 1000;
  const auth = 'Basic ' + Buffer.from(`${m.public_key}:${m.secret_key}`).toString('base64');
  const perPage = 20;
  const lastPage = Math.ceil(size / perPage);
  const deep = Math.max(1, Math.floor(lastPage * 0.9));
  const cases = {
    'page 1': '/v1/charges?per_page=20',
    [`deep page (${deep} of ${lastPage})`]: `/v1/charges?per_page=20&page=${deep}`,
    'next page after the deep one': `/v1/charges?per_page=20&page=${deep + 1}`,
    'status=captured, page 1': '/v1/charges?per_page=20&status=captured',
    'payment_method=pix&status=failed': '/v1/charges?per_page=20&payment_method=pix&status=failed',
    'date range (one day), page 1': `/v1/charges?per_page=20&start_date=${day(-180)}&end_date=${day(-179)}`,
  };
  for (const [name, path] of Object.entries(cases)) {
    const r = await measure(rt.app, auth, path);
    results.push({ size, name, ...r });
  }
  console.error(`seeded ${size.toLocaleString('en')} (+${Math.ceil(size / 10).toLocaleString('en')} of another merchant) in ${seedS.toFixed(1)} s`);
  await rt.close();
  rmSync(dir, { recursive: true, force: true });
}
rmSync(dirname(out), { recursive: true, force: true });

console.log(`GET /v1/charges through the app (in-process), median of ${RUNS} calls (node ${process.versions.node})`);
console.log(`${'rows'.padStart(9)}  ${'case'.padEnd(38)} ${'ms'.padStart(8)}  pagination`);
for (const r of results) {
  const p = r.pagination;
  console.log(`${r.size.toLocaleString('en').padStart(9)}  ${r.name.padEnd(38)} ${r.ms.toFixed(2).padStart(8)}  total ${p.total} (${p.totalPages} pages), ${r.n} items`);
}
const p1 = (size) => results.find((r) => r.size === size && r.name === 'page 1')?.ms;
const small = Math.min(...SIZES);
const big = Math.max(...SIZES);
const ratio = p1(big) / p1(small);
console.log(`page 1 at ${big.toLocaleString('en')} rows = ${ratio.toFixed(2)}× page 1 at ${small.toLocaleString('en')} (target ≤ 2×: ${ratio <= 2 ? 'met' : 'NOT met'})`);
