/**
 * Interleaved 2 of 5 ("2 de 5 intercalado"), the symbology of the boleto's barcode, drawn as SVG.
 * Pure: digits in, an SVG string out.
 *
 * - Each digit is five elements, two of them wide: 0 NNWWN, 1 WNNNW, 2 NWNNW, 3 WWNNN, 4 NNWNW,
 *   5 WNWNN, 6 NWWNN, 7 NNNWW, 8 WNNWN, 9 NWNWN. Digits go in pairs: the first of a pair is
 *   drawn by the five bars, the second by the five spaces between them, bar and space
 *   alternating; so the count of digits must be even (a boleto has 44).
 * - Start: narrow bar, narrow space, narrow bar, narrow space. Stop: wide bar, narrow space,
 *   narrow bar.
 * - Boleto layout (FEBRABAN, as the banks' manuals give it): 103 mm long and 13 mm high, with
 *   at least 5 mm of white before the start and after the stop. A 44-digit symbol is
 *   4 + 22 × (6 + 4 × ratio) + (2 + ratio) narrow modules long = 138 + 89 × ratio; with the wide
 *   element 3 times the narrow one (ISO/IEC 16390 allows 2 to 3) that is 405 modules, and a
 *   narrow element of 0.254 mm (1/100 inch) makes it 102.87 mm: the 103 mm the layout asks.
 *   The quiet zone is 20 modules, 5.08 mm.
 */

/** Narrow (0) and wide (1) elements of each digit. */
const PATTERNS: readonly string[] = ['00110', '10001', '01001', '11000', '00101', '10100', '01100', '00011', '10010', '01010'];

export interface Interleaved2of5Options {
  /** width of a narrow element, mm (default 0.254) */
  narrowMm?: number;
  /** wide element ÷ narrow element (default 3) */
  ratio?: number;
  /** bar height, mm (default 13) */
  heightMm?: number;
  /** white space before the start and after the stop, in narrow modules (default 20) */
  quietModules?: number;
}

/** The boleto's layout: 0.254 mm narrow, 1:3, 13 mm high, 20 modules (5.08 mm) of quiet zone. */
export const BOLETO_BARCODE_LAYOUT: Required<Interleaved2of5Options> = { narrowMm: 0.254, ratio: 3, heightMm: 13, quietModules: 20 };

/**
 * The element widths of a symbol in narrow modules, in order from the start: bar, space, bar, …
 * (the start pattern's 4 elements, 10 per pair of digits, the stop's 3).
 */
export function interleaved2of5Widths(digits: string, ratio = BOLETO_BARCODE_LAYOUT.ratio): number[] {
  if (!/^(\d\d)+$/.test(digits)) throw new RangeError('Interleaved 2 of 5 encodes an even number of digits (at least 2)');
  if (!(ratio >= 2 && ratio <= 3)) throw new RangeError('the wide element is 2 to 3 times the narrow one');
  const w = (bit: string) => (bit === '1' ? ratio : 1);
  const out = [1, 1, 1, 1];
  for (let i = 0; i < digits.length; i += 2) {
    const bars = PATTERNS[Number(digits[i])]!;
    const spaces = PATTERNS[Number(digits[i + 1])]!;
    for (let k = 0; k < 5; k++) out.push(w(bars[k]!), w(spaces[k]!));
  }
  out.push(ratio, 1, 1);
  return out;
}

/** A number for an SVG attribute: at most 4 decimals, no trailing zeros. */
const num = (n: number) => String(Math.round(n * 10_000) / 10_000);

/**
 * The symbol as a standalone SVG document: a white background (the quiet zones included) and
 * one black `<rect>` per bar, in user units of one narrow module, scaled to millimetres by the
 * root's width and height. `aria-label` carries the digits.
 */
export function interleaved2of5Svg(digits: string, options: Interleaved2of5Options = {}): string {
  const o = { ...BOLETO_BARCODE_LAYOUT, ...options };
  if (!(o.narrowMm > 0 && o.heightMm > 0 && o.quietModules >= 0)) throw new RangeError('narrowMm and heightMm must be positive, quietModules not negative');
  const widths = interleaved2of5Widths(digits, o.ratio);
  const symbol = widths.reduce((a, b) => a + b, 0);
  const total = symbol + 2 * o.quietModules;
  const height = o.heightMm / o.narrowMm;
  const bars: string[] = [];
  let x = o.quietModules;
  widths.forEach((width, i) => {
    if (i % 2 === 0) bars.push(`<rect x="${num(x)}" y="0" width="${num(width)}" height="${num(height)}"/>`);
    x += width;
  });
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${num(total * o.narrowMm)}mm" height="${num(o.heightMm)}mm" ` +
    `viewBox="0 0 ${num(total)} ${num(height)}" preserveAspectRatio="none" shape-rendering="crispEdges" role="img" aria-label="${digits}">` +
    `<rect x="0" y="0" width="${num(total)}" height="${num(height)}" fill="#fff"/>` +
    `<g fill="#000">${bars.join('')}</g></svg>`
  );
}
