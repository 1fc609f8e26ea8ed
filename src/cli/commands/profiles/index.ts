/** `mpay profiles list|show|add|use|remove`: flags (typed) and their parsing; the work is in run.ts. */
import { type Command } from 'commander';
import { action, globalsOf, type CliDeps } from '../../action.js';
import { group, runEnv } from '../shape.js';

export interface ProfilesAddOptions {
  name: string;
  publicKey?: string;
  profileDataDir?: string;
  /** false with --no-verify: save without asking the target */
  verify?: boolean;
  /** --default: make it the active profile */
  default?: boolean;
}

export function register(program: Command, deps: CliDeps): void {
  const profiles = group(program, 'profiles', 'named targets and credentials');
  profiles
    .command('list')
    .description('list profiles')
    .addHelpText('after', '\nExample:\n  $ mpay profiles list\n')
    .action(action(deps, async (_o: unknown, cmd: Command) => (await import('./run.js')).list({}, await runEnv(globalsOf(cmd), deps.io, deps.openTarget))));
  profiles
    .command('show')
    .argument('[name]', 'profile name (default: the active one)')
    .description('show a profile, secrets masked')
    .addHelpText('after', '\nExample:\n  $ mpay profiles show prod\n')
    .action(action(deps, async (name: string | undefined, _o: unknown, cmd: Command) => (await import('./run.js')).show({ name }, await runEnv(globalsOf(cmd), deps.io, deps.openTarget))));
  profiles
    .command('add')
    .argument('<name>', 'profile name')
    .description('add or replace a profile; the secret key is read from a prompt or from stdin, never from the command line')
    .option('--public-key <key>', 'public key (prompted for when omitted on a terminal)')
    .option('--profile-data-dir <dir>', 'data directory for an embedded profile')
    .option('--no-verify', 'save without checking the keys against the target (by default `GET /v1/merchant` must answer)')
    .option('--default', 'make it the active profile (asked on a terminal; automatic when no profile would be used otherwise)')
    .addHelpText(
      'after',
      '\nExamples:\n  $ mpay profiles add staging --base-url https://pay.staging.example --public-key pk_test_123\n  $ printf %s "$SECRET" | mpay profiles add ci --base-url http://127.0.0.1:4010 --public-key "$PK" --default\n  $ printf %s "$SECRET" | mpay profiles add later --base-url https://pay.example --public-key "$PK" --no-verify\n',
    )
    .action(
      action(deps, async (name: string, opts: Omit<ProfilesAddOptions, 'name'>, cmd: Command) => (await import('./run.js')).add({ ...opts, name }, await runEnv(globalsOf(cmd), deps.io, deps.openTarget))),
    );
  profiles
    .command('use')
    .argument('<name>', 'profile name')
    .description('make a profile the active one')
    .addHelpText('after', '\nExample:\n  $ mpay profiles use staging\n')
    .action(action(deps, async (name: string, _o: unknown, cmd: Command) => (await import('./run.js')).use({ name }, await runEnv(globalsOf(cmd), deps.io, deps.openTarget))));
  profiles
    .command('remove')
    .argument('<name>', 'profile name')
    .description('remove a profile (asks first; --yes when not on a terminal)')
    .addHelpText('after', '\nExample:\n  $ mpay profiles remove staging --yes\n')
    .action(action(deps, async (name: string, _o: unknown, cmd: Command) => (await import('./run.js')).remove({ name }, await runEnv(globalsOf(cmd), deps.io, deps.openTarget))));

}
