/** `mpay admin merchants create` and `… pricing set|get`: their flags (typed) and their parsing; the work is in run.ts. */
import { type Command } from 'commander';
import { action, globalsOf, type CliDeps } from '../../action.js';
import { group, runEnv } from '../shape.js';

export interface AdminMerchantsCreateOptions {
  name: string;
  production?: boolean;
  database?: string;
}

export interface AdminPricingOptions {
  /** set: the override document, a JSON file or - for stdin */
  file?: string;
  /** the server's pricing the override is laid over (env MPAY_PRICING); default: the defaults */
  pricing?: string;
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

  const pricing = group(merchants, 'pricing', "a merchant's pricing: its override of the server's, directly in the store");
  const serverPricing = '--pricing <file>';
  const serverPricingHelp = "the server's pricing the override is laid over, as `server start --pricing` takes it (env MPAY_PRICING); default: the defaults";
  const database = 'PostgreSQL URL of the deployment (env MPAY_DATABASE_URL); default: SQLite in the data dir';
  pricing
    .command('set')
    .argument('<merchant_id>', 'the merchant')
    .description("set a merchant's pricing override: a partial pricing document laid over the server's ({} removes it); new charges use it, existing ones keep their rates")
    .requiredOption('--file <file>', 'the override, a JSON file (- for stdin)')
    .option(serverPricing, serverPricingHelp)
    .option('--database <url>', database)
    .addHelpText(
      'after',
      '\nExamples:\n  $ echo \'{"pix_mdr_bps": 79, "buyer_interest": {"free_installments": 3}}\' | mpay admin merchants pricing set MERCHANT_ID --file - --data-dir ./mpay-data\n  $ mpay admin merchants pricing set MERCHANT_ID --file ./loja-pricing.json --database postgres://mpay@db/mpay\n',
    )
    .action(
      action(deps, async (id: string, opts: AdminPricingOptions, cmd: Command) =>
        (await import('./run.js')).runPricing('set', id, opts, await runEnv(globalsOf(cmd), deps.io, deps.openTarget)),
      ),
    );
  pricing
    .command('get')
    .argument('<merchant_id>', 'the merchant')
    .description("show a merchant's pricing override and its effective pricing (the server's with the override laid over it)")
    .option(serverPricing, serverPricingHelp)
    .option('--database <url>', database)
    .addHelpText('after', '\nExamples:\n  $ mpay admin merchants pricing get MERCHANT_ID --data-dir ./mpay-data\n  $ mpay admin merchants pricing get MERCHANT_ID -o json | jq .pricing.buyer_interest\n')
    .action(
      action(deps, async (id: string, opts: AdminPricingOptions, cmd: Command) =>
        (await import('./run.js')).runPricing('get', id, opts, await runEnv(globalsOf(cmd), deps.io, deps.openTarget)),
      ),
    );
}
