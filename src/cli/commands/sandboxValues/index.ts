/** `mpay sandbox values`: no flags of its own; the work is in run.ts. */
import { type Command } from 'commander';
import { action, globalsOf, type CliDeps } from '../../action.js';
import { group, runEnv } from '../shape.js';

export type SandboxValuesOptions = Record<string, never>;

export function register(program: Command, deps: CliDeps): void {
  const sandbox = group(program, 'sandbox', 'sandbox helpers: magic values, clock, PIX payment, review');
  sandbox
    .command('values')
    .description('every magic value of the sandbox and its outcome (test cards, payout values, PIX, clock, review); works offline')
    .addHelpText('after', '\nExamples:\n  $ mpay sandbox values\n  $ mpay sandbox values -o json | jq -r \'.[] | select(.area == "card") | "\\(.value) \\(.outcome) \\(.code)"\'\n')
    .action(action(deps, async (_o: unknown, cmd: Command) => (await import('./run.js')).run({}, await runEnv(globalsOf(cmd), deps.io, deps.openTarget))));
}
