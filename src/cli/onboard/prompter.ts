/**
 * Where the onboarding's answers come from: a person at a terminal (@inquirer/prompts, loaded
 * here only) or a recorded answers file (answers.ts). The flow asks Questions and never knows
 * which one it talks to.
 */
import { readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Painter } from '../output.js';
import { labelOf, type Choice, type FieldContext } from './fields.js';
import { en, type Catalogue } from './locale.js';

export type AnswerPath = readonly (string | number)[];

/** What a person types to go back to the previous question (alone, then Enter). */
export const BACK_TOKEN = '<';
/** The answer that means "take me back to the previous question". */
export const GO_BACK = Symbol('go back');

export interface Question {
  /** where the answer lives in the answers file, e.g. ['partners', 0, 'document'] */
  path: AnswerPath;
  /**
   * text, select and confirm are fields; file asks for a local file (an empty answer skips it);
   * more asks whether to add the list item at path (a partner).
   */
  kind: 'text' | 'select' | 'confirm' | 'file' | 'more';
  message: string;
  required: boolean;
  choices?: readonly Choice[];
  default?: string | boolean;
  /** put this value in the input to be edited (asking again after the service refused it, or after going back) */
  prefill?: string;
  /** true or why the (trimmed) value is refused; for a file, gets the absolute path */
  validate?: (value: string) => true | string;
  /** a person may go back from here to the previous question (answered GO_BACK) */
  back?: boolean;
}

/**
 * The answer as a string ('true' / 'false' for confirm and more; an absolute path for a file),
 * undefined when an optional question is skipped, null when a file question is skipped,
 * GO_BACK when the person asked for the previous question.
 */
export type AnswerValue = string | null | undefined | typeof GO_BACK;

export interface Prompter {
  /** true when a person answers (the flow then offers to fix refused fields and retry) */
  readonly interactive: boolean;
  ask(q: Question): Promise<AnswerValue>;
  /** replay only: checks every answer the run will need before anything is created */
  preflight?(entity: 'pf' | 'pj', resume: boolean, c?: FieldContext): void;
  /** replay only: the index of the partner with this document in the answers file */
  findPartner?(document: string): number | undefined;
  /** replay only: how many partners the answers file lists */
  partnerCount?(): number;
}

/** ['partners', 0, 'document'] → "partners[0].document" */
export function pathText(path: AnswerPath): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out ? `.${p}` : p;
  return out;
}

/** A path as typed: `~` and `~/…` are the home directory (as a shell would expand them), the rest relative to cwd. */
export function localPath(cwd: string, typed: string, home = homedir()): string {
  const v = typed.trim();
  if (v === '~') return home;
  if (v.startsWith('~/')) return join(home, v.slice(2));
  return resolve(cwd, v);
}

/**
 * The textPrompt configuration of a text or file question: the validation runs on Enter and
 * shows the message under the field; while typing, a ✓ appears once the value is valid; the
 * help line says how to go back (`<` alone) when the question allows it.
 */
export function inputConfig(q: Question, paint: Painter, cwd: string, t: Catalogue = en) {
  const file = q.kind === 'file';
  const check = (raw: string): true | string => {
    const v = raw.trim();
    if (q.back && v === BACK_TOKEN) return true;
    if (!v) return file || !q.required ? true : t.prompt.required(labelOf(q.message));
    if (!q.validate) return true;
    return q.validate(file ? localPath(cwd, v) : v);
  };
  return {
    message: q.message + (file ? t.prompt.fileHint : q.required ? '' : t.prompt.optional),
    default: q.prefill,
    validate: check,
    help: q.back ? t.prompt.helpBack : t.prompt.help,
    transformer: (value: string, { isFinal }: { isFinal: boolean }) => {
      if (q.back && value.trim() === BACK_TOKEN) return isFinal ? paint.dim(t.prompt.back) : value;
      if (isFinal || !value.trim()) return value;
      return check(value) === true ? `${value} ${paint.green('✓')}` : value;
    },
  };
}

/** The yes/no answer of what was typed in the language's words (y/yes/n/no, s/sim/n/não), or null. */
export function yesNo(typed: string, t: Catalogue): boolean | null {
  const v = typed.trim().toLowerCase();
  if (t.prompt.yes.includes(v)) return true;
  if (t.prompt.no.includes(v)) return false;
  return null;
}

/**
 * The textPrompt configuration of a yes/no question: only the language's yes or no is an
 * answer (any other text is refused, not taken as "no", and cleared for the next answer);
 * Enter alone takes the default.
 */
export function yesNoConfig(q: Question, t: Catalogue = en, paint?: Painter) {
  const dflt = typeof q.default === 'boolean' ? q.default : undefined;
  return {
    transformer: (value: string, { isFinal }: { isFinal: boolean }) =>
      q.back && isFinal && value.trim() === BACK_TOKEN ? (paint ? paint.dim(t.prompt.back) : t.prompt.back) : value,
    message: `${q.message} ${t.prompt.yesNoHint(dflt)}`,
    default: q.prefill,
    help: q.back ? t.prompt.helpBack : t.prompt.help,
    clearRefused: true,
    validate: (raw: string): true | string => {
      const v = raw.trim();
      if (q.back && v === BACK_TOKEN) return true;
      if (!v && dflt !== undefined) return true;
      return yesNo(v, t) === null ? t.prompt.yesNoError : true;
    },
  };
}

/**
 * Asks a yes/no question at the terminal (on `output`): true or false (Enter alone: the
 * default), GO_BACK when the question allows going back and `<` was typed.
 */
export async function askYesNo(q: Question, t: Catalogue, output: NodeJS.WritableStream, paint?: Painter): Promise<boolean | typeof GO_BACK> {
  const { textPrompt } = await import('./textPrompt.js');
  const v = (await textPrompt(yesNoConfig(q, t, paint), { output })).trim();
  if (q.back && v === BACK_TOKEN) return GO_BACK;
  return v ? yesNo(v, t) === true : q.default === true;
}

/** A Prompter that asks a person at the terminal, in the catalogue's language; prompts are drawn on stderr. */
export async function terminalPrompter(o: { paint: Painter; cwd: string; output?: NodeJS.WritableStream; t?: Catalogue }): Promise<Prompter> {
  const { select } = await import('@inquirer/prompts');
  const { textPrompt } = await import('./textPrompt.js');
  const t = o.t ?? en;
  const context = { output: o.output ?? process.stderr };
  const yesNoAnswer = async (q: Question): Promise<AnswerValue> => {
    const a = await askYesNo(q, t, context.output, o.paint);
    return a === GO_BACK ? a : String(a);
  };
  return {
    interactive: true,
    async ask(q) {
      switch (q.kind) {
        case 'more':
          if (q.required) return 'true';
          return yesNoAnswer(q);
        case 'confirm':
          return yesNoAnswer(q);
        case 'select': {
          const choices = q.choices!.map((c) => ({ ...c }));
          if (q.back) choices.push({ value: BACK_TOKEN, name: t.prompt.back });
          const v = await select(
            {
              message: q.message,
              choices,
              default: typeof q.default === 'string' ? q.default : undefined,
              theme: { style: { keysHelpTip: () => t.prompt.selectHelp } },
            },
            context,
          );
          return v === BACK_TOKEN ? GO_BACK : v;
        }
        case 'file':
          return askPath(q, { ...o, t });
        case 'text': {
          const v = (await textPrompt(inputConfig(q, o.paint, o.cwd, t), context)).trim();
          if (q.back && v === BACK_TOKEN) return GO_BACK;
          return v || undefined;
        }
      }
    },
  };
}

/**
 * Tab completion of a path being typed, like a shell's: `~` is the home directory, a directory
 * gets its `/`, several matches complete to their common prefix (readline lists them).
 */
export function completePath(cwd: string, line: string, home = homedir()): [string[], string] {
  const slash = line.lastIndexOf('/');
  const dirPart = slash >= 0 ? line.slice(0, slash + 1) : '';
  const base = slash >= 0 ? line.slice(slash + 1) : line;
  const dir = dirPart ? localPath(cwd, dirPart, home) : cwd;
  let names: string[];
  try {
    names = readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.name.startsWith(base) && (base.startsWith('.') || !d.name.startsWith('.')))
      .map((d) => dirPart + d.name + (d.isDirectory() || (d.isSymbolicLink() && isDir(join(dir, d.name))) ? '/' : ''));
  } catch {
    names = [];
  }
  return [names.sort(), line];
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * A file question on the terminal: node's readline, for its Tab completion of paths (the
 * inquirer input has none). The path is checked on Enter with the same rules as before the
 * upload; a refusal is shown and the question asked again. Ctrl-C cancels like a prompt does.
 */
async function askPath(q: Question, o: { paint: Painter; cwd: string; output?: NodeJS.WritableStream; t: Catalogue }): Promise<string | null | typeof GO_BACK> {
  const { createInterface } = await import('node:readline');
  const output = o.output ?? process.stderr;
  let prefill = q.prefill;
  for (;;) {
    const raw = await new Promise<string>((resolveAnswer, reject) => {
      const rl = createInterface({ input: process.stdin, output, terminal: true, completer: (line: string) => completePath(o.cwd, line) });
      let done = false;
      rl.on('SIGINT', () => {
        done = true;
        rl.close();
        output.write('\n');
        reject(Object.assign(new Error('User force closed the prompt with SIGINT'), { name: 'ExitPromptError' }));
      });
      rl.on('close', () => {
        if (!done) reject(Object.assign(new Error('the terminal closed'), { name: 'ExitPromptError' }));
      });
      rl.question(`${o.paint.green('?')} ${o.paint.bold(q.message + (q.back ? o.t.prompt.fileBackHint : o.t.prompt.fileHint))} `, (a) => {
        done = true;
        rl.close();
        resolveAnswer(a);
      });
      if (prefill) rl.write(prefill);
    });
    const v = raw.trim();
    if (!v) return null;
    if (q.back && v === BACK_TOKEN) return GO_BACK;
    const path = localPath(o.cwd, v);
    const verdict = q.validate ? q.validate(path) : true;
    if (verdict === true) return path;
    output.write(`${o.paint.red('>')} ${verdict}\n`);
    prefill = v;
  }
}
