/**
 * Hand-written commands (those that are not one API operation). Each registers its flags here,
 * cheaply; its work lives in a module loaded only when it runs.
 */
import { Argument, Command, Option } from 'commander';
import type { CliDeps } from '../main.js';
import { action, globalsOf } from '../main.js';
import { register as registerWhoami } from './whoami.js';
import { register as registerTrigger } from './trigger/index.js';

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
    .option('--database <url>', 'PostgreSQL URL shared by every replica (env MPAY_DATABASE_URL); default: SQLite in the data dir')
    .addHelpText(
      'after',
      '\nExamples:\n  $ mpay server start --port 4010 --data-dir ./mpay-data\n  $ MPAY_MASTER_KEY=$(openssl rand -base64 32) mpay server start --production --host 0.0.0.0 --database postgres://mpay@db/mpay --rate-limit 500,1000\n',
    )
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
    .option('--database <url>', 'PostgreSQL URL of the deployment (env MPAY_DATABASE_URL); default: SQLite in the data dir')
    .addHelpText('after', '\nExample:\n  $ mpay admin merchants create --name "Loja da Ana" --data-dir ./mpay-data --json\n')
    .action(
      action(deps, async (opts: { name: string; production?: boolean; database?: string }, cmd: Command) => {
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
    .addHelpText(
      'after',
      '\nExamples:\n  $ mpay completion bash > ~/.local/share/bash-completion/completions/mpay\n  $ mpay completion zsh > "${fpath[1]}/_mpay"\n  $ mpay completion fish > ~/.config/fish/completions/mpay.fish\n  $ mpay completion powershell >> $PROFILE\n',
    )
    .action(
      action(deps, async (shell: 'bash' | 'zsh' | 'fish' | 'powershell') => {
        const { completionTable, renderCompletion } = await import('../completion.js');
        const { default: specs } = await import('../generated/spec.json', { with: { type: 'json' } });
        deps.io.out(renderCompletion(shell, completionTable(program, specs)));
      }),
    );
  // what the completion scripts ask while completing: the profile names, one a line
  program
    .command('__complete', { hidden: true })
    .addArgument(new Argument('<what>').choices(['profiles']))
    .action(
      action(deps, async () => {
        const { readConfig } = await import('../config.js');
        const names = Object.keys(readConfig(deps.io.env).profiles);
        if (names.length) deps.io.out(names.join('\n') + '\n');
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
    .option('--no-verify', 'save without checking the keys against the target (by default `GET /v1/merchant` must answer)')
    .option('--default', 'make it the active profile (asked on a terminal; automatic when no profile would be used otherwise)')
    .addHelpText(
      'after',
      '\nExamples:\n  $ mpay profiles add staging --base-url https://pay.staging.example --public-key pk_test_123\n  $ printf %s "$SECRET" | mpay profiles add ci --base-url http://127.0.0.1:4010 --public-key "$PK" --default\n  $ printf %s "$SECRET" | mpay profiles add later --base-url https://pay.example --public-key "$PK" --no-verify\n',
    )
    .action(
      action(deps, async (name: string, opts: import('./profiles.js').ProfilesAddOptions, cmd: Command) =>
        (await import('./profiles.js')).profilesAdd(globalsOf(cmd), name, opts, deps.io, { openTarget: deps.openTarget }),
      ),
    );
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

  registerWhoami(program, deps);
  registerTrigger(program, deps);

  // --- sandbox values, review shortcuts, smoke, webhooks listen ------------------------------
  const sandbox = group(program, 'sandbox', 'sandbox helpers: magic values, clock, PIX payment, review');
  sandbox
    .command('values')
    .description('every magic value of the sandbox and its outcome (test cards, payout values, PIX, clock, review); works offline')
    .addHelpText('after', '\nExamples:\n  $ mpay sandbox values\n  $ mpay sandbox values -o json | jq -r \'.[] | select(.area == "card") | "\\(.value) \\(.outcome) \\(.code)"\'\n')
    .action(action(deps, async (_o: unknown, cmd: Command) => (await import('./sandbox-values.js')).sandboxValues(globalsOf(cmd), deps.io)));
  const review = sandbox.commands.find((c) => c.name() === 'review');
  if (review) {
    review
      .addOption(new Option('--approve', 'same as --decision approve').conflicts(['reject', 'decision']))
      .addOption(new Option('--reject', 'same as --decision reject (needs --notes)').conflicts(['approve', 'decision']))
      .addHelpText('after', 'Shortcuts:\n  $ mpay sandbox review 0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f --approve\n  $ mpay sandbox review 0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f --reject --notes "selfie is blurred"\n')
      .hook('preAction', (cmd) => {
        const o = cmd.opts();
        if (o.approve) cmd.setOptionValue('decision', 'approve');
        if (o.reject) cmd.setOptionValue('decision', 'reject');
      });
  }

  program
    .command('smoke')
    .description('run an end-to-end scenario against the current target and report each step (exits non-zero on the first failure)')
    .option('--junit <file>', 'also write a JUnit XML report to this file')
    .option('--timeout <seconds>', 'how long a step may wait for the service (capture, payout, delivery)', '60')
    .option('--webhook-url <url>', 'public URL that reaches the local webhook receiver (for a remote target that cannot reach this machine)')
    .option('--webhook-port <port>', 'port of the local webhook receiver (default: any free port; the one used is printed)')
    .option('--allow-clock', "on a remote target, also move the merchant's sandbox clock 31 days (settles the card receivables for the withdrawal step)")
    .addHelpText(
      'after',
      '\nExamples:\n  $ mpay smoke                                   # the embedded sandbox\n  $ mpay --base-url http://127.0.0.1:4010 smoke --allow-clock --junit smoke.xml\n  $ mpay --profile staging smoke --webhook-url https://hooks.example.dev/ --webhook-port 8787 -o json\n\nSteps: key check, api key, webhook endpoint, tokenize card, submerchant, address, document upload,\ndocument, card charge, pix charge, pix payment, payment link, recipient, clock advance, withdrawal,\nwebhook delivery. Sandbox-only steps are skipped on a production target; on a remote target the\nclock advance runs only with --allow-clock. MPAY_PIN: the merchant\'s transaction PIN, when it\nhas one (else the withdrawal is skipped).\n',
    )
    .action(
      action(deps, async (opts: Record<string, unknown>, cmd: Command) => {
        const { smoke } = await import('./smoke/run.js');
        return smoke(globalsOf(cmd), opts, deps.io, { openTarget: deps.openTarget });
      }),
    );

  const webhooks = group(program, 'webhooks', 'webhook endpoints and deliveries');
  webhooks
    .command('listen')
    .description('receive webhooks locally: registers a temporary endpoint, prints and verifies each event, optionally forwards it; Ctrl-C removes the endpoint')
    .option('--events <names>', 'event names, comma-separated or repeated (default: *)', (v: string, p: string[] = []) => [...p, v])
    .option('--forward-to <url>', "forward each verified event (raw body and webhook-* headers) to your app and print its status")
    .option('--port <port>', 'port of the local receiver (default: any free port)')
    .option('--host <host>', 'interface of the local receiver', '127.0.0.1')
    .option('--public-url <url>', 'register this URL instead of the local one (a tunnel in front of the receiver)')
    .option('--print-secret', "print the endpoint's signing secret on stdout first (for scripts)")
    .addHelpText(
      'after',
      '\nExamples:\n  $ mpay webhooks listen --events charge.captured,charge.failed --forward-to http://localhost:3000/webhooks\n  $ mpay webhooks listen --print-secret -o jsonl | tee events.jsonl\n\nEmbedded sandbox: run it on the same data directory as the commands that produce events;\nit also delivers due webhooks of that directory while it runs.\n',
    )
    .action(
      action(deps, async (opts: Record<string, unknown>, cmd: Command) => {
        const { webhooksListen } = await import('./webhooks-listen.js');
        return webhooksListen(globalsOf(cmd), opts, deps.io, { openTarget: deps.openTarget });
      }),
    );

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
