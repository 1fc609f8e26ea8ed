/** `mpay api METHOD PATH`: its flags (typed) and their parsing; the work is in run.ts. */
import { Option, type Command } from 'commander';
import { action, globalsOf, type CliDeps } from '../../action.js';
import { runEnv } from '../shape.js';

export interface ApiOptions {
  method: string;
  path: string;
  input?: string;
  /** -f/--raw-field: string values */
  rawField?: string[];
  /** -F/--field: typed values (gh's magic conversion) */
  field?: string[];
  auth: 'secret' | 'public' | 'none';
}

export function register(program: Command, deps: CliDeps): void {
  program
    .command('api')
    .description('send a raw request with the profile credentials and print the whole envelope')
    .argument('<method>', 'GET, POST, PUT, PATCH or DELETE')
    .argument('<path>', 'path with optional query, e.g. /v1/charges?status=captured')
    .option('--input <file>', 'JSON body from a file, or - for stdin')
    .option('-f, --raw-field <key=value>', 'a string field (body for POST/PUT/PATCH, query otherwise); repeatable', (v: string, p: string[] = []) => [...p, v])
    .option('-F, --field <key=value>', 'a typed field: true, false, null and integers as JSON, @FILE (@- stdin) for a file\'s content; repeatable', (v: string, p: string[] = []) => [...p, v])
    .addOption(new Option('--auth <kind>', 'credentials to send').choices(['secret', 'public', 'none']).default('secret'))
    .addHelpText('after', '\nFields follow gh api: -f sends a string, -F a typed value; key[sub]=v nests, key[]=v makes a list.\n\nExamples:\n  $ mpay api GET /v1/merchant\n  $ mpay api POST /v1/api-keys -f name=ci -f \'allowed_ips[]=10.0.0.0/8\'\n  $ mpay api POST /v1/sandbox/clock/advance -F days=30\n  $ mpay api GET /v1/api-keys -F per_page=5\n')
    .action(
      action(deps, async (method: string, path: string, opts: Omit<ApiOptions, 'method' | 'path'>, cmd: Command) =>
        (await import('./run.js')).run({ ...opts, method, path }, await runEnv(globalsOf(cmd), deps.io, deps.openTarget)),
      ),
    );
}
