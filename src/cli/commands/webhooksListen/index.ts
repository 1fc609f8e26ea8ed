/** `mpay webhooks listen`: its flags (typed, in run.ts's ListenOptions) and their parsing; the work is in run.ts. */
import { Option, type Command } from 'commander';
import { EVENT_NAMES } from '../../../contract/events.js';
import { completesWith } from '../../optionValues.js';
import { action, globalsOf, type CliDeps } from '../../action.js';
import { group, runEnv } from '../shape.js';
import type { ListenOptions } from './run.js';

export function register(program: Command, deps: CliDeps): void {
  const webhooks = group(program, 'webhooks', 'webhook endpoints and deliveries');
  webhooks
    .command('listen')
    .description('receive webhooks locally: registers a temporary endpoint, prints and verifies each event, optionally forwards it; Ctrl-C removes the endpoint')
    .addOption(
      completesWith(
        new Option('--events <names>', 'event names, comma-separated or repeated (default: *)').argParser((v: string, p: string[] = []) => [...p, v]),
        EVENT_NAMES,
        { list: true },
      ),
    )
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
      action(deps, async (opts: ListenOptions, cmd: Command) => (await import('./run.js')).run(opts, await runEnv(globalsOf(cmd), deps.io, deps.openTarget))),
    );
}
