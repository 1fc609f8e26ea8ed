/** `mpay submerchants onboard`: its flags (typed) and their parsing; the work is in run.ts. */
import { type Command } from 'commander';
import { action, globalsOf, type CliDeps } from '../../action.js';
import { group, runEnv } from '../shape.js';

export interface OnboardOptions {
  id?: string;
  fromFile?: string;
  saveAnswers?: string;
  /** the wizard's language: pt-BR or en (default: the locale, LC_ALL / LC_MESSAGES / LANG) */
  lang?: string;
}

export function register(program: Command, deps: CliDeps): void {
  const submerchants = group(program, 'submerchants', 'submerchants commands');
  submerchants
    .command('onboard')
    .description('onboard a submerchant step by step: entity type, fields, address, partners, document uploads, with a live checklist')
    .option('--id <submerchant_id>', 'continue the onboarding of an existing submerchant from what is still missing')
    .option('--from-file <file>', 'replay recorded answers without any prompt (for CI)')
    .option('--save-answers <file>', "record this run's answers as JSON (no keys), to replay with --from-file")
    .option('--lang <lang>', 'language of the questions: pt-BR or en (default: from LC_ALL, LC_MESSAGES or LANG)')
    .addHelpText(
      'after',
      '\nExamples:\n  $ mpay submerchants onboard                          # asks everything, uploads the documents\n  $ mpay submerchants onboard --save-answers ana.json   # same, and records the answers\n  $ mpay submerchants onboard --from-file ana.json -o json   # CI: no prompts\n  $ mpay submerchants onboard --id 0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f   # continue where it stopped\n  $ mpay submerchants onboard --lang pt-BR                   # perguntas em português\n\nType < and Enter to go back to the previous question; every answer is reviewed before anything is created.\n\nThe answers file and a walkthrough: docs/cli.md\n',
    )
    .action(
      action(deps, async (opts: OnboardOptions, cmd: Command) => (await import('./run.js')).run(opts, await runEnv(globalsOf(cmd), deps.io, deps.openTarget))),
    );
}
