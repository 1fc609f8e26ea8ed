/** `mpay whoami`: the merchant, key, target and clock the current profile talks to. */
import type { Command } from 'commander';
import { action, globalsOf, type CliDeps } from '../action.js';
import { EXIT } from '../errors.js';
import { runEnv, type RunEnv } from './shape.js';

export type WhoamiOptions = Record<string, never>;

export interface Whoami {
  profile: string;
  target: string;
  merchant: { id: string; name: string; mode: string };
  key: { id: string | null; name: string | null; public_key: string };
  clock: string;
  /** how far the merchant's (sandbox) clock is ahead of real time, in days */
  clock_offset_days: number;
}

export function register(program: Command, deps: CliDeps): void {
  program
    .command('whoami')
    .description('show the merchant, API key, target and clock the current profile talks to (checks the keys)')
    .addHelpText('after', '\nExamples:\n  $ mpay whoami\n  $ mpay --profile staging whoami -o json\n')
    .action(action(deps, async (_o: WhoamiOptions, cmd: Command) => run({}, await runEnv(globalsOf(cmd), deps.io, deps.openTarget))));
}

export async function whoami(env: RunEnv): Promise<Whoami> {
  const target = await env.openTarget(env.globals, env.io);
  try {
    const m = (await target.client.call('merchant.get', {})).data;
    const publicKey = target.publicKey ?? '';
    const keys = (await target.client.call('apiKeys.list', { query: { per_page: 100 } })).data;
    const k = keys.find((x) => x.public_key === publicKey);
    const now = Date.now();
    return {
      profile: target.profileName,
      target: target.kind === 'embedded' ? `embedded:${target.dataDir}` : (target.baseUrl ?? 'remote'),
      merchant: { id: m.id, name: m.name, mode: m.mode },
      key: { id: k?.id ?? null, name: k?.name ?? null, public_key: publicKey },
      clock: m.clock,
      clock_offset_days: Math.round(((Date.parse(m.clock) - now) / 86_400_000) * 100) / 100,
    };
  } finally {
    await target.close();
  }
}

export async function run(_opts: WhoamiOptions, env: RunEnv): Promise<number> {
  const { painter, printData, resolveFormat } = await import('../output.js');
  const w = await whoami(env);
  const format = resolveFormat(env.globals, env.io);
  const paint = await painter(env.globals, env.io);
  const ahead = w.clock_offset_days ? ` (${w.clock_offset_days > 0 ? '+' : ''}${w.clock_offset_days} days)` : '';
  const data =
    format === 'table'
      ? {
          merchant: `${w.merchant.name} (${w.merchant.mode}) ${w.merchant.id}`,
          key: `${w.key.public_key}${w.key.name ? ` "${w.key.name}"` : ''}`,
          target: w.target,
          profile: w.profile,
          clock: `${w.clock}${ahead}`,
        }
      : w;
  await printData(env.io, data, { format, paint });
  return EXIT.ok;
}
