/**
 * Tables that fit the terminal. A list keeps the columns that matter most for its resource
 * (the `importance` of its endpoint's `cli` block in the contract, in its operation's spec):
 * when the table is wider than the terminal, ids of other records are shortened
 * in the middle, prose is wrapped, and then the least important columns are dropped. A value
 * meant to be copied (the row's own id, keys, URLs, card numbers) is never cut: its column is
 * dropped or wrapped at its spaces instead.
 */
import { stripVTControlCharacters } from 'node:util';

/** Prose: wrapped at spaces, and long words broken, to fit. */
const PROSE = new Set([
  'description', 'message', 'detail', 'title', 'failure_reason', 'review_notes', 'legal_name', 'trade_name', 'name',
  'street', 'events', 'allowed_ips', 'creates', 'notes', 'changes',
]);
/** Values to copy that contain spaces (commands): wrapped at their spaces only, never cut. */
const COPY_WRAP = new Set(['value', 'outcome']);

/** Visible width: code points without colour codes (our cells hold no wide characters). */
export const widthOf = (s: string): number => Math.max(0, ...stripVTControlCharacters(s).split('\n').map((l) => [...l].length));

/** "0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f" → "0190f0c4…8d9e0f" */
export const shortId = (s: string): string => (s.length > 15 ? `${s.slice(0, 8)}…${s.slice(-6)}` : s);

/** Wraps text to `w` columns at spaces; words longer than `w` are broken only when `breakWords`. */
export function wrap(text: string, w: number, breakWords: boolean): string {
  const out: string[] = [];
  for (const para of text.split('\n')) {
    let line = '';
    for (let word of para.split(' ')) {
      while (breakWords && [...word].length > w) {
        if (line) {
          out.push(line);
          line = '';
        }
        out.push([...word].slice(0, w).join(''));
        word = [...word].slice(w).join('');
      }
      if (!line) line = word;
      else if ([...line].length + 1 + [...word].length <= w) line += ' ' + word;
      else {
        out.push(line);
        line = word;
      }
    }
    out.push(line);
  }
  return out.join('\n');
}

type Kind = 'fixed' | 'prose' | 'copy' | 'ref';

interface Column {
  key: string;
  plain: string[];
  painted: string[];
  natural: number;
  min: number;
  kind: Kind;
}

const UUIDISH = /^[0-9a-f]{8}-[0-9a-f-]{27}$/i;

function column(key: string, plain: string[], painted: string[], primary: boolean): Column {
  const head = key.length;
  const natural = Math.max(head, ...plain.map(widthOf));
  let kind: Kind = 'fixed';
  if (!primary && key.endsWith('_id') && plain.every((p) => p === '—' || UUIDISH.test(p))) kind = 'ref';
  else if (PROSE.has(key)) kind = 'prose';
  else if (COPY_WRAP.has(key)) kind = 'copy';
  let min = natural;
  if (kind === 'ref') min = Math.min(natural, Math.max(head, 15));
  if (kind === 'prose') min = Math.min(natural, Math.max(head, 20));
  if (kind === 'copy') min = Math.max(head, ...plain.flatMap((p) => p.split(/\s+/).map((x) => [...x].length)));
  return { key, plain, painted, natural, min, kind };
}

const total = (ws: number[]) => ws.reduce((a, w) => a + w + 3, 1);

/** Widths that fit, shortening ids and wrapping before anything is dropped; null if none do. */
function layout(cols: Column[], width: number): number[] | null {
  const ws = cols.map((c) => c.natural);
  if (total(ws) <= width) return ws;
  cols.forEach((c, i) => c.kind === 'ref' && (ws[i] = c.min));
  let over = total(ws) - width;
  while (over > 0) {
    let widest = -1;
    cols.forEach((c, i) => {
      if ((c.kind === 'prose' || c.kind === 'copy') && ws[i]! > c.min && (widest < 0 || ws[i]! > ws[widest]!)) widest = i;
    });
    if (widest < 0) return null;
    ws[widest]!--;
    over--;
  }
  return ws;
}

export interface Fitted {
  head: string[];
  rows: string[][];
  dropped: string[];
}

/**
 * Chooses the columns and cell texts of a list table `width` columns wide. `cells(key, i)` gives
 * a row's cell as plain text and painted for the terminal.
 */
export function fitList(keys: readonly string[], importance: readonly string[] | undefined, n: number, cells: (key: string, i: number) => [string, string], width: number): Fitted {
  const rank = (k: string) => {
    const r = (importance ?? keys).indexOf(k);
    return r < 0 ? keys.indexOf(k) + 1000 : r;
  };
  const primary = [...keys].sort((a, b) => rank(a) - rank(b))[0];
  const all = keys.map((k) => {
    const pairs = Array.from({ length: n }, (_, i) => cells(k, i));
    return column(k, pairs.map((p) => p[0]), pairs.map((p) => p[1]), k === primary);
  });
  let shown = [...all];
  const dropped: string[] = [];
  let ws = layout(shown, width);
  while (!ws && shown.length > 1) {
    const least = shown.reduce((a, b) => (rank(b.key) > rank(a.key) ? b : a));
    dropped.push(least.key);
    shown = shown.filter((c) => c !== least);
    ws = layout(shown, width);
  }
  // a less important column that fits in the room a wider one left
  for (const k of [...dropped].sort((a, b) => rank(a) - rank(b))) {
    if (!ws) break;
    const c = all.find((x) => x.key === k)!;
    const tryCols = all.filter((x) => x === c || shown.includes(x));
    const tryWs = layout(tryCols, width);
    if (tryWs) {
      shown = tryCols;
      ws = tryWs;
      dropped.splice(dropped.indexOf(k), 1);
    }
  }
  // one column left that is still too wide: wrap it, breaking words if it must
  const widths = ws ?? [Math.max(8, width - 4)];
  const rows = Array.from({ length: n }, (_, i) =>
    shown.map((c, j) => {
      const w = widths[j]!;
      if (widthOf(c.plain[i]!) <= w) return c.painted[i]!;
      if (c.kind === 'ref') return shortId(c.plain[i]!);
      return wrap(c.plain[i]!, w, c.kind !== 'copy' || !ws);
    }),
  );
  return { head: shown.map((c) => c.key), rows, dropped };
}

/** A shell command wrapped to `width` at its spaces, continued with ` \` so it still pastes. */
export function wrapCommand(cmd: string, width: number, indent: string): string {
  // a flag and its value stay on one line
  const words: string[] = [];
  for (const t of cmd.split(' ')) {
    const last = words[words.length - 1];
    if (last?.startsWith('--') && !last.includes(' ') && !t.startsWith('--')) words[words.length - 1] = `${last} ${t}`;
    else words.push(t);
  }
  const lines: string[] = [];
  let line = indent + words.shift();
  for (const w of words) {
    if ([...line].length + 1 + [...w].length + 2 <= width) line += ' ' + w;
    else {
      lines.push(line + ' \\');
      line = indent + '  ' + w;
    }
  }
  lines.push(line);
  return lines.join('\n');
}
