import { Command, CommanderError, Option } from 'commander';
import { allSpecs, groupSpecs, words } from './specs.js';
import presentation from '#generated/presentation.json' with { type: 'json' };
import type { OperationSpec } from './spec/types.js';
import { EXIT, errorFormatOf, reportError, reportUsage, usage } from './errors.js';
import { processIO, type IO } from './io.js';
import { action, globalsOf, type CliDeps } from './action.js';
import { registerCommands } from './commands/index.js';
import { flagDescription, placeholder } from './help.js';
import { addDays, localDate } from '../domain/calendar.js';

declare const __MPAY_VERSION__: string | undefined;

export function version(): string {
  if (typeof __MPAY_VERSION__ !== 'undefined') return __MPAY_VERSION__;
  return '0.0.0-dev';
}

function groupFor(root: Command, words: string[]): Command {
  let cur = root;
  for (const [i, w] of words.entries()) {
    let next = cur.commands.find((c) => c.name() === w);
    if (!next) {
      next = cur.command(w).description(presentation.groups[words.slice(0, i + 1).join(' ')] ?? `${w} commands`);
      next.helpCommand(false);
    }
    cur = next;
  }
  return cur;
}

/** An example's `{today+N}`: the São Paulo day N days from today (a due date that is never past). */
const datedExample = (example: string): string =>
  example.replace(/\{today\+(\d+)\}/g, (_, days: string) => addDays(localDate(new Date()), Number(days)));

function addOperation(root: Command, spec: OperationSpec, deps: CliDeps): void {
  const words = spec.command;
  const parent = groupFor(root, words.slice(0, -1));
  const cmd = parent.command(words[words.length - 1]!).description(spec.summary + (spec.sandbox ? ' (sandbox only)' : ''));
  for (const p of spec.params) cmd.argument(`<${p}>`);
  if (spec.hasBody) cmd.option('--input <file>', 'JSON body from a file, or - for stdin (flags win over it)');
  if (spec.multipart) cmd.option('--file <path>', 'the file to upload (PDF, PNG or JPEG; required)');
  // a boolean flag given both ways (--capture … --no-capture) contradicts itself: refused, not the last one taken
  const given = new Map<string, Set<string>>();
  for (const f of spec.flags) {
    const o = new Option(`--${f.flag} ${placeholder(f)}`, flagDescription(f));
    if (f.type === 'string[]') o.argParser((v: string, prev: string[] = []) => [...prev, v]);
    cmd.addOption(o);
    // a boolean field has its negation too: --no-capture is --capture false
    if (f.type === 'boolean') {
      cmd.addOption(new Option(`--no-${f.flag}`, `the same as --${f.flag} false`));
      for (const name of [f.flag, `no-${f.flag}`]) {
        cmd.on(`option:${name}`, () => given.set(f.flag, (given.get(f.flag) ?? new Set()).add(name)));
      }
    }
  }
  if (spec.raw) cmd.option('--out <file>', 'write the bytes to this file instead of stdout');
  if (spec.waitWith) {
    cmd.option('--wait', 'wait until the record leaves pending (exit 1 if it ends failed)');
    cmd.option('--timeout <seconds>', 'how long --wait waits, in seconds (default 300)');
  }
  if (spec.pagination) {
    const p = spec.pagination;
    const what = spec.pages ?? 'records';
    cmd.option('--page <n>', `page number (1 to ${p.pageMax}; default 1)`);
    cmd.option('--per-page <n>', `${what} per page (1 to ${p.perPageMax}; default ${p.perPageDefault}, ${p.perPageMax} with --all)`);
    cmd.option('--all', `fetch every page${spec.pages ? ` of ${spec.pages}` : ''} (a progress line on a terminal)`);
    cmd.option('--limit <n>', `fetch pages until N ${what}, and print N at most`);
  }
  const examples = [spec.example, ...(spec.moreExamples ?? [])].map(datedExample);
  cmd.addHelpText('after', `\n${examples.length > 1 ? 'Examples' : 'Example'}:\n${examples.map((x) => `  $ ${x}\n`).join('\n')}`);
  cmd.action(
    action(deps, async (...args: unknown[]) => {
      const c = args[args.length - 1] as Command;
      for (const [flag, ways] of given) if (ways.size > 1) throw usage(`--${flag} and --no-${flag} contradict each other: give one`);
      const positional = args.slice(0, spec.params.length) as string[];
      const { runOperation } = await import('./runOperation.js');
      return runOperation({ spec, args: positional, opts: c.opts(), globals: globalsOf(c), io: deps.io, openTarget: deps.openTarget });
    }),
  );
}

/**
 * The program: global options, the generated operations and the hand-written commands. Given
 * the command line, a line whose command is a group of generated operations (`keys list`) gets
 * that group's operations only — building all of them is most of what commander costs at
 * start-up (bench/startup); help, completion and unknown words get the whole tree.
 */
export function buildProgram(deps: CliDeps, argv?: readonly string[]): Command {
  const program = new Command('mpay');
  program
    .description('Command-line tool and embedded sandbox for the merchant payments API')
    .version(version(), '-V, --version', 'print the version')
    .addOption(new Option('-o, --output <format>', 'output format (default: table on a terminal, json when piped)').choices(['table', 'json', 'jsonl']))
    .option('--json', 'same as -o json')
    .option('--profile <name>', 'profile to use (env MPAY_PROFILE)')
    .option('--base-url <url>', 'talk to a remote deployment instead of the embedded sandbox (env MPAY_BASE_URL)')
    .option('--data-dir <dir>', 'data directory of the embedded sandbox (env MPAY_DATA_DIR)')
    .addOption(new Option('--color <when>', 'colored output').choices(['auto', 'always', 'never']).default('auto'))
    .option('-q, --quiet', 'print nothing but data')
    .option('-v, --verbose', 'trace HTTP exchanges on stderr (credentials redacted)')
    .option('--idempotency-key <key>', 'Idempotency-Key header for a POST')
    .option('--yes', 'do not ask for confirmation')
    .option('--jq <expr>', 'filter the JSON output with a jq expression (real jq; strings print raw), e.g. --jq \'.[].id\'')
    .showSuggestionAfterError(true)
    // every leaf's help lists the global flags too
    .configureHelp({ showGlobalOptions: true })
    .configureOutput({
      writeOut: (s) => deps.io.out(s),
      writeErr: (s) => deps.io.err(s),
      outputError: (s) => reportUsage(deps.io, deps.errorFormat, s),
    })
    .addHelpText(
      'after',
      `
Examples:
  $ mpay keys list                       # embedded sandbox, created on first use
  $ mpay tokens create --card.number 4111111111111111 --card.holder-name "Ana Souza" \\
      --card.expiration-month 12 --card.expiration-year 2030 --card.cvv 123
  $ mpay server start --port 4010        # serve the API over HTTP
  $ mpay --base-url http://127.0.0.1:4010 keys list -o json
  $ mpay api GET /v1/merchant

Exit codes: 0 ok, 1 refused by the service, 2 usage, 3 authentication, 4 not found, 5 unreachable.
`,
    );
  program.helpCommand('help [command]', 'show help for a command');
  const word = argv && firstWord(program, argv);
  const only = word !== undefined && words.includes(word) ? word : undefined;
  // a bad --jq expression is a usage error before the command sends or registers anything
  program.hook('preAction', async (_program, command) => {
    const expr = (command.optsWithGlobals() as { jq?: string }).jq;
    if (expr !== undefined) await (await import('./output.js')).checkJq(expr);
  });
  for (const s of only === undefined ? allSpecs() : groupSpecs(only)) addOperation(program, s, deps);
  registerCommands(program, deps, only);
  // commander errors (unknown option, missing argument…) are usage errors: exit 2
  const override = (cmd: Command) => {
    cmd.exitOverride();
    cmd.commands.forEach(override);
  };
  override(program);
  return program;
}

/** The program's options that take a value (their value is skipped when walking a command line's words). */
const valueOptions = (program: Command): Set<string> =>
  new Set(program.options.filter((o) => o.required || o.optional).flatMap((o) => [o.long, o.short].filter((f): f is string => !!f)));

/** The first word of a command line that is not an option or an option's value (the command), if any. */
function firstWord(program: Command, argv: readonly string[]): string | undefined {
  const valued = valueOptions(program);
  for (let i = 0; i < argv.length; i++) {
    const w = argv[i]!;
    if (w === '--') return argv[i + 1];
    if (!w.startsWith('-')) return w;
    if (valued.has(w)) i++;
  }
  return undefined;
}

/** Edit distance (Levenshtein) between two short words, for "did you mean". */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}

/**
 * Help as people ask for it: `mpay help charges create` is `mpay charges create --help`. A verb
 * that does not exist (`mpay links delete`, with or without --help) is an unknown command,
 * named with its group, with the nearest verbs or the group's verbs: returned as `unknown`.
 */
export function helpArgs(program: Command, argv: string[]): { args: string[]; unknown?: string } {
  const args = argv[0] === 'help' ? [...argv.slice(1), '--help'] : argv;
  const valued = valueOptions(program);
  let cur = program;
  const path: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    if (w === '--') break;
    if (w.startsWith('-')) {
      if (valued.has(w)) i++;
      continue;
    }
    const verbs = cur.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden && c.name() !== 'help');
    if (!verbs.length) break;
    const next = cur.commands.find((c) => c.name() === w || c.aliases().includes(w));
    if (!next) {
      if (cur === program && w === 'help') break;
      const names = verbs.map((c) => c.name());
      const near = names.filter((n) => distance(n, w) <= Math.max(2, Math.floor(w.length / 3)) || n.startsWith(w) || w.startsWith(n));
      const where = ['mpay', ...path].join(' ');
      // a verb of a group typed without its group (`mpay onboard`): name the group's command
      const owners = cur === program ? verbs.filter((g) => g.commands.some((c) => c.name() === w || c.aliases().includes(w))).map((g) => `mpay ${g.name()} ${w}`) : [];
      const hint = owners.length
        ? `(Did you mean ${owners.join(' or ')}?)`
        : near.length
          ? `(Did you mean ${near.join(' or ')}?)`
          : `(Did you mean one of: ${names.join(', ')}? See \`${where} --help\`.)`;
      return { args, unknown: `error: unknown command '${w}' for '${where}'\n${hint}\n` };
    }
    path.push(next.name());
    cur = next;
  }
  return { args };
}

/** Runs the CLI on argv (without node and script) and returns the exit code. */
export async function main(argv: string[], io: IO = processIO(), openTarget?: CliDeps['openTarget']): Promise<number> {
  const deps: CliDeps = { io, exitCode: EXIT.ok, openTarget, errorFormat: errorFormatOf(argv) };
  const program = buildProgram(deps, argv);
  const h = helpArgs(program, argv);
  if (h.unknown) {
    reportUsage(io, deps.errorFormat, h.unknown);
    return EXIT.usage;
  }
  argv = h.args;
  if (argv.length === 0) {
    program.outputHelp();
    return EXIT.ok;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return EXIT.ok;
      if (e.code === 'commander.executeSubCommandAsync') return EXIT.ok;
      // a group without its verb: commander printed the group's help
      if (e.code === 'commander.missingMandatoryOptionValue' || e.code === 'commander.unknownCommand' || e.code === 'commander.unknownOption') return EXIT.usage;
      return e.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    return reportError(io, deps.errorFormat, e);
  }
  return deps.exitCode;
}
