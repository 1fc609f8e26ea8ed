import { Command, CommanderError, Option } from 'commander';
import specsJson from './generated/spec.json' with { type: 'json' };
import type { OperationSpec } from './spec/types.js';
import { EXIT, errorFormatOf, reportError, reportUsage, } from './errors.js';
import { processIO, type IO } from './io.js';
import { action, globalsOf, type CliDeps } from './action.js';
import { registerCommands } from './commands/index.js';

declare const __MPAY_VERSION__: string | undefined;

export const specs = specsJson as OperationSpec[];

export function version(): string {
  if (typeof __MPAY_VERSION__ !== 'undefined') return __MPAY_VERSION__;
  return '0.0.0-dev';
}

function groupFor(root: Command, words: string[]): Command {
  let cur = root;
  for (const w of words) {
    let next = cur.commands.find((c) => c.name() === w);
    if (!next) {
      next = cur.command(w).description(`${w} commands`);
      next.helpCommand(false);
    }
    cur = next;
  }
  return cur;
}

function addOperation(root: Command, spec: OperationSpec, deps: CliDeps): void {
  const words = spec.command;
  const parent = groupFor(root, words.slice(0, -1));
  const cmd = parent.command(words[words.length - 1]!).description(spec.summary + (spec.sandbox ? ' (sandbox only)' : ''));
  for (const p of spec.params) cmd.argument(`<${p}>`);
  if (spec.hasBody) cmd.option('--input <file>', 'JSON body from a file, or - for stdin (flags win over it)');
  if (spec.multipart) cmd.option('--file <path>', 'the file to upload');
  for (const f of spec.flags) {
    const flag = f.type === 'boolean' ? `--${f.flag} [bool]` : `--${f.flag} <${f.type === 'json' ? 'json' : 'value'}>`;
    const desc = [
      f.description ?? '',
      f.required ? '(required)' : '',
      f.choices ? `one of: ${f.choices.join(', ')}` : '',
      f.type === 'string[]' ? '(repeatable or comma-separated)' : '',
      f.type === 'json' ? '(JSON)' : '',
    ]
      .filter(Boolean)
      .join(' ');
    const o = new Option(flag, desc);
    if (f.type === 'string[]') o.argParser((v: string, prev: string[] = []) => [...prev, v]);
    cmd.addOption(o);
  }
  if (spec.raw) cmd.option('--out <file>', 'write the bytes to this file instead of stdout');
  if (spec.waitWith) {
    cmd.option('--wait', 'wait until the record leaves pending (exit 1 if it ends failed)');
    cmd.option('--timeout <seconds>', 'how long --wait waits', '300');
  }
  if (spec.list) {
    cmd.option('--page <n>', 'page number (from 1)');
    cmd.option('--per-page <n>', 'records per page (1-100, default 20)');
    cmd.option('--all', 'walk every page');
  }
  cmd.addHelpText('after', `\nExample:\n  $ ${spec.example}\n`);
  cmd.action(
    action(deps, async (...args: unknown[]) => {
      const c = args[args.length - 1] as Command;
      const positional = args.slice(0, spec.params.length) as string[];
      const { runOperation } = await import('./runOperation.js');
      return runOperation({ spec, args: positional, opts: c.opts(), globals: globalsOf(c), io: deps.io, openTarget: deps.openTarget });
    }),
  );
}

export function buildProgram(deps: CliDeps): Command {
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
    .showSuggestionAfterError(true)
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
  for (const s of specs) addOperation(program, s, deps);
  registerCommands(program, deps);
  // commander errors (unknown option, missing argument…) are usage errors: exit 2
  const override = (cmd: Command) => {
    cmd.exitOverride();
    cmd.commands.forEach(override);
  };
  override(program);
  return program;
}

/** Runs the CLI on argv (without node and script) and returns the exit code. */
export async function main(argv: string[], io: IO = processIO(), openTarget?: CliDeps['openTarget']): Promise<number> {
  const deps: CliDeps = { io, exitCode: EXIT.ok, openTarget, errorFormat: errorFormatOf(argv) };
  const program = buildProgram(deps);
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
    reportError(io, deps.errorFormat, e);
    return EXIT.refused;
  }
  return deps.exitCode;
}
