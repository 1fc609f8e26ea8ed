/**
 * `mpay links open` / `mpay charges open` / `mpay files open`. Against a remote deployment: its
 * URL, printed (and opened with --browser). In the embedded sandbox nothing listens at the links
 * it hands out (http://127.0.0.1:4010 is where `mpay server start` would), so the command serves
 * them itself on a free loopback port until Ctrl-C (exit 130; SIGTERM: 0):
 *
 * - a payment link, or a boleto's slip: the embedded app, as `mpay server start` serves it (the
 *   checkout page or the slip, their assets and the API the checkout calls, with webhook
 *   deliveries and due work running);
 * - a file: that file alone, inline, under a random path; the API stays closed (a file is
 *   served with the merchant's secret key, which a browser does not have).
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CliError, EXIT, usage } from '../../errors.js';
import { exitForSignal } from '../../signals.js';
import type { Target } from '../../target.js';
import type { RunEnv } from '../shape.js';
import type { OpenOptions } from './index.js';

function portOf(raw: string): number {
  if (!/^\d+$/.test(raw) || Number(raw) > 65535) throw usage(`--port must be a number from 0 to 65535, got '${raw}'`);
  return Number(raw);
}

/** The URL on stdout (the data); with --browser on a terminal, the browser too. */
async function present(url: string, opts: OpenOptions, env: RunEnv): Promise<void> {
  const { io, globals: g } = env;
  io.out(url + '\n');
  if (!opts.browser) return;
  if (!io.stdoutTTY || !io.stdinTTY) {
    if (!g.quiet) io.err('--browser opens a browser only on a terminal; the URL is printed above\n');
    return;
  }
  const { openBrowser } = await import('../../browser.js');
  if (!g.quiet) io.err(`Opening ${url} in your browser.\n`);
  const failed = await openBrowser(url, io.env);
  if (failed) io.err(`warning: ${failed}; open the URL yourself (set BROWSER to choose the browser)\n`);
}

/** The page at `pageUrl` (a URL the embedded app hands out): printed against a remote target; served from the embedded sandbox otherwise. */
async function pageOpen(target: Target, pageUrl: string, what: string, opts: OpenOptions, env: RunEnv): Promise<number> {
  const { io, globals: g } = env;
  if (target.kind !== 'embedded' || !target.runtime) {
    await present(pageUrl, opts, env);
    return EXIT.ok;
  }
  const { serveRuntime } = await import('../../serve.js');
  const served = await serveRuntime(target.runtime, {
    host: '127.0.0.1',
    port: portOf(opts.port),
    onStopping: (sig) => {
      if (!g.quiet) io.err(`${sig}: stopping…\n`);
    },
  });
  const url = served.url + new URL(pageUrl).pathname;
  if (!g.quiet) io.err(`Serving ${what} from the embedded sandbox (${target.dataDir}) on ${served.url}; Ctrl-C to stop\n`);
  await present(url, opts, env);
  return exitForSignal(await served.stopped);
}

async function linkOpen(target: Target, id: string, opts: OpenOptions, env: RunEnv): Promise<number> {
  const link = (await target.client.call('paymentLinks.get', { params: { id } })).data;
  return pageOpen(target, link.checkout_url, `the checkout page of link ${id} (${link.status})`, opts, env);
}

async function chargeOpen(target: Target, id: string, opts: OpenOptions, env: RunEnv): Promise<number> {
  const charge = (await target.client.call('charges.get', { params: { id } })).data;
  if (!charge.boleto) throw usage(`only a boleto has a printable slip; charge ${id} is ${charge.payment_method === 'pix' ? 'a PIX charge (its copia-e-cola is pix.qr_code)' : charge.payment_method}`);
  return pageOpen(target, charge.boleto.url, `the slip of boleto ${id} (${charge.status})`, opts, env);
}

async function fileOpen(target: Target, key: string, opts: OpenOptions, env: RunEnv): Promise<number> {
  const { io, globals: g } = env;
  const file = await target.client.download('files.get', { key });
  if (target.kind !== 'embedded') {
    const url = `${target.baseUrl?.replace(/\/+$/, '') ?? ''}/v1/files/${encodeURIComponent(key)}`;
    await present(url, opts, env);
    if (!g.quiet) io.err(`The deployment serves it to the merchant's keys only; \`mpay files download ${key} --out FILE\` saves it.\n`);
    return EXIT.ok;
  }
  const path = `/${randomBytes(16).toString('base64url')}/${encodeURIComponent(key)}`;
  const bytes = Buffer.from(file.bytes);
  const server = createServer((req, res) => {
    const at = (req.url ?? '').split('?')[0];
    if (at !== path || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    res.writeHead(200, {
      'content-type': file.contentType ?? 'application/octet-stream',
      'content-length': String(bytes.byteLength),
      'content-disposition': `inline; filename="${(file.fileName ?? key).replace(/["\\\r\n]/g, '_')}"`,
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-store',
    });
    res.end(req.method === 'HEAD' ? undefined : bytes);
  });
  const port = portOf(opts.port);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => reject(new CliError(`cannot listen on 127.0.0.1:${port}: ${e.code ?? e.message}`, EXIT.refused)));
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const { untilStopped } = await import('../../serve.js');
  const stopped = untilStopped(async (sig) => {
    if (!g.quiet) io.err(`${sig}: stopping…\n`);
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  if (!g.quiet) io.err(`Serving ${key} (${file.contentType ?? 'unknown type'}, ${bytes.byteLength} bytes) from the embedded sandbox (${target.dataDir}) on ${origin}; Ctrl-C to stop\n`);
  await present(origin + path, opts, env);
  return exitForSignal(await stopped);
}

export async function run(kind: 'link' | 'charge' | 'file', id: string, opts: OpenOptions, env: RunEnv): Promise<number> {
  portOf(opts.port);
  const target = await env.openTarget(env.globals, env.io);
  try {
    if (kind === 'link') return await linkOpen(target, id, opts, env);
    return kind === 'charge' ? await chargeOpen(target, id, opts, env) : await fileOpen(target, id, opts, env);
  } finally {
    await target.close();
  }
}
