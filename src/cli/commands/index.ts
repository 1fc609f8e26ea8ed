/**
 * Hand-written commands (those that are not one API operation). Each registers its flags here,
 * cheaply; its work lives in a module loaded only when it runs.
 */
import { Argument, Command, Option } from 'commander';
import type { CliDeps } from '../main.js';
import { action, globalsOf } from '../main.js';

function group(program: Command, name: string, description: string): Command {
  const existing = program.commands.find((c) => c.name() === name);
  if (existing) return existing;
  const g = program.command(name).description(description);
  g.helpCommand(false);
  return g;
}

export function registerCommands(program: Command, deps: CliDeps): void {
  const server = group(program, 'server', 'run the API as an HTTP server');
  server
    .command('start')
    .description('serve the API over HTTP on this data directory (Ctrl-C stops it cleanly)')
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0 picks a free one)', '4010')
    .option('--production', 'production mode: no sandbox routes, live keys, MPAY_MASTER_KEY required')
    .option('--public-url <url>', 'public origin for links the API hands out (checkout_url, file urls)')
    .option('--rate-limit <rate>', 'per-key limit: RPS[,BURST] or off (env MPAY_RATE_LIMIT)', '100,200')
    .addHelpText('after', '\nExamples:\n  $ mpay server start --port 4010 --data-dir ./mpay-data\n  $ MPAY_MASTER_KEY=$(openssl rand -base64 32) mpay server start --production --host 0.0.0.0 --rate-limit 500,1000\n')
    .action(
      action(deps, async (opts: Record<string, unknown>, cmd: Command) => {
        const { serverStart } = await import('./server-start.js');
        return serverStart(globalsOf(cmd), opts, deps.io);
      }),
    );

  const admin = group(program, 'admin', 'administration directly on a data directory');
  const merchants = group(admin, 'merchants', 'merchants of this data directory');
  merchants
    .command('create')
    .description('create a merchant with its wallet and first key pair, directly in the store')
    .requiredOption('--name <name>', 'merchant name')
    .option('--production', 'issue live keys (pk_live_/sk_live_) for a production deployment')
    .addHelpText('after', '\nExample:\n  $ mpay admin merchants create --name "Loja da Ana" --data-dir ./mpay-data --json\n')
    .action(
      action(deps, async (opts: { name: string; production?: boolean }, cmd: Command) => {
        const { adminMerchantsCreate } = await import('./admin.js');
        return adminMerchantsCreate(globalsOf(cmd), opts, deps.io);
      }),
    );

  program
    .command('api')
    .description('send a raw request with the profile credentials and print the whole envelope')
    .argument('<method>', 'GET, POST, PUT, PATCH or DELETE')
    .argument('<path>', 'path with optional query, e.g. /v1/charges?status=captured')
    .option('--input <file>', 'JSON body from a file, or - for stdin')
    .option('-f, --field <key=value>', 'string field (body for POST/PUT/PATCH, query otherwise); repeatable', (v: string, p: string[] = []) => [...p, v])
    .option('-F, --typed-field <key=value>', 'field parsed as JSON when it can be (numbers, booleans, null); repeatable', (v: string, p: string[] = []) => [...p, v])
    .addOption(new Option('--auth <kind>', 'credentials to send').choices(['secret', 'public', 'none']).default('secret'))
    .addHelpText('after', '\nExamples:\n  $ mpay api GET /v1/merchant\n  $ mpay api POST /v1/api-keys -f name=ci\n  $ mpay api GET /v1/api-keys -F per_page=5\n')
    .action(
      action(deps, async (method: string, path: string, opts: Record<string, unknown>, cmd: Command) => {
        const { apiCommand } = await import('./api.js');
        return apiCommand(globalsOf(cmd), method, path, opts, deps);
      }),
    );

  program
    .command('completion')
    .description('print the shell completion script (bash, zsh, fish or powershell)')
    .addArgument(new Argument('<shell>', 'shell').choices(['bash', 'zsh', 'fish', 'powershell']))
    .addHelpText('after', '\nExamples:\n  $ mpay completion bash > /etc/bash_completion.d/mpay\n  $ mpay completion zsh > "${fpath[1]}/_mpay"\n  $ mpay completion fish > ~/.config/fish/completions/mpay.fish\n')
    .action(
      action(deps, async (shell: 'bash' | 'zsh' | 'fish' | 'powershell') => {
        const { completionTable, renderCompletion } = await import('../completion.js');
        deps.io.out(renderCompletion(shell, completionTable(program)));
      }),
    );

  const profiles = group(program, 'profiles', 'named targets and credentials');
  profiles
    .command('list')
    .description('list profiles')
    .addHelpText('after', '\nExample:\n  $ mpay profiles list\n')
    .action(action(deps, async (_o: unknown, cmd: Command) => (await import('./profiles.js')).profilesList(globalsOf(cmd), deps.io)));
  profiles
    .command('show')
    .argument('[name]', 'profile name (default: the active one)')
    .description('show a profile, secrets masked')
    .addHelpText('after', '\nExample:\n  $ mpay profiles show prod\n')
    .action(action(deps, async (name: string | undefined, _o: unknown, cmd: Command) => (await import('./profiles.js')).profilesShow(globalsOf(cmd), name, deps.io)));
  profiles
    .command('add')
    .argument('<name>', 'profile name')
    .description('add or replace a profile; the secret key is read from a prompt or from stdin, never from the command line')
    .option('--public-key <key>', 'public key (prompted for when omitted on a terminal)')
    .option('--profile-data-dir <dir>', 'data directory for an embedded profile')
    .addHelpText('after', '\nExamples:\n  $ mpay profiles add staging --base-url https://pay.staging.example --public-key pk_test_123\n  $ printf %s "$SECRET" | mpay profiles add ci --base-url http://127.0.0.1:4010 --public-key "$PK"\n')
    .action(action(deps, async (name: string, opts: Record<string, unknown>, cmd: Command) => (await import('./profiles.js')).profilesAdd(globalsOf(cmd), name, opts, deps.io)));
  profiles
    .command('use')
    .argument('<name>', 'profile name')
    .description('make a profile the active one')
    .addHelpText('after', '\nExample:\n  $ mpay profiles use staging\n')
    .action(action(deps, async (name: string, _o: unknown, cmd: Command) => (await import('./profiles.js')).profilesUse(globalsOf(cmd), name, deps.io)));
  profiles
    .command('remove')
    .argument('<name>', 'profile name')
    .description('remove a profile (asks first; --yes when not on a terminal)')
    .addHelpText('after', '\nExample:\n  $ mpay profiles remove staging --yes\n')
    .action(action(deps, async (name: string, _o: unknown, cmd: Command) => (await import('./profiles.js')).profilesRemove(globalsOf(cmd), name, deps.io)));

  const submerchants = group(program, 'submerchants', 'submerchants commands');
  submerchants
    .command('onboard')
    .description('onboard a submerchant step by step: entity type, fields, address, partners, document uploads, with a live checklist')
    .option('--id <submerchant_id>', 'continue the onboarding of an existing submerchant from what is still missing')
    .option('--from-file <file>', 'replay recorded answers without any prompt (for CI)')
    .option('--save-answers <file>', "record this session's answers as JSON (no keys), to replay with --from-file")
    .addHelpText(
      'after',
      '\nExamples:\n  $ mpay submerchants onboard                          # asks everything, uploads the documents\n  $ mpay submerchants onboard --save-answers ana.json   # same, and records the answers\n  $ mpay submerchants onboard --from-file ana.json -o json   # CI: no prompts\n  $ mpay submerchants onboard --id 0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f   # continue where it stopped\n\nThe answers file and a walkthrough: docs/cli.md\n',
    )
    .action(
      action(deps, async (opts: { id?: string; fromFile?: string; saveAnswers?: string }, cmd: Command) => {
        const { submerchantsOnboard } = await import('./onboard.js');
        return submerchantsOnboard(globalsOf(cmd), opts, deps);
      }),
    );
}
