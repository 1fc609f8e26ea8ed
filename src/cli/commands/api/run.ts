import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CliDeps } from '../../action.js';
import { CliError, EXIT, exitCodeForStatus, usage } from '../../errors.js';
import { printJson, resolveFormat } from '../../output.js';
import { openTarget as realOpenTarget, type Globals } from '../../target.js';
import type { AuthMode } from '../../../sdk/client.js';
import type { RunEnv } from '../shape.js';
import { parseFields, queryPairs, typedAlternatives } from './fields.js';
import type { ApiOptions } from './index.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** For each -f field the service refused as a string, where -F would have sent the other type. */
function rawFieldHints(raw: readonly string[], body: unknown): string[] {
  const details = (body as { details?: { field?: unknown; message?: unknown }[] } | null)?.details;
  if (!Array.isArray(details)) return [];
  const typed = typedAlternatives(raw);
  const out: string[] = [];
  for (const d of details) {
    const alt = typeof d.field === 'string' ? typed.get(d.field) : undefined;
    if (alt && typeof d.message === 'string' && d.message.includes('got a string')) {
      out.push(`hint: -f/--raw-field sends ${d.field} as a string; -F ${alt.field} (--field) sends it as ${alt.as}, as with gh api`);
    }
  }
  return out;
}

/** `mpay api METHOD PATH`: a raw request; prints the whole envelope; exit code from the status. */
export async function apiCommand(g: Globals, methodArg: string, path: string, opts: Record<string, unknown>, deps: CliDeps): Promise<number> {
  const { io } = deps;
  const method = methodArg.toUpperCase();
  if (!METHODS.includes(method)) throw usage(`method must be one of ${METHODS.join(', ')}, got '${methodArg}'`);
  if (!path.startsWith('/')) throw usage(`path must start with /, e.g. /v1/merchant; got '${path}'`);
  const raw = (opts.rawField as string[] | undefined) ?? [];
  let stdinUsed = false;
  const readUserFile = async (name: string): Promise<string> => {
    if (name === '-') {
      if (stdinUsed) throw new Error('standard input can be read only once');
      stdinUsed = true;
      return io.readStdin();
    }
    return readFileSync(resolve(io.cwd, name), 'utf8');
  };
  const fields = await parseFields(raw, (opts.field as string[] | undefined) ?? [], readUserFile);
  const sendsBody = method === 'POST' || method === 'PUT' || method === 'PATCH';
  let body: Record<string, unknown> | undefined;
  if (typeof opts.input === 'string') {
    if (opts.input === '-' && stdinUsed) throw usage('--input - and a field @- cannot both read standard input');
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
  let fullPath = path;
  if (Object.keys(fields).length) {
    // fields win over the --input file (gh would put them in the query string; mpay's writes take none)
    if (sendsBody) body = { ...(body ?? {}), ...fields };
    else {
      const qs = new URLSearchParams(queryPairs(fields)).toString();
      fullPath += (path.includes('?') ? '&' : '?') + qs;
    }
  }
  if (body !== undefined && !sendsBody) throw usage(`${method} takes no body; use -f or -F for query parameters`);
  const target = await (deps.openTarget ?? realOpenTarget)(g, io, { keysOptional: opts.auth === 'none' });
  try {
    const r = await target.client.raw(method, fullPath, {
      body,
      auth: opts.auth as AuthMode,
      idempotencyKey: g.idempotencyKey,
    });
    const format = resolveFormat(g, io);
    if (typeof r.body === 'string') {
      // not JSON: printed as it came; there is nothing for --jq to filter
      if (typeof format === 'object') throw new CliError(`--jq: the answer is not JSON (HTTP ${r.status}, ${r.headers['content-type'] ?? 'no content type'})`, EXIT.refused);
      io.out(r.body + '\n');
    } else await printJson(io, r.body, format);
    if (!g.quiet && r.status === 400) for (const line of rawFieldHints(raw, r.body)) io.err(line + '\n');
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
