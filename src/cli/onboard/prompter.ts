/**
 * Where the onboarding's answers come from: a person at a terminal (@inquirer/prompts, loaded
 * here only) or a recorded answers file (answers.ts). The flow asks Questions and never knows
 * which one it talks to.
 */
import { readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Painter } from '../output.js';
import { labelOf, type Choice } from './fields.js';

export type AnswerPath = readonly (string | number)[];

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
  /** put this value in the input to be edited (asking again after the service refused it) */
  prefill?: string;
  /** true or why the (trimmed) value is refused; for a file, gets the absolute path */
  validate?: (value: string) => true | string;
}

/**
 * The answer as a string ('true' / 'false' for confirm and more; an absolute path for a file),
 * undefined when an optional question is skipped, null when a file question is skipped.
 */
export type AnswerValue = string | null | undefined;

export interface Prompter {
  /** true when a person answers (the flow then offers to fix refused fields and retry) */
  readonly interactive: boolean;
  ask(q: Question): Promise<AnswerValue>;
  /** replay only: checks every answer the session will need before anything is created */
  preflight?(entity: 'pf' | 'pj', resume: boolean): void;
  /** replay only: the index of the partner with this document in the answers file */
  findPartner?(document: string): number | undefined;
}

/** ['partners', 0, 'document'] → "partners[0].document" */
export function pathText(path: AnswerPath): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out ? `.${p}` : p;
  return out;
}

const OPTIONAL = ' (optional, Enter to skip)';
const FILE_HINT = ' (Enter to skip it for now)';

/** A path as typed: `~` and `~/…` are the home directory (as a shell would expand them), the rest relative to cwd. */
export function localPath(cwd: string, typed: string, home = homedir()): string {
  const v = typed.trim();
  if (v === '~') return home;
  if (v.startsWith('~/')) return join(home, v.slice(2));
  return resolve(cwd, v);
}

/**
 * The @inquirer/input configuration of a text or file question: the validation runs on Enter
 * and shows the server's message under the field; while typing, a ✓ appears once the value
 * is valid.
 */
export function inputConfig(q: Question, paint: Painter, cwd: string) {
  const file = q.kind === 'file';
  const check = (raw: string): true | string => {
    const v = raw.trim();
    if (!v) return file || !q.required ? true : `${labelOf(q.message)} is required`;
    if (!q.validate) return true;
    return q.validate(file ? localPath(cwd, v) : v);
  };
  return {
    message: q.message + (file ? FILE_HINT : q.required ? '' : OPTIONAL),
    default: q.prefill,
    prefill: 'editable' as const,
    validate: check,
    transformer: (value: string, { isFinal }: { isFinal: boolean }) => {
      if (isFinal || !value.trim()) return value;
      return check(value) === true ? `${value} ${paint.green('✓')}` : value;
    },
  };
}

/** A Prompter that asks a person at the terminal; prompts are drawn on stderr. */
export async function terminalPrompter(o: { paint: Painter; cwd: string; output?: NodeJS.WritableStream }): Promise<Prompter> {
  const { input, select, confirm } = await import('@inquirer/prompts');
  const context = { output: o.output ?? process.stderr };
  return {
    interactive: true,
    async ask(q) {
      switch (q.kind) {
        case 'more':
          if (q.required) return 'true';
          return String(await confirm({ message: q.message, default: q.default === true }, context));
        case 'confirm':
          return String(await confirm({ message: q.message, default: q.default === true }, context));
        case 'select':
          return await select(
            { message: q.message, choices: q.choices!.map((c) => ({ ...c })), default: typeof q.default === 'string' ? q.default : undefined },
            context,
          );
        case 'file':
          return askPath(q, o);
        case 'text': {
          const v = (await input(inputConfig(q, o.paint, o.cwd), context)).trim();
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
async function askPath(q: Question, o: { paint: Painter; cwd: string; output?: NodeJS.WritableStream }): Promise<string | null> {
  const { createInterface } = await import('node:readline');
  const output = o.output ?? process.stderr;
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
      rl.question(`${o.paint.green('?')} ${o.paint.bold(q.message + FILE_HINT)} `, (a) => {
        done = true;
        rl.close();
        resolveAnswer(a);
      });
    });
    const v = raw.trim();
    if (!v) return null;
    const path = localPath(o.cwd, v);
    const verdict = q.validate ? q.validate(path) : true;
    if (verdict === true) return path;
    output.write(`${o.paint.red('>')} ${verdict}\n`);
  }
}
