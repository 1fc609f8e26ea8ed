import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CliDeps } from '../../action.js';
import { exitCodeForStatus, usage } from '../../errors.js';
import { openTarget as realOpenTarget, type Globals } from '../../target.js';
import type { AuthMode } from '../../../sdk/client.js';
import type { RunEnv } from '../shape.js';
import type { ApiOptions } from './index.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

function splitField(raw: string, flag: string): [string, string] {
  const i = raw.indexOf('=');
  if (i <= 0) throw usage(`${flag} takes key=value, got '${raw}'`);
  return [raw.slice(0, i), raw.slice(i + 1)];
}

function typed(v: string): unknown {
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

/** `mpay api METHOD PATH`: a raw request; prints the whole envelope; exit code from the status. */
export async function apiCommand(g: Globals, methodArg: string, path: string, opts: Record<string, unknown>, deps: CliDeps): Promise<number> {
  const { io } = deps;
  const method = methodArg.toUpperCase();
  if (!METHODS.includes(method)) throw usage(`method must be one of ${METHODS.join(', ')}, got '${methodArg}'`);
  if (!path.startsWith('/')) throw usage(`path must start with /, e.g. /v1/merchant; got '${path}'`);
  const fields: Record<string, unknown> = {};
  for (const f of (opts.field as string[] | undefined) ?? []) {
    const [k, v] = splitField(f, '-f');
    fields[k] = v;
  }
  for (const f of (opts.typedField as string[] | undefined) ?? []) {
    const [k, v] = splitField(f, '-F');
    fields[k] = typed(v);
  }
  const sendsBody = method === 'POST' || method === 'PUT' || method === 'PATCH';
  let body: Record<string, unknown> | undefined;
  if (typeof opts.input === 'string') {
    const text = opts.input === '-' ? await io.readStdin() : (() => {
      try {
        return readFileSync(resolve(io.cwd, opts.input as string), 'utf8');
      } catch (e) {
        throw usage(`--input: cannot read ${opts.input}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      }
    })();
    try {
      body = JSON.parse(text);
    } catch (e) {
      throw usage(`--input is not valid JSON (${(e as Error).message})`);
    }
  }
  let query: Record<string, string> | undefined;
  if (Object.keys(fields).length) {
    if (sendsBody) body = { ...(body ?? {}), ...fields };
    else query = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, String(v)]));
  }
  if (body !== undefined && !sendsBody) throw usage(`${method} takes no body; use -f for query parameters`);
  const target = await (deps.openTarget ?? realOpenTarget)(g, io, { keysOptional: opts.auth === 'none' });
  try {
    const r = await target.client.raw(method, path, {
      body,
      query,
      auth: opts.auth as AuthMode,
      idempotencyKey: g.idempotencyKey,
    });
    io.out((typeof r.body === 'string' ? r.body : JSON.stringify(r.body, null, 2)) + '\n');
    return exitCodeForStatus(r.status);
  } finally {
    await target.close();
  }
}

/** The command's entry: method, path and flags, with the target opener and IO injected. */
export async function run(opts: ApiOptions, env: RunEnv): Promise<number> {
  const { method, path, ...flags } = opts;
  return apiCommand(env.globals, method, path, flags, { io: env.io, openTarget: env.openTarget, exitCode: 0 });
}
