import { resolve } from 'node:path';
import { defaultDataDir } from '../../config.js';
import { CliError, EXIT, usage } from '../../errors.js';
import type { IO } from '../../io.js';
import type { Globals } from '../../target.js';
import type { RunEnv } from '../shape.js';
import type { ServerStartOptions } from './index.js';
import { exitForSignal } from '../../signals.js';
import { ipOrCidr } from '../../../contract/resources/apiKeys.js';
import { connectionsRoom, defaultConnectionLimits, openFileLimit, RESERVED_FDS, type ConnectionLimits } from '../../../server/connections.js';
import { uploadLimitsOfFlags } from './uploadLimits.js';
import { serverPricingOf } from './pricing.js';

/**
 * The PostgreSQL URL from --database or MPAY_DATABASE_URL, or undefined for SQLite in the data
 * directory. A shared database needs the master key from MPAY_MASTER_KEY: every process that
 * opens it must hash secrets and decrypt cards with the same key, so a per-directory
 * master.key (different on each machine) would make keys and cards unusable elsewhere.
 */
export function databaseUrlOf(opts: Record<string, unknown>, env: NodeJS.ProcessEnv): string | undefined {
  const url = (opts.database as string | undefined) ?? (env.MPAY_DATABASE_URL || undefined);
  if (url === undefined) return undefined;
  const from = opts.database !== undefined ? '--database' : 'MPAY_DATABASE_URL';
  if (!/^postgres(ql)?:\/\/./i.test(url)) throw usage(`${from} must be a PostgreSQL URL (postgres://user:password@host:5432/db), got '${url.replace(/:[^:@/]*@/, ':***@')}'`);
  if (!env.MPAY_MASTER_KEY) {
    throw usage(`${from} needs MPAY_MASTER_KEY (base64 of 32 random bytes, the same for every process on the database)`);
  }
  return url;
}

/** A URL safe to print: no password. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres://…';
  }
}

export async function serverStart(g: Globals, opts: Record<string, unknown>, io: IO): Promise<number> {
  const port = Number(opts.port);
  if (!/^\d+$/.test(String(opts.port)) || port > 65535) throw usage(`--port must be a number from 0 to 65535, got '${opts.port}'`);
  const production = !!opts.production;
  if (production && !io.env.MPAY_MASTER_KEY) {
    throw usage('--production needs MPAY_MASTER_KEY (base64 of 32 random bytes, e.g. `openssl rand -base64 32`)');
  }
  if (opts.publicUrl !== undefined) {
    try {
      new URL(String(opts.publicUrl));
    } catch {
      throw usage(`--public-url must be a URL, got '${opts.publicUrl}'`);
    }
  }
  const rateRaw = String(io.env.MPAY_RATE_LIMIT && opts.rateLimit === '100,200' ? io.env.MPAY_RATE_LIMIT : opts.rateLimit);
  const rateLimit = parseRateLimit(rateRaw);
  const uploadLimits = uploadLimitsOfFlags(opts, io.env);
  const databaseUrl = databaseUrlOf(opts, io.env);
  const trustProxy = parseTrustProxy(String(opts.trustProxy ?? io.env.MPAY_TRUST_PROXY ?? ''));
  const readMemo = parseReadMemo(opts.readMemo !== false, io.env.MPAY_READ_MEMO);
  const checkResponses = parseCheckResponses(opts.checkResponses === true, io.env.MPAY_CHECK_RESPONSES);
  const fdLimit = openFileLimit();
  const limits = parseConnectionLimits(opts, io.env, defaultConnectionLimits(fdLimit), fdLimit);
  const pricing = serverPricingOf(opts.pricing as string | undefined, io.env, io.cwd);
  const dataDir = resolve(io.cwd, g.dataDir ?? io.env.MPAY_DATA_DIR ?? defaultDataDir(io.env));
  const { openRuntime } = await import('../../../server/runtime.js');
  const { serveRuntime } = await import('../../serve.js');
  // one JSON line per request; written once per turn of the event loop, not once per line
  const logLines = lineBuffer((s) => io.err(s));
  const stamp = isoStamper();
  const log = g.quiet ? undefined : (entry: Record<string, unknown>) => logLines.push(JSON.stringify({ ts: stamp(), ...entry }));
  let rt;
  try {
    rt = await openRuntime({ dataDir, databaseUrl, mode: production ? 'production' : 'sandbox', pricing: pricing.pricing, log, publicBaseUrl: opts.publicUrl as string | undefined, rateLimit, uploadLimits, trustProxy, readMemo, validateResponses: checkResponses });
  } catch (e) {
    const where = databaseUrl ? `the database ${redactUrl(databaseUrl)}` : `the data directory ${dataDir}`;
    throw new CliError(`cannot open ${where}: ${(e as Error).message}`, EXIT.refused);
  }
  let served;
  try {
    served = await serveRuntime(rt, {
      host: String(opts.host),
      port,
      limits,
      keepPublicUrl: !!opts.publicUrl,
      log,
      onStopping: (sig) => {
        logLines.flush();
        if (!g.quiet) io.err(`${sig}: stopping…\n`);
      },
    });
  } catch (e) {
    await rt.close();
    throw e;
  }
  io.out(served.url + '\n');
  if (!g.quiet) {
    const memoOff = (readMemo ? '' : '; charge read memo off') + (checkResponses ? '; answers checked against the contract' : '');
    const priced = pricing.from ? `; pricing: ${pricing.from}` : '';
    io.err(`mpay ${production ? 'production' : 'sandbox'} server on ${served.url} (data: ${databaseUrl ? redactUrl(databaseUrl) : dataDir}${memoOff}${priced}); Ctrl-C to stop\n`);
  }
  const sig = await served.stopped;
  await rt.close();
  logLines.flush();
  return exitForSignal(sig);
}

/**
 * The request log's `ts`: the time now (or `now`, in ms) as an ISO 8601 string, made once per
 * millisecond. A busy server logs tens of lines in each: `toISOString` for every line was ~0.5 µs
 * of a list request's ~30 (a CPU profile of `mpay server start` under bench/server's list load).
 * The one string it keeps belongs to the stamper, one per server's log.
 */
export function isoStamper(): (now?: number) => string {
  let lastMs = Number.NaN;
  let last = '';
  return (now = Date.now()) => {
    if (now !== lastMs) {
      last = new Date(now).toISOString(); // an invalid time (NaN) throws here, as toISOString does
      lastMs = now;
    }
    return last;
  };
}

/** How long request-log lines may wait to be written together (ms). */
export const LOG_FLUSH_MS = 20;

/**
 * Lines joined and written together: at most LOG_FLUSH_MS after the first one waiting (or
 * at once when 256 are waiting), so a busy server makes one write to stderr per 20 ms, not
 * one per turn of the event loop (at 16 connections, one per request or two). `flush`
 * writes what is waiting (on stop).
 */
export function lineBuffer(write: (s: string) => void, ms = LOG_FLUSH_MS): { push(line: string): void; flush(): void } {
  let pending: string[] = [];
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (!pending.length) return;
    const out = `${pending.join('\n')}\n`;
    pending = [];
    write(out);
  };
  return {
    push(line) {
      pending.push(line);
      if (pending.length >= 256) flush();
      else if (!timer) {
        timer = setTimeout(flush, ms);
        // a waiting line never keeps the process alive: stopping flushes it
        timer.unref();
      }
    },
    flush,
  };
}

/** --no-read-memo turns the charge reads' memo off; else MPAY_READ_MEMO (on or off) says, on by default. */
export function parseReadMemo(flag: boolean, env: string | undefined): boolean {
  if (env !== undefined && env !== '' && env !== 'on' && env !== 'off') throw usage(`MPAY_READ_MEMO must be on or off, got '${env}'`);
  return flag && env !== 'off';
}

/** --check-responses turns the answers' check against the contract on; else MPAY_CHECK_RESPONSES (on or off) says, off by default. */
export function parseCheckResponses(flag: boolean, env: string | undefined): boolean {
  if (env !== undefined && env !== '' && env !== 'on' && env !== 'off') throw usage(`MPAY_CHECK_RESPONSES must be on or off, got '${env}'`);
  return flag || env === 'on';
}

/**
 * The connection bounds from --headers-timeout, --request-timeout (seconds), --max-connections
 * and --max-connections-per-client, else their MPAY_ variables, else `defaults`. A total above
 * what the open-files limit leaves room for is refused: past it the process runs out of
 * descriptors and stops accepting anyone.
 */
export function parseConnectionLimits(
  opts: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  defaults: ConnectionLimits,
  fdLimit: number | undefined,
): ConnectionLimits {
  const pick = (flag: string, key: string, variable: string): { raw: string; from: string } | undefined => {
    if (opts[key] !== undefined) return { raw: String(opts[key]), from: flag };
    const v = env[variable];
    return v ? { raw: v, from: variable } : undefined;
  };
  const seconds = (flag: string, key: string, variable: string, dflt: number): number => {
    const p = pick(flag, key, variable);
    if (!p) return dflt;
    const n = Number(p.raw);
    if (!/^\d+(\.\d+)?$/.test(p.raw) || n <= 0 || n > 3600) throw usage(`${p.from} must be a number of seconds above 0 and at most 3600, got '${p.raw}'`);
    return Math.round(n * 1000);
  };
  const count = (flag: string, key: string, variable: string, dflt: number, min: number): number => {
    const p = pick(flag, key, variable);
    if (!p) return dflt;
    if (!/^\d+$/.test(p.raw) || Number(p.raw) < min) throw usage(`${p.from} must be a whole number of at least ${min}, got '${p.raw}'`);
    return Number(p.raw);
  };
  const l: ConnectionLimits = {
    headersTimeoutMs: seconds('--headers-timeout', 'headersTimeout', 'MPAY_HEADERS_TIMEOUT', defaults.headersTimeoutMs),
    requestTimeoutMs: seconds('--request-timeout', 'requestTimeout', 'MPAY_REQUEST_TIMEOUT', defaults.requestTimeoutMs),
    maxConnections: count('--max-connections', 'maxConnections', 'MPAY_MAX_CONNECTIONS', defaults.maxConnections, 1),
    maxPerClient: count('--max-connections-per-client', 'maxConnectionsPerClient', 'MPAY_MAX_CONNECTIONS_PER_CLIENT', defaults.maxPerClient, 0),
  };
  if (l.requestTimeoutMs < l.headersTimeoutMs) {
    throw usage(`the request timeout (${l.requestTimeoutMs / 1000} s) must be at least the headers timeout (${l.headersTimeoutMs / 1000} s): the headers are part of the request`);
  }
  const room = connectionsRoom(fdLimit);
  if (room !== undefined && l.maxConnections > room) {
    throw usage(
      `--max-connections ${l.maxConnections} is more than the open-files limit (${fdLimit}) leaves room for (${room}: two descriptors a connection, ${RESERVED_FDS} kept); raise it (ulimit -n) or lower --max-connections`,
    );
  }
  return l;
}

/** --trust-proxy: comma-separated addresses and CIDR ranges of the reverse proxies in front. */
export function parseTrustProxy(raw: string): string[] {
  const entries = raw.split(',').map((s) => s.trim()).filter(Boolean);
  for (const e of entries) {
    if (!ipOrCidr.safeParse(e).success) {
      throw usage(`--trust-proxy takes IP addresses and CIDR ranges (e.g. 10.0.0.1,10.1.0.0/16), got '${e}'`);
    }
  }
  return entries;
}

/** "RPS[,BURST]" or "off" */
export function parseRateLimit(raw: string): { perSecond: number; burst: number } | null {
  if (raw === 'off') return null;
  const m = /^(\d+)(?:,(\d+))?$/.exec(raw);
  if (!m || Number(m[1]) < 1) throw usage(`--rate-limit must be RPS[,BURST] (e.g. 100,200) or off, got '${raw}'`);
  const perSecond = Number(m[1]);
  const burst = m[2] ? Number(m[2]) : perSecond * 2;
  if (burst < 1) throw usage('--rate-limit burst must be at least 1');
  return { perSecond, burst };
}

/** The command's entry: its options, the target's flags and the IO. */
export async function run(opts: ServerStartOptions, env: RunEnv): Promise<number> {
  return serverStart(env.globals, { ...opts }, env.io);
}
