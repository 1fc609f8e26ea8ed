import { toneOf } from '../domain/lifecycle.js';
import { formatBRL } from '../domain/money.js';
import presentation from '#generated/presentation.json' with { type: 'json' };
import { useColor, type IO } from './io.js';
import { usage } from './errors.js';
import type { Globals } from './target.js';
import { fitList, wrap, wrapCommand } from './table.js';

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

/** The zone of times in tables: the one the settlement calendar counts days in. */
export const TABLE_TIME_ZONE = 'America/Sao_Paulo';

let timeParts: Intl.DateTimeFormat | undefined;

/**
 * An ISO time as São Paulo reads it, `2026-12-01 10:48 BRT`: whatever the machine's zone, the
 * day shown is the day the settlement calendar counts (BRT is UTC−3; a past summer-time date
 * says BRST).
 */
export function tableTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  timeParts ??= new Intl.DateTimeFormat('en-CA', {
    timeZone: TABLE_TIME_ZONE,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'longOffset',
  });
  const p = Object.fromEntries(timeParts.formatToParts(d).map((x) => [x.type, x.value]));
  const zone = p.timeZoneName === 'GMT-03:00' ? 'BRT' : p.timeZoneName === 'GMT-02:00' ? 'BRST' : (p.timeZoneName ?? '');
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute} ${zone}`;
}

/**
 * A cell for people: money as R$ (the fields the contract tags as money: `money` of the
 * operation's spec), statuses colored, times in São Paulo with their zone, objects compact.
 */
export function cell(key: string, v: unknown, paint: Painter, money: readonly string[] = []): string {
  if (v === null || v === undefined || v === '') return paint.dim('—');
  if (money.includes(key) && typeof v === 'number') return formatBRL(v);
  if (money.includes(key) && typeof v === 'string' && /^\d+$/.test(v)) return formatBRL(Number(v));
  if (key === 'status' && typeof v === 'string') return paintStatus(v, paint);
  if (key === 'outcome' && typeof v === 'string') return v.startsWith('failed') ? paint.red(v) : paint.green(v);
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'string' && (key.endsWith('_at') || key.endsWith('_date') || key === 'clock') && /^\d{4}-\d\d-\d\dT/.test(v)) return tableTime(v);
  if (Array.isArray(v) && v.length && v.every(isFieldChange)) return v.map((c) => `${c.field}: ${changeValue(c.from)} → ${changeValue(c.to)}`).join('\n');
  if (Array.isArray(v)) return v.every((x) => typeof x !== 'object') ? v.join(', ') : JSON.stringify(v);
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** An entry of a correction's `changes` (GET /v1/submerchants/{id}/changes): one line each in a table. */
const isFieldChange = (x: unknown): x is { field: string; from: unknown; to: unknown } =>
  !!x && typeof x === 'object' && typeof (x as { field?: unknown }).field === 'string' && 'from' in x && 'to' in x && Object.keys(x).length === 3;
const changeValue = (v: unknown): string => (v === null || v === undefined ? '—' : typeof v === 'string' ? v : JSON.stringify(v));

export interface PrintOptions {
  columns?: readonly string[];
  /** a list's columns from most to least important (default: the order of `columns`): the last are dropped first to fit */
  importance?: readonly string[];
  /** fields that are money (integer cents): shown as R$ in tables; nested ones by dotted path */
  money?: readonly string[];
  /** values to copy (dotted paths): printed whole on a line of their own below a record's table */
  copy?: readonly string[];
  format: Format;
  paint: Painter;
  /**
   * the command's id (e.g. submerchants.get): its special views, and the importance, money and
   * copy fields of its spec when the caller gives none
   */
  view?: string;
}

function pick(columns: readonly string[] | undefined, rows: Record<string, unknown>[]): string[] {
  if (columns?.length) return [...columns];
  const first = rows[0] ?? {};
  return Object.keys(first).filter((k) => typeof first[k] !== 'object' || first[k] === null).slice(0, 8);
}

/** Table width: the terminal's, else $COLUMNS, else 80 (only -o table off a terminal). */
export function widthFor(io: IO): number {
  const w = io.columns ?? Number(io.env.COLUMNS);
  return Number.isFinite(w) && w >= 20 ? Math.floor(w) : 80;
}

const isRecord = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const isRecordList = (v: unknown): v is Record<string, unknown>[] => Array.isArray(v) && v.length > 0 && v.every(isRecord);

type TableCtor = typeof import('cli-table3');

/** A list as a table that fits `width`: the columns that matter most, ids shortened, prose wrapped. */
function listTable(Table: TableCtor, rows: Record<string, unknown>[], cols: string[], importance: readonly string[] | undefined, width: number, paint: Painter, money: readonly string[] = []): { text: string; dropped: string[] } {
  const fitted = fitList(cols, importance, rows.length, (k, i) => [cell(k, rows[i]![k], plain, money), cell(k, rows[i]![k], paint, money)], width);
  const t = new Table({ head: fitted.head.map((c) => paint.bold(c)), style: { head: [], border: [] } });
  for (const r of fitted.rows) t.push(r);
  return { text: t.toString() + '\n', dropped: fitted.dropped };
}

/** A record's scalar fields, nested objects flattened to dotted keys; lists of records set aside. */
function flatten(rec: Record<string, unknown>, prefix = '', fields: [string, unknown][] = [], lists: [string, unknown[]][] = []) {
  for (const [k, v] of Object.entries(rec)) {
    if (isRecord(v) && Object.keys(v).length) flatten(v, `${prefix}${k}.`, fields, lists);
    else if (isRecordList(v) || (Array.isArray(v) && v.length === 0 && k in presentation.nested)) lists.push([prefix + k, v]);
    else fields.push([prefix + k, v]);
  }
  return { fields, lists };
}

/** What a table cell reads when its value is printed below the box. */
export const BELOW_TO_COPY = '↓ below, to copy';

/**
 * Values to copy as they follow a table: each its name on one line, then the whole value alone
 * on the next (no border, no wrapping, no colour), so a terminal never cuts it.
 */
export function belowTheBox(paint: Painter, below: readonly (readonly [string, string])[]): string {
  let out = '';
  for (const [k, v] of below) out += `\n${paint.bold(k)}\n${v}\n`;
  return out;
}

/** Prints a record or a list in the chosen format (data only, to stdout). */
export async function printData(io: IO, data: unknown, o: PrintOptions): Promise<void> {
  if (typeof o.format === 'object' || o.format === 'json') {
    await printJson(io, data, o.format);
    return;
  }
  if (o.format === 'jsonl') {
    for (const r of Array.isArray(data) ? data : [data]) io.out(JSON.stringify(r) + '\n');
    return;
  }
  const width = widthFor(io);
  const spec = o.view === undefined || (o.money && o.copy) ? undefined : (await import('./specs.js')).allSpecs().find((x) => x.id === o.view);
  const moneyFields = o.money ?? spec?.money ?? [];
  const copy = o.copy ?? spec?.copy ?? [];
  if (o.view === 'submerchants.requirements' && isRecord(data) && Array.isArray(data.missing)) {
    io.out(checklist(data as unknown as Requirements, width, o.paint));
    return;
  }
  const { default: Table } = await import('cli-table3');
  const hidden = (dropped: string[]) => {
    if (dropped.length) io.err(o.paint.dim(wrap(`(hidden to fit ${width} columns: ${dropped.join(', ')}; -o json shows every field)`, width, true)) + '\n');
  };
  if (Array.isArray(data)) {
    const rows = data as Record<string, unknown>[];
    if (!rows.length) {
      io.err('No results.\n');
      return;
    }
    const t = listTable(Table, rows, pick(o.columns, rows), o.importance ?? spec?.importance, width, o.paint, moneyFields);
    io.out(t.text);
    hidden(t.dropped);
    return;
  }
  if (isRecord(data)) {
    const { fields, lists } = flatten(data);
    const keyW = Math.max(...fields.map(([k]) => k.length), 1);
    const valueW = Math.max(16, width - keyW - 7);
    const t = new Table({ style: { head: [], border: [] } });
    // values to copy go below everything, whole and alone on their line, whatever the width
    const below: [string, string][] = [];
    for (const [k, v] of fields) {
      const leaf = k.slice(k.lastIndexOf('.') + 1);
      if (copy.includes(k) && typeof v === 'string' && v !== '') {
        below.push([k, v]);
        t.push({ [o.paint.bold(k)]: o.paint.dim(BELOW_TO_COPY) });
        continue;
      }
      const money = moneyFields.includes(k) ? [leaf] : [];
      const text = cell(leaf, v, plain, money);
      t.push({ [o.paint.bold(k)]: [...text].length <= valueW ? cell(leaf, v, o.paint, money) : wrap(text, valueW, true) });
    }
    let out = fields.length ? t.toString() + '\n' : '';
    const dropped: string[] = [];
    for (const [k, list] of lists) {
      const leaf = k.slice(k.lastIndexOf('.') + 1);
      out += `\n${o.paint.bold(`${k} (${list.length})`)}\n`;
      if (!list.length) {
        out += o.paint.dim('none') + '\n';
        continue;
      }
      const rows = list as Record<string, unknown>[];
      const nested = presentation.nested[leaf];
      const cols = nested ? nested.columns.filter((c) => rows.some((r) => c in r)) : pick(undefined, rows);
      const money = moneyFields.filter((m) => m.startsWith(`${k}.`)).map((m) => m.slice(k.length + 1));
      const lt = listTable(Table, rows, cols, nested?.importance, width, o.paint, money);
      out += lt.text;
      dropped.push(...lt.dropped.map((d) => `${k}.${d}`));
    }
    io.out(out + belowTheBox(o.paint, below));
    hidden(dropped);
    return;
  }
  io.out(String(data) + '\n');
}

interface Requirements {
  submerchant_id: string;
  entity_type: string;
  status: string;
  complete: boolean;
  missing: { kind: string; type?: string; legal_representative_id?: string; message: string }[];
  satisfied: { kind: string; type?: string; legal_representative_id?: string; resource_id: string }[];
}

/** `submerchants requirements` as a checklist; each missing item comes with the mpay commands that add it. */
function checklist(r: Requirements, width: number, paint: Painter): string {
  const id = r.submerchant_id;
  const met = r.satisfied.length;
  const all = met + r.missing.length;
  const lines: string[] = [
    wrap(`Requirements of submerchant ${id}`, width, true),
    `${r.entity_type}, ${paintStatus(r.status, paint)}: ${met} of ${all} met`,
    '',
  ];
  const label = (i: { kind: string; type?: string; legal_representative_id?: string }) =>
    i.kind === 'address' ? 'address' : i.kind === 'legal_representative' ? 'legal representative' : `document ${i.type}${i.legal_representative_id ? ` of partner ${i.legal_representative_id}` : ''}`;
  const item = (mark: string, text: string) => wrap(`${mark} ${text}`, width, true).replace(/\n/g, '\n  ');
  for (const s of r.satisfied) lines.push(item(paint.green('✓'), `${label(s)} ${paint.dim(`(${s.resource_id})`)}`));
  for (const m of r.missing) {
    const hints: string[] = [];
    if (m.kind === 'address') {
      lines.push(item(paint.red('✗'), 'address: none yet'));
      hints.push(`mpay submerchants addresses add ${id} --street … --number … --neighborhood … --city … --state … --zip-code …`);
    } else if (m.kind === 'legal_representative') {
      lines.push(item(paint.red('✗'), 'legal representative: a pj needs at least one'));
      hints.push(`mpay submerchants partners add ${id} --name … --document … --role legal_representative`);
    } else {
      lines.push(item(paint.red('✗'), m.message));
      hints.push(`mpay submerchants upload ${id} --file PATH`);
      const partner = m.legal_representative_id ? ` --legal-representative-id ${m.legal_representative_id}` : '';
      hints.push(`mpay submerchants docs add ${id} --type ${m.type}${partner} --file-url … --file-name … --file-size … --mime-type …`);
    }
    for (const h of hints) lines.push(wrapCommand(h, width, '    '));
  }
  lines.push('');
  if (r.complete) lines.push(paint.green('Complete: nothing is missing.'));
  else {
    lines.push(wrap('The upload prints the file-url, file-name, file-size and mime-type that docs add needs. Or answer the questions:', width, true));
    lines.push(wrapCommand(`mpay submerchants onboard --id ${id}`, width, '    '));
  }
  return lines.join('\n') + '\n';
}

/**
 * Real jq (jq 1.7 compiled to WebAssembly: jq-wasm), loaded only when --jq is given. Strings
 * print raw, as `gh --jq` does; a bad expression is a usage error with jq's own message.
 */
export async function jq(data: unknown, expr: string): Promise<string> {
  const raw = await jqRaw();
  let out: string;
  try {
    out = await raw(JSON.stringify(data ?? null), expr, ['-r']);
  } catch (e) {
    throw jqUsage(e);
  }
  return out === '' || out.endsWith('\n') ? out : out + '\n';
}

/**
 * Compiles a --jq expression without running it (`limit(0; …)` never evaluates its argument),
 * so that a bad one is a usage error before anything is sent or registered.
 */
export async function checkJq(expr: string): Promise<void> {
  const raw = await jqRaw();
  try {
    await raw('null', `[limit(0; (${expr}\n))]`, ['-n']);
  } catch (wrapped) {
    // jq's message about the expression as given (it fails the same way on its own)
    try {
      await raw('null', expr, ['-n']);
    } catch (e) {
      throw jqUsage(e);
    }
    throw jqUsage(wrapped);
  }
}

async function jqRaw(): Promise<JqRaw> {
  const mod = (await import('jq-wasm')) as unknown as { raw?: JqRaw; default?: { raw: JqRaw } };
  return mod.raw ?? mod.default!.raw;
}

const jqUsage = (e: unknown) => usage(`--jq: ${String((e as Error).message ?? e).replace(/^jq: error: /, '').replace(/\s*\n\s*/g, ' ').trim()}`);

/**
 * JSON a command prints whole (a summary, an envelope): pretty with -o json (and on a terminal
 * when the command has no table of its own), one line with -o jsonl, filtered with --jq.
 */
export async function printJson(io: IO, data: unknown, format: Format): Promise<void> {
  if (typeof format === 'object') io.out(await jq(data, format.jq));
  else if (format === 'jsonl') io.out(JSON.stringify(data) + '\n');
  else io.out(JSON.stringify(data, null, 2) + '\n');
}

type JqRaw = (data: string | object, filter: string, flags?: string[]) => Promise<string>;
