/** `mpay smoke`: its flags (typed, in types.ts) and their parsing; the runner is run.ts. */
import { type Command } from 'commander';
import { action, globalsOf, type CliDeps } from '../../action.js';
import { runEnv } from '../shape.js';
import type { SmokeOptions } from './types.js';

export function register(program: Command, deps: CliDeps): void {
  program
    .command('smoke')
    .description('run an end-to-end scenario against the current target and report each step (exits non-zero on the first failure)')
    .option('--junit <file>', 'also write a JUnit XML report to this file')
    .option('--timeout <seconds>', 'how long a step may wait for the service (capture, payout, delivery)', '60')
    .option('--webhook-url <url>', 'public URL that reaches the local webhook receiver (for a remote target that cannot reach this machine)')
    .option('--webhook-port <port>', 'port of the local webhook receiver (default: any free port; the one used is printed)')
    .option('--allow-clock', "on a remote target, also move the merchant's sandbox clock past D+30 on a business day, 35 days (settles the card receivables for the withdrawal step)")
    .addHelpText(
      'after',
      '\nExamples:\n  $ mpay smoke                                   # the embedded sandbox\n  $ mpay --base-url http://127.0.0.1:4010 smoke --allow-clock --junit smoke.xml\n  $ mpay --profile staging smoke --webhook-url https://hooks.example.dev/ --webhook-port 8787 -o json\n\nSteps: key check, api key, webhook endpoint, tokenize card, submerchant, address, document upload,\ndocument, card charge, pix charge, pix payment, payment link, recipient, clock advance, withdrawal,\nwebhook delivery. Sandbox-only steps are skipped on a production target; on a remote target the\nclock advance runs only with --allow-clock. MPAY_PIN: the merchant\'s transaction PIN, when it\nhas one (else the withdrawal is skipped).\n',
    )
    .action(
      action(deps, async (opts: SmokeOptions, cmd: Command) => (await import('./run.js')).run(opts, await runEnv(globalsOf(cmd), deps.io, deps.openTarget))),
    );
}
