/**
 * `mpay submerchants onboard`: the interactive onboarding for support staff (and its replay for
 * CI). Loaded only when the command runs; @inquirer/prompts only when it really prompts.
 */
import { resolve } from 'node:path';
import { EXIT, jsonErrors, promptInterrupted, reportError, usage } from '../../errors.js';
import { canPrompt } from '../../io.js';
import type { CliDeps } from '../../action.js';
import { painter, printData, resolveFormat } from '../../output.js';
import { openTarget as realOpenTarget, type Globals, type Target } from '../../target.js';
import { Answers, loadAnswers, ReplayPrompter, saveAnswers } from '../../onboard/answers.js';
import type { Prompter } from '../../onboard/prompter.js';
import type { RunEnv } from '../shape.js';
import type { OnboardOptions } from './index.js';
import { UUID_RE } from '../../../domain/ids.js';

export interface OnboardFlags {
  id?: string;
  fromFile?: string;
  saveAnswers?: string;
  lang?: string;
}

export async function submerchantsOnboard(g: Globals, flags: OnboardFlags, deps: Pick<CliDeps, 'io' | 'openTarget'>, inject: { prompter?: Prompter } = {}): Promise<number> {
  const io = deps.io;
  if (flags.id !== undefined && !UUID_RE.test(flags.id)) throw usage(`--id must be a submerchant id (a UUID), got '${flags.id}'`);
  const { catalogue, detectLang } = await import('../../onboard/locale.js');
  const t = catalogue(detectLang(io.env, flags.lang));
  const paint = await painter(g, io);
  let prompter: Prompter | undefined = inject.prompter;
  if (flags.fromFile) {
    const file = resolve(io.cwd, flags.fromFile);
    prompter = new ReplayPrompter(loadAnswers(file), flags.fromFile);
  } else if (!prompter && !canPrompt(io)) {
    throw usage(
      '`mpay submerchants onboard` asks questions, and it cannot here (stdin and stdout must be a terminal, and MPAY_NO_PROMPT unset): ' +
        'replay answers with --from-file FILE (record them once with --save-answers FILE)',
    );
  }
  const saveTo = flags.saveAnswers ? resolve(io.cwd, flags.saveAnswers) : undefined;
  if (!prompter) {
    const { terminalPrompter } = await import('../../onboard/prompter.js');
    prompter = await terminalPrompter({ paint, cwd: io.cwd, t });
  }
  const recorded = new Answers();
  const state: { id?: string } = {};
  let target: Target | undefined;
  try {
    target = await (deps.openTarget ?? realOpenTarget)(g, io);
    // the target answers and the keys work before the first question (no answers lost to a typo'd URL)
    const merchant = (await target.client.call('merchant.get', {})).data;
    const { runOnboarding } = await import('../../onboard/flow.js');
    // birth dates are judged on the merchant's clock, as the service judges them
    const now = new Date(merchant.clock);
    const sub = await runOnboarding({ client: target.client, io, prompter, recorded, paint, id: flags.id, quiet: g.quiet, state, t, now: Number.isNaN(now.getTime()) ? new Date() : now });
    await printData(io, sub, { format: resolveFormat(g, io), paint, view: 'submerchants.get' });
    return EXIT.ok;
  } catch (e) {
    // Ctrl-C in a prompt, said in the run's language (a JSON report keeps the contract's words)
    const interrupted = promptInterrupted(e) && !jsonErrors(g);
    if (interrupted) io.err(`${t.flow.interrupted}\n`);
    const code = interrupted ? EXIT.interrupted : reportError(io, g, e);
    if (state.id) io.err(`${t.flow.kept(state.id)}\n`);
    return code;
  } finally {
    if (saveTo && Object.keys(recorded.doc).length) {
      try {
        saveAnswers(saveTo, recorded);
        if (!g.quiet) io.err(`${t.flow.saved(flags.saveAnswers!)}\n`);
      } catch (e) {
        io.err(`warning: could not save the answers to ${flags.saveAnswers}: ${(e as Error).message}\n`);
      }
    }
    await target?.close();
  }
}

/** The command's entry: its options, with the target opener and IO injected. */
export async function run(opts: OnboardOptions, env: RunEnv): Promise<number> {
  return submerchantsOnboard(env.globals, opts, { io: env.io, openTarget: env.openTarget });
}
