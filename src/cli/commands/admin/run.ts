import { resolve } from 'node:path';
import { defaultDataDir } from '../../config.js';
import { usage } from '../../errors.js';
import { noteSecretsShownOnce } from '../../confirm.js';
import type { IO } from '../../io.js';
import { painter, printData, resolveFormat } from '../../output.js';
import type { Globals } from '../../target.js';
import type { RunEnv } from '../shape.js';
import type { AdminMerchantsCreateOptions } from './index.js';

export async function adminMerchantsCreate(g: Globals, opts: { name: string; production?: boolean; database?: string }, io: IO): Promise<number> {
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
