import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { OperationId } from '../sdk/client.js';
import type { FlagSpec, OperationSpec } from './spec/types.js';
import { CliError, EXIT, jsonErrors, reportError, usage } from './errors.js';
import { IRREVERSIBLE, confirmOrCancel, mayConfirm, noteSecretsShownOnce } from './confirm.js';
import type { IO } from './io.js';
import { painter, printData, resolveFormat, type Format, type PrintOptions } from './output.js';
import { openTarget as realOpenTarget, type Globals, type Target } from './target.js';
import { embeddedUrlNotes } from './embeddedUrls.js';
import { checkHttpUrl, listItems } from './checks.js';

export interface Invocation {
  spec: OperationSpec;
  args: string[];
  opts: Record<string, unknown>;
  globals: Globals;
  io: IO;
  openTarget?: (g: Globals, io: IO) => Promise<Target>;
}

/** commander's attribute name for a flag ("customer.tax-id" -> "customer.taxId") */
export const attrName = (flag: string) => flag.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** The contract's range for a number flag: a usage error naming the flag, its range and unit. */
function inRange(f: FlagSpec, n: number, raw: string): number {
  const unit = f.unit ? ` (${f.unit})` : '';
  const { minimum: min, maximum: max } = f;
  if (min !== undefined && max !== undefined && (n < min || n > max) && !f.unit) throw usage(`--${f.flag} must be from ${min} to ${max}, got '${raw}'`);
  if (min !== undefined && n < min) throw usage(`--${f.flag} must be at least ${min}${unit}, got '${raw}'`);
  if (max !== undefined && n > max) throw usage(`--${f.flag} must be at most ${max}${unit}, got '${raw}'`);
  return n;
}

const getPath = (obj: Record<string, unknown> | undefined, path: string[]): unknown =>
  path.reduce<unknown>((cur, k) => (cur && typeof cur === 'object' ? (cur as Record<string, unknown>)[k] : undefined), obj);

function parseValue(f: FlagSpec, raw: unknown): unknown {
  const name = `--${f.flag}`;
  if (f.type === 'string[]') {
    return listItems(name, (Array.isArray(raw) ? raw : [raw]).map(String), f.choices, f.minItems);
  }
  const v = Array.isArray(raw) ? raw[raw.length - 1] : raw;
  if (f.nullable && v === 'null') return null;
  if (f.type === 'boolean') {
    if (v === true || v === undefined) return true;
    const s = String(v).toLowerCase();
    if (['true', 'yes', '1'].includes(s)) return true;
    if (['false', 'no', '0'].includes(s)) return false;
    throw usage(`${name} must be true or false, got '${v}'`);
  }
  const s = String(v);
  if (f.type === 'integer') {
    // a field that is a word in some cases and a number in others (a card's interest mode, a boleto's interest rate)
    if (f.choices?.includes(s)) return s;
    if (f.choices && !/^-?\d+$/.test(s)) throw usage(`${name} must be ${f.choices.join(', ')} or a whole number${f.unit ? ` of ${f.unit}` : ''}, got '${s}'`);
    if (!/^-?\d+$/.test(s)) throw usage(`${name} must be a whole number${f.unit ? ` of ${f.unit}` : ''}, got '${s}'`);
    return inRange(f, Number(s), s);
  }
  if (f.type === 'number') {
    if (!/^-?\d+(\.\d+)?$/.test(s)) throw usage(`${name} must be a number, got '${s}'`);
    return inRange(f, Number(s), s);
  }
  if (f.type === 'string') {
    const len = [...s.trim()].length;
    // blanks are empty: the service trims a text before it counts it, and says so in these words
    if (f.minLength !== undefined && len === 0 && f.minLength > 0) throw usage(`${name} must not be empty, got '${s}'`);
    if (f.minLength !== undefined && len < f.minLength) throw usage(`${name} must be at least ${f.minLength} character${f.minLength === 1 ? '' : 's'}, got '${s}'`);
    if (f.maxLength !== undefined && [...s].length > f.maxLength) throw usage(`${name} must be at most ${f.maxLength} characters, got ${[...s].length}`);
    if (f.format === 'url') checkHttpUrl(name, s.trim());
  }
  if (f.type === 'json') {
    try {
      return JSON.parse(s);
    } catch {
      throw usage(`${name} takes JSON, e.g. ${name} '[{"key":"value"}]'; got '${s}'`);
    }
  }
  if (f.choices && !f.choices.includes(s)) throw usage(`${name} must be one of ${f.choices.join(', ')}, got '${s}'`);
  return s;
}

function setPath(obj: Record<string, unknown>, path: string[], value: unknown): void {
  let cur = obj;
  for (const k of path.slice(0, -1)) {
    const next = cur[k];
    if (!next || typeof next !== 'object' || Array.isArray(next)) cur[k] = {};
    cur = cur[k] as Record<string, unknown>;
  }
  cur[path[path.length - 1]!] = value;
}

async function readInput(src: string, io: IO): Promise<Record<string, unknown>> {
  let text: string;
  if (src === '-') {
    text = await io.readStdin();
  } else {
    try {
      text = readFileSync(resolve(io.cwd, src), 'utf8');
    } catch (e) {
      throw usage(`--input: cannot read ${src}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  }
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw usage(`--input: ${src === '-' ? 'stdin' : src} is not valid JSON (${(e as Error).message})`);
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw usage(`--input: ${src === '-' ? 'stdin' : src} must hold a JSON object`);
  return v as Record<string, unknown>;
}

export interface BuiltRequest {
  params: Record<string, string>;
  query: Record<string, string | number | boolean>;
  body?: Record<string, unknown>;
}

/** Flags, --input and positional ids → the request. Flags win over the file. */
export async function buildRequest(inv: Invocation): Promise<BuiltRequest> {
  const { spec, opts, io } = inv;
  const params: Record<string, string> = {};
  spec.params.forEach((p, i) => {
    const v = inv.args[i];
    if (!v) throw usage(`missing <${p}>; usage: mpay ${spec.command.join(' ')} ${spec.params.map((x) => `<${x}>`).join(' ')}`);
    params[p] = v;
  });
  let body: Record<string, unknown> | undefined;
  if (spec.hasBody) body = typeof opts.input === 'string' ? await readInput(opts.input, io) : {};
  const query: Record<string, string | number | boolean> = {};
  for (const f of spec.flags) {
    // A field named like a global option (withdrawals' idempotency_key and --idempotency-key)
    // takes the global's value: commander hands that flag to the program, and it means the same.
    const raw = opts[attrName(f.flag)] ?? (inv.globals as Record<string, unknown>)[attrName(f.flag)];
    if (raw === undefined) continue;
    const value = parseValue(f, raw);
    if (f.in === 'body') setPath(body!, f.path, value);
    else query[f.path.join('.')] = Array.isArray(value) ? value.join(',') : (value as string | number | boolean);
  }
  if (spec.pagination) {
    const p = spec.pagination;
    if (opts.page !== undefined) query.page = parseValue({ flag: 'page', path: ['page'], in: 'query', type: 'integer', required: false, minimum: 1, maximum: p?.pageMax }, opts.page) as number;
    if (opts.perPage !== undefined) query.per_page = parseValue({ flag: 'per-page', path: ['per_page'], in: 'query', type: 'integer', required: false, minimum: 1, maximum: p?.perPageMax }, opts.perPage) as number;
  }
  // required flags, before any request (a field may come from --input instead)
  const missing = spec.flags.filter((f) => f.required && (f.in === 'body' ? getPath(body, f.path) : query[f.path.join('.')]) === undefined).map((f) => `--${f.flag}`);
  if (missing.length) throw usage(`missing required flag${missing.length > 1 ? 's' : ''}: ${missing.join(', ')} (see \`mpay ${spec.command.join(' ')} --help\`)`);
  // a PATCH changes what it is given: the contract refuses one with nothing in it
  if (spec.method === 'PATCH' && body && !Object.keys(body).length) {
    throw usage(`nothing to change: give at least one field to change (see \`mpay ${spec.command.join(' ')} --help\`) or --input FILE`);
  }
  return { params, query, body };
}

/** The irreversible verbs: the contract's DELETEs, and those of confirm.ts's table (refund, withdrawal). */
const irreversible = (spec: OperationSpec) => spec.method === 'DELETE' || spec.id in IRREVERSIBLE;

async function confirmIrreversible(inv: Invocation, target: Target, req: BuiltRequest): Promise<void> {
  const command = `${inv.spec.command.join(' ')} ${inv.args.join(' ')}`.trim();
  const describe = IRREVERSIBLE[inv.spec.id];
  await confirmOrCancel(inv.io, inv.globals.yes, command, async (t) =>
    describe ? describe(target.client, req.params, req.body, t) : { question: t.confirm.really(command), facts: [] },
  );
}

/** From this size an upload shows the onboarding wizard's progress bar (the file's bytes) on stderr. */
const PROGRESS_FROM_BYTES = 1024 * 1024;

async function multipartBody(inv: Invocation): Promise<{ bytes: Uint8Array; contentType: string; onProgress?: (sent: number, total: number) => void }> {
  const file = inv.opts.file;
  if (typeof file !== 'string') throw usage('--file PATH is required');
  const path = resolve(inv.io.cwd, file);
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    throw usage(`--file: cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const name = path.split(/[\\/]/).pop()!;
  // an upload's modules (the file kinds, the form) load for an upload only
  const { fileForm, fileProgress } = await import('./multipart.js');
  const form = await fileForm(bytes, name);
  if (bytes.byteLength < PROGRESS_FROM_BYTES || inv.globals.quiet) return form;
  const { progressBar, formatBytes } = await import('./onboard/localFile.js');
  const bar = progressBar(inv.io, name, await painter(inv.globals, inv.io));
  const onProgress = fileProgress(form, (sent, total) => {
    bar.update(sent, total);
    if (sent === total) bar.done(`uploaded ${name} (${formatBytes(total)})`);
  });
  return { bytes: form.bytes, contentType: form.contentType, onProgress };
}

function parseLimit(v: unknown): number {
  const s = String(v);
  if (!/^\d+$/.test(s) || Number(s) < 1) throw usage(`--limit must be a whole number from 1, got '${s}'`);
  return Number(s);
}

/** Runs one operation of the contract and prints its result. Returns the exit code. */
export async function runOperation(inv: Invocation): Promise<number> {
  const { spec, io, globals: g } = inv;
  let target: Target | undefined;
  let built: BuiltRequest | undefined;
  try {
    const req = await buildRequest(inv);
    built = req;
    if (irreversible(spec)) mayConfirm(io, g.yes, `${spec.command.join(' ')} ${inv.args.join(' ')}`.trim());
    const rawBody = spec.multipart ? await multipartBody(inv) : undefined;
    target = await (inv.openTarget ?? realOpenTarget)(g, io);
    if (irreversible(spec)) await confirmIrreversible(inv, target, req);
    const format = resolveFormat(g, io);
    const paint = await painter(g, io);
    // how the operation's records print: its columns, their importance, money and values to copy
    const view: PrintOptions = { columns: spec.columns, importance: spec.importance, money: spec.money, copy: spec.copy, format, paint, view: spec.id };
    const call = (query: Record<string, string | number | boolean>) =>
      target!.client.callById(spec.id, {
        params: req.params,
        query,
        body: req.body,
        rawBody,
        idempotencyKey: g.idempotencyKey,
      });
    const limit = spec.pagination && inv.opts.limit !== undefined ? parseLimit(inv.opts.limit) : undefined;
    if (spec.pagination && (inv.opts.all || limit !== undefined)) {
      const progress = io.stderrTTY && !g.quiet;
      const what = spec.pages ?? 'records';
      const all: unknown[] = [];
      let record: Record<string, unknown> | undefined;
      let page = 1;
      const perPage = req.query.per_page ?? Math.min(limit ?? Infinity, spec.pagination.perPageMax);
      let printed = 0;
      for (;;) {
        const r = await call({ ...req.query, page, per_page: perPage });
        // a list's page is its data; a paged record's (a statement) is its `pages` field, the rest the same on every page
        if (spec.pages) record ??= r.data as Record<string, unknown>;
        let items = (spec.pages ? (r.data as Record<string, unknown>)[spec.pages] : r.data) as unknown[];
        if (limit !== undefined) items = items.slice(0, limit - printed);
        printed += items.length;
        if (format === 'jsonl' && !spec.pages) for (const it of items) io.out(JSON.stringify(it) + '\n');
        else all.push(...items);
        const total = r.pagination?.totalPages ?? 1;
        if (progress) io.err(`\rpage ${page}/${total} (${r.pagination?.total ?? items.length} ${what})`);
        if (page >= total || (limit !== undefined && printed >= limit)) break;
        page++;
      }
      if (progress) io.err('\n');
      const data = record ? { ...record, [spec.pages!]: all } : all;
      if (format !== 'jsonl' || record) await printData(io, data, view);
      noteEmbeddedUrls(inv, target, format, data);
      return EXIT.ok;
    }
    if (spec.raw) return await download(inv, target, req.params);
    const r = await call(req.query);
    if (spec.waitWith && inv.opts.wait) return await waitFor(inv, target, spec.waitWith, r.data as Record<string, unknown>, view);
    await printData(io, r.data, view);
    noteSecretsShownOnce(io, g.quiet, r.data);
    noteEmbeddedUrls(inv, target, format, r.data);
    if (spec.pagination && r.pagination && format === 'table' && !g.quiet && r.pagination.totalPages > 1) {
      io.err(`page ${r.pagination.page} of ${r.pagination.totalPages} (${r.pagination.total} ${spec.pages ?? 'records'}); --page N or --all for more\n`);
    }
    return EXIT.ok;
  } catch (e) {
    const code = reportError(io, g, e);
    const hint = built && !jsonErrors(g) ? defaultHint(spec, built.body, e) : undefined;
    if (hint) io.err(`  hint: ${hint}\n`);
    return code;
  } finally {
    await target?.close();
  }
}

/** Under a table of the embedded sandbox, how to serve the links it shows (JSON output is left as it is). */
function noteEmbeddedUrls(inv: Invocation, target: Target, format: Format, data: unknown): void {
  if (target.kind !== 'embedded' || format !== 'table' || inv.globals.quiet) return;
  for (const line of embeddedUrlNotes(data)) inv.io.err(line + '\n');
}

/**
 * A refusal that names a body field the command left to its contract default (`--entity-type`,
 * pj by default, for a CPF): says the flag was not given and what the default is, with the other
 * value when the service's message names it ("use entity_type pf").
 */
export function defaultHint(spec: OperationSpec, body: Record<string, unknown> | undefined, err: unknown): string | undefined {
  const e = err as { status?: unknown; message?: string; details?: { field: string; message: string }[] };
  if (typeof e?.status !== 'number') return undefined;
  const text = [e.message ?? '', ...(e.details ?? []).map((d) => `${d.field}: ${d.message}`)].join('\n');
  for (const f of spec.flags) {
    if (f.in !== 'body' || f.default === undefined || getPath(body, f.path) !== undefined) continue;
    const field = f.path.join('.');
    if (!new RegExp(`\\b${field.replace(/\./g, '\\.')}\\b`).test(text)) continue;
    const other = (f.choices ?? []).find((c) => c !== String(f.default) && text.includes(`${field} ${c}`));
    return `--${f.flag} was not given: ${String(f.default)} is the default${other ? `; try --${f.flag} ${other}` : f.choices ? ` (one of ${f.choices.join(', ')})` : ''}`;
  }
  return undefined;
}

async function download(inv: Invocation, target: Target, params: Record<string, string>): Promise<number> {
  const r = await target.client.download(inv.spec.id, params);
  const out = inv.opts.out;
  if (typeof out === 'string') {
    const path = resolve(inv.io.cwd, out);
    try {
      writeFileSync(path, r.bytes);
    } catch (e) {
      throw new CliError(`--out: cannot write ${out}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, EXIT.usage);
    }
    if (!inv.globals.quiet) inv.io.err(`Saved ${r.bytes.byteLength} bytes (${r.contentType ?? 'unknown type'}) to ${out}\n`);
  } else {
    if (inv.io.stdoutTTY) throw usage('refusing to print a binary file to the terminal; use --out FILE or redirect stdout');
    inv.io.out(Buffer.from(r.bytes) as unknown as string);
  }
  return EXIT.ok;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** --wait: polls the record until its status leaves pending; a failed record exits 1. */
async function waitFor(inv: Invocation, target: Target, waitWith: OperationId, first: Record<string, unknown>, o: PrintOptions): Promise<number> {
  const { io, globals: g } = inv;
  const timeoutS = Number(inv.opts.timeout ?? 300);
  if (!Number.isFinite(timeoutS) || timeoutS <= 0) throw usage(`--timeout must be a positive number of seconds, got '${inv.opts.timeout}'`);
  const deadline = Date.now() + timeoutS * 1000;
  let rec = first;
  let shown = false;
  while (rec.status === 'pending') {
    if (Date.now() > deadline) {
      await printData(io, rec, o);
      throw new CliError(`still pending after ${timeoutS} s (id ${rec.id})`, EXIT.refused);
    }
    if (!shown && !g.quiet) {
      io.err(`waiting for ${String(rec.id)} to leave pending${rec.payment_method === 'pix' ? ' (pay it with `mpay sandbox pay ' + String(rec.id) + '` in the sandbox)' : ''}…\n`);
      shown = true;
    }
    await sleep(500);
    rec = (await target.client.callById(waitWith, { params: { id: String(rec.id) } })).data as Record<string, unknown>;
  }
  await printData(io, rec, o);
  if (rec.status === 'failed') {
    return reportError(io, g, new CliError(`${String(rec.id)} ended failed${rec.failure_reason ? `: ${String(rec.failure_reason)}` : ''}`, EXIT.refused));
  }
  return EXIT.ok;
}
