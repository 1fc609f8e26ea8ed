import { join, resolve } from 'node:path';
import { defaultDataDir } from '../../config.js';
import { CliError, EXIT, usage } from '../../errors.js';
import { noteSecretsShownOnce } from '../../confirm.js';
import type { IO } from '../../io.js';
import { painter, printData, resolveFormat } from '../../output.js';
import type { Globals } from '../../target.js';
import type { RunEnv } from '../shape.js';
import type { AdminMerchantsCreateOptions, AdminPricingOptions } from './index.js';

/** Admin commands work on a store directly: a server's address (--base-url) is not one. */
function refuseBaseUrl(g: Globals): void {
  if (g.baseUrl) {
    throw usage('--base-url: admin commands work directly on a data directory (--data-dir) or a database (--database), not through a server');
  }
}

export async function adminMerchantsCreate(g: Globals, opts: { name: string; production?: boolean; database?: string }, io: IO): Promise<number> {
  refuseBaseUrl(g);
  const name = opts.name.trim();
  if (!name || name.length > 255) throw usage('--name must be 1 to 255 characters');
  const { databaseUrlOf } = await import('../serverStart/run.js');
  const databaseUrl = databaseUrlOf(opts, io.env);
  const dataDir = resolve(io.cwd, g.dataDir ?? io.env.MPAY_DATA_DIR ?? defaultDataDir(io.env));
  const { openRuntime } = await import('../../../server/runtime.js');
  const { createMerchant } = await import('../../../server/services/merchants.js');
  const rt = await openRuntime({ dataDir, databaseUrl, mode: opts.production ? 'production' : 'sandbox' });
  try {
    const m = await rt.deps.db.tx((q) => createMerchant(q, rt.deps, name, rt.deps.clock.now()));
    await printData(io, m, { format: resolveFormat(g, io), paint: await painter(g, io) });
    noteSecretsShownOnce(io, g.quiet, m);
    return 0;
  } finally {
    await rt.close();
  }
}

/** The command's entry: its options, the target's flags and the IO. */
export async function run(opts: AdminMerchantsCreateOptions, env: RunEnv): Promise<number> {
  return adminMerchantsCreate(env.globals, opts, env.io);
}

/** One rate of a pricing, as the table shows it: its field, its value and who set it. */
interface PricingLine {
  field: string;
  value: number;
  set_by: 'merchant' | 'server';
}

function pricingLines(pricing: unknown, override: unknown, path = ''): PricingLine[] {
  if (typeof pricing !== 'object' || pricing === null) {
    return [{ field: path, value: pricing as number, set_by: override === undefined ? 'server' : 'merchant' }];
  }
  return Object.entries(pricing).flatMap(([k, v]) =>
    pricingLines(v, typeof override === 'object' && override !== null ? (override as Record<string, unknown>)[k] : undefined, path ? `${path}.${k}` : k),
  );
}

/**
 * `mpay admin merchants pricing set ID --file FILE` and `… get ID`: a merchant's pricing
 * override, read and written directly in the store (like `admin merchants create`), shown with
 * the effective pricing over the server's (--pricing / MPAY_PRICING, else the defaults). A bad
 * document is a usage error naming each bad field; nothing is written.
 */
export async function adminMerchantPricing(verb: 'set' | 'get', merchantId: string, g: Globals, opts: AdminPricingOptions, io: IO): Promise<number> {
  refuseBaseUrl(g);
  const { serverPricingOf, parseJsonSetting } = await import('../serverStart/pricing.js');
  const server = serverPricingOf(opts.pricing, io.env, io.cwd).pricing;
  let override: unknown;
  if (verb === 'set') {
    const src = opts.file!;
    let text: string;
    try {
      text = src === '-' ? await io.readStdin() : (await import('node:fs')).readFileSync(resolve(io.cwd, src), 'utf8');
    } catch (e) {
      throw usage(`--file: cannot read ${src}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    override = parseJsonSetting(text, `--file ${src === '-' ? 'stdin' : src}`);
  }
  const { databaseUrlOf } = await import('../serverStart/run.js');
  const databaseUrl = databaseUrlOf({ database: opts.database }, io.env);
  const dataDir = resolve(io.cwd, g.dataDir ?? io.env.MPAY_DATA_DIR ?? defaultDataDir(io.env));
  // a merchant's pricing is in a store that exists: a mistyped directory is not made one
  if (!databaseUrl && !(await import('node:fs')).existsSync(join(dataDir, 'mpay.db'))) {
    throw new CliError(`no merchant ${merchantId} in ${dataDir}: it holds no mpay store`, EXIT.notFound);
  }
  const { openRuntime } = await import('../../../server/runtime.js');
  const { getMerchantPricing, setMerchantPricing, PricingError } = await import('../../../server/services/pricing.js');
  const rt = await openRuntime({ dataDir, databaseUrl, pricing: server });
  try {
    let out;
    try {
      out =
        verb === 'set'
          ? await setMerchantPricing(rt.deps.db, server, merchantId, override, rt.deps.clock.now())
          : await getMerchantPricing(rt.deps.db, server, merchantId);
    } catch (e) {
      if (e instanceof PricingError) throw usage(`--file ${opts.file === '-' ? 'stdin' : opts.file}: ${e.message}`);
      throw e;
    }
    if (!out) throw new CliError(`no merchant ${merchantId} in ${databaseUrl ? 'the database' : dataDir}`, EXIT.notFound);
    const format = resolveFormat(g, io);
    const paint = await painter(g, io);
    if (format === 'table') {
      await printData(io, pricingLines(out.pricing, out.override ?? undefined), { format, paint, columns: ['field', 'value', 'set_by'] });
    } else await printData(io, out, { format, paint });
    return 0;
  } finally {
    await rt.close();
  }
}

/** The pricing commands' entry: the verb, the merchant, its options, the target's flags and the IO. */
export async function runPricing(verb: 'set' | 'get', merchantId: string, opts: AdminPricingOptions, env: RunEnv): Promise<number> {
  return adminMerchantPricing(verb, merchantId, env.globals, opts, env.io);
}
