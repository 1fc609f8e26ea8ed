import { resolve } from 'node:path';
import { defaultDataDir } from '../config.js';
import { CliError, EXIT, usage } from '../errors.js';
import type { IO } from '../io.js';
import type { Globals } from '../target.js';

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
  const databaseUrl = databaseUrlOf(opts, io.env);
  const dataDir = resolve(io.cwd, g.dataDir ?? io.env.MPAY_DATA_DIR ?? defaultDataDir(io.env));
  const { openRuntime } = await import('../../server/runtime.js');
  const { listen } = await import('../../server/http.js');
  const log = g.quiet ? undefined : (entry: Record<string, unknown>) => io.err(JSON.stringify({ ts: new Date().toISOString(), ...entry }) + '\n');
  let rt;
  try {
    rt = await openRuntime({ dataDir, databaseUrl, mode: production ? 'production' : 'sandbox', log, publicBaseUrl: opts.publicUrl as string | undefined });
  } catch (e) {
    const where = databaseUrl ? `the database ${redactUrl(databaseUrl)}` : `the data directory ${dataDir}`;
    throw new CliError(`cannot open ${where}: ${(e as Error).message}`, EXIT.refused);
  }
  let server;
  try {
    server = await listen(rt, String(opts.host), port);
  } catch (e) {
    await rt.close();
    throw new CliError(`cannot listen on ${opts.host}:${port}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, EXIT.refused);
  }
  if (!opts.publicUrl) rt.deps.publicBaseUrl = server.url;
  const running = server;
  const runtime = rt;
  // Signal handlers go in before the URL is printed: whoever reads the URL may stop us at once.
  const stopped = new Promise<void>((done) => {
    const stop = async (sig: string) => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      if (!g.quiet) io.err(`${sig}: stopping…\n`);
      await running.close();
      await runtime.close();
      done();
    };
    const onInt = () => void stop('SIGINT');
    const onTerm = () => void stop('SIGTERM');
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
  });
  io.out(server.url + '\n');
  if (!g.quiet) io.err(`mpay ${production ? 'production' : 'sandbox'} server on ${server.url} (data: ${databaseUrl ? redactUrl(databaseUrl) : dataDir}); Ctrl-C to stop\n`);
  await stopped;
  return EXIT.ok;
}
