/** `mpay sandbox values` and `mpay sandbox calendar [YEAR]`: offline; the work is in run.ts. */
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
  sandbox
    .command('calendar')
    .argument('[year]', 'the year (1583–9999); default: this year in São Paulo')
    .description('the banking holidays receivables settle around (America/Sao_Paulo): each date and the business day a receivable due that day settles on; works offline')
    .addHelpText('after', '\nExamples:\n  $ mpay sandbox calendar\n  $ mpay sandbox calendar 2027 -o json | jq -r \'.[] | "\\(.date) \\(.name)"\'\n')
    .action(
      action(deps, async (year: string | undefined, _o: unknown, cmd: Command) =>
        (await import('./run.js')).runCalendar(year, await runEnv(globalsOf(cmd), deps.io, deps.openTarget)),
      ),
    );
}
