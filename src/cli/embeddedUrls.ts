/**
 * The embedded sandbox hands out links on `EMBEDDED_ORIGIN` (http://127.0.0.1:4010): the origin
 * `mpay server start` listens on by default. Nothing answers there unless that server runs on
 * the same data directory, so a table that shows such a link is followed by a line on stderr
 * saying what serves it. The data itself (JSON, table cells) is not changed.
 */
import { EMBEDDED_ORIGIN } from './target.js';

const CHECKOUT = `${EMBEDDED_ORIGIN}/checkout/`;
const BOLETO = `${EMBEDDED_ORIGIN}/boleto/`;
const FILES = `${EMBEDDED_ORIGIN}/v1/files/`;

/** The embedded links in a record or list (nested values too), by kind, in order of appearance. */
function linksIn(data: unknown): { checkout: string[]; boleto: string[]; files: string[] } {
  const out = { checkout: [] as string[], boleto: [] as string[], files: [] as string[] };
  const seen = new Set<string>();
  const walk = (v: unknown, depth: number) => {
    if (typeof v === 'string') {
      if (seen.has(v)) return;
      seen.add(v);
      if (v.startsWith(CHECKOUT)) out.checkout.push(decodeURIComponent(v.slice(CHECKOUT.length).split(/[/?#]/)[0]!));
      else if (v.startsWith(BOLETO)) out.boleto.push(decodeURIComponent(v.slice(BOLETO.length).split(/[/?#]/)[0]!));
      else if (v.startsWith(FILES)) out.files.push(decodeURIComponent(v.slice(FILES.length).split(/[/?#]/)[0]!));
    } else if (v && typeof v === 'object' && depth < 4) {
      for (const x of Array.isArray(v) ? v : Object.values(v)) walk(x, depth + 1);
    }
  };
  walk(data, 0);
  return out;
}

/** The lines that say how to serve the embedded links of `data` (none when it holds none). */
export function embeddedUrlNotes(data: unknown): string[] {
  const { checkout, boleto, files } = linksIn(data);
  const also = `(or \`mpay server start\` on this data directory, which serves ${EMBEDDED_ORIGIN})`;
  const lines: string[] = [];
  if (checkout.length === 1) lines.push(`The checkout page answers only while it is served: \`mpay links open ${checkout[0]}\` serves it on a free local port ${also}.`);
  else if (checkout.length > 1) lines.push(`The checkout pages answer only while they are served: \`mpay links open ID\` serves one on a free local port ${also}.`);
  if (boleto.length === 1) lines.push(`The boleto slip answers only while it is served: \`mpay charges open ${boleto[0]}\` serves it on a free local port ${also}.`);
  else if (boleto.length > 1) lines.push(`The boleto slips answer only while they are served: \`mpay charges open ID\` serves one on a free local port ${also}.`);
  if (files.length === 1) lines.push(`The file url answers only while it is served: \`mpay files open ${files[0]}\` serves it on a free local port.`);
  else if (files.length > 1) lines.push('The file urls answer only while they are served: `mpay files open KEY` serves one on a free local port.');
  return lines;
}
