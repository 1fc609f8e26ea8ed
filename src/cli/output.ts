import { toneOf } from '../domain/lifecycle.js';
import { formatBRL } from '../domain/money.js';
import { useColor, type IO } from './io.js';
import { usage } from './errors.js';
import type { Globals } from './target.js';

/** --jq: the JSON output filtered by a jq expression (wins over -o). */
export interface JqFormat {
  jq: string;
}

export type Format = 'table' | 'json' | 'jsonl' | JqFormat;

/** --jq wins, then -o, then --json; default: a table on a terminal, JSON when piped. */
export function resolveFormat(g: Globals, io: IO): Format {
  if (g.jq !== undefined) return { jq: g.jq };
  if (g.output) return g.output;
  if (g.json) return 'json';
  return io.stdoutTTY ? 'table' : 'json';
}

export interface Painter {
  green(s: string): string;
  yellow(s: string): string;
  red(s: string): string;
  dim(s: string): string;
  bold(s: string): string;
}

const plain: Painter = { green: (s) => s, yellow: (s) => s, red: (s) => s, dim: (s) => s, bold: (s) => s };

export async function painter(g: Globals, io: IO): Promise<Painter> {
  if (!useColor(g.color, io)) return plain;
  const { Chalk } = await import('chalk');
  const c = new Chalk({ level: 1 });
  return { green: c.green, yellow: c.yellow, red: c.red, dim: c.dim, bold: c.bold };
}

/** A status in the colour of its tone in the lifecycles (src/domain/lifecycle.ts). */
export function paintStatus(status: string, paint: Painter): string {
  const tone = toneOf(status);
  if (tone === 'good') return paint.green(status);
  if (tone === 'waiting') return paint.yellow(status);
  if (tone === 'bad') return paint.red(status);
  if (tone === 'aside') return paint.dim(status);
  return status;
}

function localTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

/**
 * A cell for people: money as R$ (the fields the contract tags as money: `money` of the
 * operation's spec), statuses colored, times local, objects compact.
 */
export function cell(key: string, v: unknown, paint: Painter, money: readonly string[] = []): string {
  if (v === null || v === undefined || v === '') return paint.dim('—');
  if (money.includes(key) && typeof v === 'number') return formatBRL(v);
  if (money.includes(key) && typeof v === 'string' && /^\d+$/.test(v)) return formatBRL(Number(v));
  if (key === 'status' && typeof v === 'string') return paintStatus(v, paint);
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'string' && (key.endsWith('_at') || key.endsWith('_date') || key === 'clock') && /^\d{4}-\d\d-\d\dT/.test(v)) return localTime(v);
  if (Array.isArray(v)) return v.every((x) => typeof x !== 'object') ? v.join(', ') : JSON.stringify(v);
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

export interface PrintOptions {
  columns?: readonly string[];
  /** fields that are money (integer cents): shown as R$ in tables */
  money?: readonly string[];
  format: Format;
  paint: Painter;
}

function pick(columns: readonly string[] | undefined, rows: Record<string, unknown>[]): string[] {
  if (columns?.length) return [...columns];
  const first = rows[0] ?? {};
  return Object.keys(first).filter((k) => typeof first[k] !== 'object' || first[k] === null).slice(0, 8);
}

/** Prints a record or a list in the chosen format (data only, to stdout). */
export async function printData(io: IO, data: unknown, o: PrintOptions): Promise<void> {
  if (typeof o.format === 'object') {
    io.out(await jq(data, o.format.jq));
    return;
  }
  if (o.format === 'json') {
    io.out(JSON.stringify(data, null, 2) + '\n');
    return;
  }
  if (o.format === 'jsonl') {
    for (const r of Array.isArray(data) ? data : [data]) io.out(JSON.stringify(r) + '\n');
    return;
  }
  const { default: Table } = await import('cli-table3');
  if (Array.isArray(data)) {
    const rows = data as Record<string, unknown>[];
    if (!rows.length) {
      io.err('No results.\n');
      return;
    }
    const cols = pick(o.columns, rows);
    const t = new Table({ head: cols.map((c) => o.paint.bold(c)), style: { head: [], border: [] } });
    for (const r of rows) t.push(cols.map((c) => cell(c, r[c], o.paint, o.money)));
    io.out(t.toString() + '\n');
    return;
  }
  if (data && typeof data === 'object') {
    const t = new Table({ style: { head: [], border: [] } });
    for (const [k, v] of Object.entries(data as Record<string, unknown>)) t.push({ [o.paint.bold(k)]: cell(k, v, o.paint, o.money) });
    io.out(t.toString() + '\n');
    return;
  }
  io.out(String(data) + '\n');
}

/**
 * Real jq (jq 1.7 compiled to WebAssembly: jq-wasm), loaded only when --jq is given. Strings
 * print raw, as `gh --jq` does; a bad expression is a usage error with jq's own message.
 */
export async function jq(data: unknown, expr: string): Promise<string> {
  const mod = (await import('jq-wasm')) as unknown as { raw?: JqRaw; default?: { raw: JqRaw } };
  const raw = mod.raw ?? mod.default!.raw;
  let out: string;
  try {
    out = await raw(JSON.stringify(data ?? null), expr, ['-r']);
  } catch (e) {
    const msg = String((e as Error).message ?? e).replace(/^jq: error: /, '').replace(/\s*\n\s*/g, ' ').trim();
    throw usage(`--jq: ${msg}`);
  }
  return out === '' || out.endsWith('\n') ? out : out + '\n';
}

type JqRaw = (data: string | object, filter: string, flags?: string[]) => Promise<string>;
