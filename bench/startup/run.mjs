// Start-up benchmark: whole-process wall time of `mpay --version`, `mpay --help`, an embedded
// read (`mpay keys list -o json` on the active profile's own sandbox) and the same read against
// a local `mpay server start` (`--base-url`, the remote mode), against bare `node -e 0`, measured
// in the same run. Prints the median over RUNS runs each (interleaved, after warm-up), what mpay
// adds above bare node in milliseconds, and the ratio. Beside each read it times its floor: the
// same read written by hand with the same parts (floor-embedded.cjs: better-sqlite3 and
// node:crypto; floor-remote.cjs: node:http), to tell what mpay adds from what the work costs.
// Targets: --version ≤ 1.5× bare node; embedded and remote reads ≤ 1.8×. The embedded read is
// also timed without the V8 code cache (MPAY_NO_CODE_CACHE=1), for comparison.
//   node bench/startup/run.mjs            # this checkout
//   MPAY_ROOT=/other/checkout node bench/startup/run.mjs   # another build, same machine
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = process.env.MPAY_ROOT ?? join(here, '..', '..');
const bin = join(root, 'bin', 'mpay.js');
const RUNS = Number(process.env.RUNS ?? 21);
const dir = mkdtempSync(join(tmpdir(), 'mpay-bench-'));
// the common case: the active profile's own sandbox (its data_dir), keys made by the warm-up
mkdirSync(join(dir, 'conf'));
writeFileSync(join(dir, 'conf', 'config.json'), JSON.stringify({ profiles: { default: { data_dir: join(dir, 'data') } } }));
const env = { PATH: process.env.PATH, HOME: dir, MPAY_CONFIG_DIR: join(dir, 'conf'), NO_COLOR: '1' };

// the server the remote read talks to: its own data dir, a merchant made for it
const serverEnv = { ...env, MPAY_DATA_DIR: join(dir, 'server-data') };
const creds = JSON.parse(execFileSync(process.execPath, [bin, 'admin', 'merchants', 'create', '--name', 'Bench', '--json'], { env: serverEnv, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
const server = spawn(process.execPath, [bin, 'server', 'start', '--port', '0', '-q'], { env: serverEnv, stdio: ['ignore', 'pipe', 'ignore'] });
const baseUrl = await new Promise((resolve, reject) => {
  let out = '';
  server.stdout.on('data', (d) => {
    out += d;
    const m = /^(http:\/\/\S+)\n/m.exec(out);
    if (m) resolve(m[1]);
  });
  server.on('exit', (c) => reject(new Error(`mpay server start exited ${c}`)));
});
const remoteEnv = { MPAY_PUBLIC_KEY: creds.public_key, MPAY_SECRET_KEY: creds.secret_key };

const cases = {
  'node -e 0': [process.execPath, ['-e', '0']],
  'mpay --version': [process.execPath, [bin, '--version']],
  'mpay --help': [process.execPath, [bin, '--help']],
  'mpay keys list -o json (embedded)': [process.execPath, [bin, 'keys', 'list', '-o', 'json']],
  // the same bundle compiled without the V8 code cache, to show what the cache buys
  'same, without the code cache': [process.execPath, [bin, 'keys', 'list', '-o', 'json'], { MPAY_NO_CODE_CACHE: '1' }],
  'mpay keys list -o json (remote)': [process.execPath, [bin, '--base-url', baseUrl, 'keys', 'list', '-o', 'json'], remoteEnv],
  'floor: embedded read by hand': [process.execPath, [join(here, 'floor-embedded.cjs')], { NODE_PATH: join(root, 'node_modules') }],
  'floor: remote read by hand': [process.execPath, [join(here, 'floor-remote.cjs'), baseUrl], remoteEnv],
};

function once([cmd, args, extraEnv = {}]) {
  const t = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { env: { ...env, ...extraEnv }, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

// warm-up: also makes the profile's sandbox keys and database
for (const c of Object.values(cases)) for (let i = 0; i < 3; i++) once(c);
const samples = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (let i = 0; i < RUNS; i++) for (const [k, c] of Object.entries(cases)) samples[k].push(once(c));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
const base = median(samples['node -e 0']);
const targets = { 'mpay --version': 1.5, 'mpay keys list -o json (embedded)': 1.8, 'mpay keys list -o json (remote)': 1.8 };
console.log(`start-up, median of ${RUNS} runs each (node ${process.versions.node}); "added" is above bare node`);
for (const k of Object.keys(cases)) {
  const m = median(samples[k]);
  const ratio = m / base;
  const t = targets[k];
  const added = k === 'node -e 0' ? '' : `+${(m - base).toFixed(1).padStart(6)} ms`;
  console.log(`${k.padEnd(36)} ${m.toFixed(1).padStart(7)} ms ${added.padStart(11)}  ${ratio.toFixed(2)}× bare node${t ? `  (target ≤ ${t}×: ${ratio <= t ? 'met' : 'NOT met'})` : ''}`);
}
for (const mode of ['embedded', 'remote']) {
  const above = median(samples[`mpay keys list -o json (${mode})`]) - median(samples[`floor: ${mode} read by hand`]);
  console.log(`mpay above the floor, ${mode} read: +${above.toFixed(1)} ms`);
}
server.kill('SIGTERM');
await new Promise((r) => server.on('close', r));
rmSync(dir, { recursive: true, force: true });
