/** `mpay server start`: its flags (typed) and their parsing; the work is in run.ts. */
import { type Command } from 'commander';
import { action, globalsOf, type CliDeps } from '../../action.js';
import { group, runEnv } from '../shape.js';
import type { UploadLimitFlags } from './uploadLimits.js';

export interface ServerStartOptions extends UploadLimitFlags {
  host: string;
  port: string;
  production?: boolean;
  publicUrl?: string;
  rateLimit: string;
  database?: string;
  trustProxy?: string;
  /** false with --no-read-memo */
  readMemo: boolean;
  /** true with --check-responses */
  checkResponses?: boolean;
  headersTimeout?: string;
  requestTimeout?: string;
  maxConnections?: string;
  maxConnectionsPerClient?: string;
  pricing?: string;
}

export function register(program: Command, deps: CliDeps): void {
  const server = group(program, 'server', 'run the API as an HTTP server');
  server
    .command('start')
    .description('serve the API over HTTP on this data directory (Ctrl-C stops it cleanly)')
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0 picks a free one)', '4010')
    .option('--production', 'production mode: no sandbox routes, live keys, MPAY_MASTER_KEY required')
    .option('--public-url <url>', 'public origin for links the API hands out (checkout_url, file urls)')
    .option('--rate-limit <rate>', 'secret-key requests per merchant: RPS[,BURST], or off for every limit (env MPAY_RATE_LIMIT)', '100,200')
    .option('--upload-rate <rate>', 'uploads per merchant: PER_MINUTE[,BURST], or off (env MPAY_UPLOAD_RATE); default 30,30')
    .option('--upload-quota <size>', 'bytes of uploads a merchant keeps: e.g. 2GiB, 500MiB, or off (env MPAY_UPLOAD_QUOTA); default 2GiB')
    .option('--upload-retention <hours>', 'hours an upload attached to no document is kept (env MPAY_UPLOAD_RETENTION_HOURS); default 24')
    .option('--trust-proxy <list>', 'reverse proxies (addresses, CIDR ranges) whose X-Forwarded-For names the client (env MPAY_TRUST_PROXY); default: none')
    .option('--no-read-memo', 'read the store for every charge read, even when nothing was written since the same answer was made (env MPAY_READ_MEMO=off)')
    .option('--check-responses', 'check every success answer against the API contract; one off it is logged and answered 500 — for staging and CI runs (env MPAY_CHECK_RESPONSES=on)')
    .option('--database <url>', 'PostgreSQL URL shared by every replica (env MPAY_DATABASE_URL); default: SQLite in the data dir')
    .option('--pricing <file>', 'pricing document (JSON): MDR, anticipation, withdrawal and chargeback fees, buyer interest; fields left out keep their defaults (env MPAY_PRICING: a path or the JSON)')
    .option('--headers-timeout <seconds>', 'time a client has to send a request\'s headers (env MPAY_HEADERS_TIMEOUT); default 10')
    .option('--request-timeout <seconds>', 'time a client has to send a whole request, headers and body (env MPAY_REQUEST_TIMEOUT); default 60')
    .option('--max-connections <n>', 'connections open at once, all clients together (env MPAY_MAX_CONNECTIONS); default: what the open-files limit leaves room for, at most 10000')
    .option('--max-connections-per-client <n>', 'connections open at once from one client address, 0 for no cap (env MPAY_MAX_CONNECTIONS_PER_CLIENT); default 64')
    .addHelpText(
      'after',
      '\nExamples:\n  $ mpay server start --port 4010 --data-dir ./mpay-data\n  $ mpay server start --pricing ./pricing.json\n  $ MPAY_MASTER_KEY=$(openssl rand -base64 32) mpay server start --production --host 0.0.0.0 --database postgres://mpay@db/mpay --rate-limit 500,1000\n',
    )
    .action(
      action(deps, async (opts: ServerStartOptions, cmd: Command) => (await import('./run.js')).run(opts, await runEnv(globalsOf(cmd), deps.io, deps.openTarget))),
    );
}
