// Slow-client bench: starts `mpay server start --port 0` (this checkout's bin/mpay.js, or
// MPAY_BIN) with the flags given after `--`, and measures over real loopback sockets:
//  1. partial headers: "GET /healthz" and one header byte a second, never finished — how long
//     until the server closes the socket, and what it answered;
//  2. a body at 1 byte/s: a POST declaring 1000 bytes and sending one a second — the same;
//  3. connections from one client (127.0.0.2), each holding partial headers, CONNS of them
//     (default 300) opened one after another as fast as they connect: after 0.5 s, how many
//     the server kept, how many it refused and how fast, and the latency of GET /healthz from
//     another client (127.0.0.1) while they are held.
// Each measurement gives up after MAX_S seconds (default 400) and reports "> MAX_S s".
// MPAY_BIN=/path/to/other/bin/mpay.js measures another build (e.g. before a change).
//   node bench/slowloris/run.mjs                      # the defaults
//   node bench/slowloris/run.mjs -- --headers-timeout 2 --request-timeout 5
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = process.env.MPAY_BIN ?? join(root, 'bin', 'mpay.js');
const MAX_S = Number(process.env.MAX_S ?? 400);
const CONNS = Number(process.env.CONNS ?? 300);
const extra = process.argv.includes('--') ? process.argv.slice(process.argv.indexOf('--') + 1) : [];
const dir = mkdtempSync(join(tmpdir(), 'mpay-slowloris-'));

const env = { ...process.env, MPAY_DATA_DIR: join(dir, 'data'), MPAY_CONFIG_DIR: join(dir, 'conf') };
// a merchant, so that the slow body is read (a request without credentials is refused before its body)
const creds = JSON.parse(execFileSync(process.execPath, [bin, 'admin', 'merchants', 'create', '--name', 'Bench', '--json'], { env, encoding: 'utf8' }));
const auth = `Basic ${Buffer.from(`${creds.public_key}:${creds.secret_key}`).toString('base64')}`;
// SERVER_WRAP runs the server under a command, e.g. "prlimit --nofile=256:256" for a low descriptor limit
const wrap = (process.env.SERVER_WRAP ?? '').split(' ').filter(Boolean);
const argv = [...wrap, process.execPath, bin, 'server', 'start', '--port', '0', '--quiet', ...extra];
const server = spawn(argv[0], argv.slice(1), { env, stdio: ['ignore', 'pipe', 'inherit'] });
const base = await new Promise((resolve, reject) => {
  let out = '';
  server.stdout.on('data', (d) => {
    out += d;
    const m = /^(http:\/\/\S+)\n/m.exec(out);
    if (m) resolve(new URL(m[1]));
  });
  server.on('exit', (c) => reject(new Error(`mpay server start exited ${c}`)));
});
const port = Number(base.port);

const dial = (from) =>
  new Promise((resolve, reject) => {
    const s = connect({ port, host: '127.0.0.1', localAddress: from }, () => resolve(s));
    s.on('error', reject);
  });

/** Sends `head` at once, then `drip` a byte per `everyMs`; resolves when the server closes. */
async function held(head, drip, everyMs) {
  const s = await dial('127.0.0.1');
  const t0 = performance.now();
  let got = '';
  s.on('data', (d) => (got += d.toString('latin1')));
  s.write(head);
  let i = 0;
  const t = setInterval(() => i < drip.length && !s.destroyed && s.write(drip[i++]), everyMs);
  const closed = await new Promise((resolve) => {
    const giveUp = setTimeout(() => resolve(false), MAX_S * 1000);
    s.once('close', () => {
      clearTimeout(giveUp);
      resolve(true);
    });
  });
  clearInterval(t);
  s.destroy();
  const secs = (performance.now() - t0) / 1000;
  return `${closed ? `${secs.toFixed(1)} s` : `> ${MAX_S} s (still open)`}, answer: ${got.split('\r\n')[0] || '(none)'}`;
}

async function healthz() {
  const s = await dial('127.0.0.1');
  const t0 = performance.now();
  s.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  const status = await new Promise((resolve) => {
    let got = '';
    const giveUp = setTimeout(() => resolve('no answer in 10 s'), 10_000);
    s.on('data', (d) => (got += d));
    s.once('close', () => {
      clearTimeout(giveUp);
      resolve(got.split('\r\n')[0] || 'closed without an answer');
    });
  });
  s.destroy();
  return `${status} in ${(performance.now() - t0).toFixed(1)} ms`;
}

async function many() {
  const socks = [];
  let failed = 0;
  for (let i = 0; i < CONNS; i++) {
    let s;
    try {
      s = await dial('127.0.0.2');
    } catch {
      failed++;
      continue;
    }
    const c = { s, t0: performance.now(), verdict: 'kept', ms: 0 };
    s.on('error', () => {});
    s.once('data', (d) => {
      c.verdict = d.toString('latin1').split('\r\n')[0];
      c.ms = performance.now() - c.t0;
    });
    s.once('close', () => {
      if (c.verdict === 'kept') {
        c.verdict = 'closed';
        c.ms = performance.now() - c.t0;
      }
    });
    s.write('GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    socks.push(c);
  }
  await new Promise((r) => setTimeout(r, 500));
  const other = await healthz();
  const kept = socks.filter((c) => c.verdict === 'kept').length;
  const refused = socks.filter((c) => c.verdict !== 'kept');
  const slowest = Math.max(0, ...refused.map((c) => c.ms));
  const answers = [...new Set(refused.map((c) => c.verdict))].join(', ') || '-';
  for (const c of socks) c.s.destroy();
  return `${kept} kept, ${refused.length} refused (${answers}; slowest refusal ${slowest.toFixed(1)} ms), ${failed} could not connect; meanwhile another client's GET /healthz: ${other}`;
}

try {
  console.log(`server: ${argv.join(' ')}`);
  console.log(`GET /healthz alone: ${await healthz()}`);
  const [headers, body, conns] = await Promise.all([
    held('GET /healthz HTTP/1.1\r\nHost: x\r\n', 'X-Slow: '.padEnd(1000, 'a'), 1000),
    held(`POST /v1/charges HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`, ' '.repeat(1000), 1000),
    many(),
  ]);
  console.log(`partial headers, 1 byte/s: held ${headers}`);
  console.log(`body at 1 byte/s: held ${body}`);
  console.log(`${CONNS} connections from one client: ${conns}`);
} finally {
  server.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
