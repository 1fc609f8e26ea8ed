/**
 * Hand-written commands (those that are not one API operation), in gh's shape: each command's
 * folder has an index.ts that exports its typed options and a `register` that only declares and
 * parses flags (cheap, at start-up), and a run.ts with `run(opts, env)` — target opener and IO
 * injected (commands/shape.ts) — loaded only when the command runs.
 */
import { Argument, Command, Option } from 'commander';
import { action, type CliDeps } from '../action.js';
import { group } from './shape.js';
import { register as registerServerStart } from './serverStart/index.js';
import { register as registerAdmin } from './admin/index.js';
import { register as registerApi } from './api/index.js';
import { register as registerProfiles } from './profiles/index.js';
import { register as registerWhoami } from './whoami.js';
import { register as registerTrigger } from './trigger/index.js';
import { register as registerSandboxValues } from './sandboxValues/index.js';
import { register as registerSmoke } from './smoke/index.js';
import { register as registerOnboard } from './onboard/index.js';
import { register as registerWebhooksListen } from './webhooksListen/index.js';
import { register as registerOpen } from './open/index.js';

/**
 * Registers the hand-written commands. Given `only` (the command line's first word, a group of
 * generated operations), only those that add to that group: a `keys list` declares no server,
 * onboarding or completion commands (buildProgram, bench/startup).
 */
export function registerCommands(program: Command, deps: CliDeps, only?: string): void {
  const wanted = (...words: string[]) => only === undefined || words.includes(only);
  if (wanted('server')) registerServerStart(program, deps);
  if (wanted('admin')) registerAdmin(program, deps);
  if (wanted('api')) registerApi(program, deps);
  if (wanted('completion', '__complete')) registerCompletion(program, deps);
  if (wanted('profiles')) registerProfiles(program, deps);
  if (wanted('whoami')) registerWhoami(program, deps);
  if (wanted('trigger')) registerTrigger(program, deps);
  if (wanted('sandbox')) {
    registerSandboxValues(program, deps);
    registerReviewShortcuts(program);
  }
  if (wanted('smoke')) registerSmoke(program, deps);
  if (wanted('webhooks')) registerWebhooksListen(program, deps);
  if (wanted('submerchants')) registerOnboard(program, deps);
  if (wanted('links', 'charges', 'files')) registerOpen(program, deps);
}

function registerCompletion(program: Command, deps: CliDeps): void {
  program
    .command('completion')
    .description('print the shell completion script (bash, zsh, fish or powershell)')
    .addArgument(new Argument('<shell>', 'shell').choices(['bash', 'zsh', 'fish', 'powershell']))
    .addHelpText(
      'after',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: zsh's ${fpath[1]}, printed for the user to type
      '\nExamples:\n  $ mpay completion bash > ~/.local/share/bash-completion/completions/mpay\n  $ mpay completion zsh > "${fpath[1]}/_mpay"\n  $ mpay completion fish > ~/.config/fish/completions/mpay.fish\n  $ mpay completion powershell >> $PROFILE\n',
    )
    .action(
      action(deps, async (shell: 'bash' | 'zsh' | 'fish' | 'powershell') => {
        const { completionTable, renderCompletion } = await import('../completion.js');
        const { allSpecs } = await import('../specs.js');
        deps.io.out(renderCompletion(shell, completionTable(program, allSpecs())));
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
}

/** the generated `sandbox review` gets --approve / --reject shortcuts */
function registerReviewShortcuts(program: Command): void {
  const sandbox = group(program, 'sandbox', 'sandbox helpers: magic values, clock, PIX payment, review');
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
}
