/**
 * `mpay links open ID`, `mpay charges open ID` and `mpay files open KEY`: the checkout page of a
 * payment link, the printable slip of a boleto, or an uploaded file, at a URL that answers.
 * Their flags and parsing; the work is in run.ts.
 */
import type { Command } from 'commander';
import { action, globalsOf, type CliDeps } from '../../action.js';
import { group, runEnv } from '../shape.js';

export interface OpenOptions {
  /** open the URL in a browser (only on a terminal) */
  browser?: boolean;
  /** the loopback port to serve on (embedded sandbox); 0 picks a free one */
  port: string;
}

export function register(program: Command, deps: CliDeps): void {
  const verbs = [
    {
      group: ['links', 'payment links and their hosted checkout pages'],
      what: 'the checkout page of a payment link',
      arg: '<id>',
      kind: 'link' as const,
      example: '0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f',
    },
    {
      group: ['charges', 'charges'],
      what: 'the printable slip of a boleto',
      arg: '<id>',
      kind: 'charge' as const,
      example: '0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f',
    },
    {
      group: ['files', 'uploaded files'],
      what: 'an uploaded file',
      arg: '<key>',
      kind: 'file' as const,
      example: '0190f0c4-1c2b-4d3e-8f40-5a6b7c8d9e0f.pdf',
    },
  ];
  for (const v of verbs) {
    group(program, v.group[0]!, v.group[1]!)
      .command('open')
      .description(`print (or open with --browser) a URL that serves ${v.what}; in the embedded sandbox, serves it on a free local port until Ctrl-C`)
      .argument(v.arg)
      .option('--browser', 'also open the URL in the browser (on a terminal; $BROWSER chooses which)')
      .option('--port <port>', 'loopback port to serve on in the embedded sandbox (0 picks a free one)', '0')
      .addHelpText(
        'after',
        `\nExamples:\n  $ mpay ${v.group[0]} open ${v.example}\n  $ mpay ${v.group[0]} open ${v.example} --browser\n\nIn the embedded sandbox the URL answers while the command runs (Ctrl-C stops it); against a\nremote deployment it is the deployment's own URL and the command ends at once.\n`,
      )
      .action(
        action(deps, async (id: string, opts: OpenOptions, cmd: Command) =>
          (await import('./run.js')).run(v.kind, id, opts, await runEnv(globalsOf(cmd), deps.io, deps.openTarget)),
        ),
      );
  }
}
