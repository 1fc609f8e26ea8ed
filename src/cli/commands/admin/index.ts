/** `mpay admin merchants create`: its flags (typed) and their parsing; the work is in run.ts. */
import { type Command } from 'commander';
import { action, globalsOf, type CliDeps } from '../../action.js';
import { group, runEnv } from '../shape.js';

export interface AdminMerchantsCreateOptions {
  name: string;
  production?: boolean;
  database?: string;
}

export function register(program: Command, deps: CliDeps): void {
  const admin = group(program, 'admin', 'administration directly on a data directory');
  const merchants = group(admin, 'merchants', 'merchants of this data directory');
  merchants
    .command('create')
    .description('create a merchant with its wallet and first key pair, directly in the store')
    .requiredOption('--name <name>', 'merchant name')
    .option('--production', 'issue live keys (pk_live_/sk_live_) for a production deployment')
    .option('--database <url>', 'PostgreSQL URL of the deployment (env MPAY_DATABASE_URL); default: SQLite in the data dir')
    .addHelpText('after', '\nExample:\n  $ mpay admin merchants create --name "Loja da Ana" --data-dir ./mpay-data --json\n')
    .action(
      action(deps, async (opts: AdminMerchantsCreateOptions, cmd: Command) => (await import('./run.js')).run(opts, await runEnv(globalsOf(cmd), deps.io, deps.openTarget))),
    );
}
