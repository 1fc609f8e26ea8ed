/**
 * The boleto barcode drawn as SVG, checked by reading the drawing back: the test measures the
 * bars and the spaces between them and decodes them with its own table of the symbology,
 * Santander's "Cobrança – Código de Barras" v35 p. 3 ("0 00110, 1 10001 … 9 01010"):
 * https://github.com/fernandosavio/boleto-utils/blob/3ecfe06363c6a1819132c1de9643a25d77779a17/boleto-utils/documents/Cobranca-Codigo-de-Barras-Julho-2022-v35-Santander.pdf
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BOLETO_BARCODE_LAYOUT, interleaved2of5Svg, interleaved2of5Widths } from '../../src/domain/interleaved2of5.js';

/** Santander v35's table: 1 = wide ("L"), 0 = narrow ("E"). */
const TABLE: Record<string, string> = {
  '00110': '0',
  '10001': '1',
  '01001': '2',
  '11000': '3',
  '00101': '4',
  '10100': '5',
  '01100': '6',
  '00011': '7',
  '10010': '8',
  '01010': '9',
};

const attr = (tag: string, name: string) => {
  const m = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  if (!m) throw new Error(`no ${name} in ${tag}`);
  return m[1]!;
};

interface Reading {
  digits: string;
  ratio: number;
  /** module width in mm */
  moduleMm: number;
  symbolModules: number;
  quietLeftModules: number;
  quietRightModules: number;
  heightMm: number;
}

/** Reads an SVG back: the bars' x and width, the gaps between them, narrow and wide, then the digits. */
function read(svg: string): Reading {
  const root = /^<svg[^>]*>/.exec(svg)![0];
  const [, , vbWidth] = attr(root, 'viewBox').split(' ').map(Number) as [number, number, number, number];
  const moduleMm = Number.parseFloat(attr(root, 'width')) / vbWidth;
  const group = /<g fill="#000">(.*)<\/g>/.exec(svg)![1]!;
  const bars = [...group.matchAll(/<rect[^>]*\/>/g)].map((m) => ({ x: Number(attr(m[0], 'x')), w: Number(attr(m[0], 'width')) }));
  const elements: number[] = [];
  bars.forEach((b, i) => {
    if (i > 0) elements.push(b.x - (bars[i - 1]!.x + bars[i - 1]!.w));
    elements.push(b.w);
  });
  const narrow = Math.min(...elements);
  const wide = Math.max(...elements);
  const bits = elements.map((e) => {
    if (Math.abs(e - narrow) < 1e-6) return '0';
    if (Math.abs(e - wide) < 1e-6) return '1';
    throw new Error(`an element of width ${e} is neither narrow (${narrow}) nor wide (${wide})`);
  });
  const s = bits.join('');
  if (!s.startsWith('0000') || !s.endsWith('100')) throw new Error(`start or stop pattern missing: ${s.slice(0, 4)}…${s.slice(-3)}`);
  const body = s.slice(4, -3);
  if (body.length % 10 !== 0) throw new Error('the body is not whole pairs of digits');
  let digits = '';
  for (let i = 0; i < body.length; i += 10) {
    const pair = body.slice(i, i + 10);
    const first = TABLE[[0, 2, 4, 6, 8].map((k) => pair[k]).join('')];
    const second = TABLE[[1, 3, 5, 7, 9].map((k) => pair[k]).join('')];
    if (!first || !second) throw new Error(`no digit for ${pair}`);
    digits += first + second;
  }
  const last = bars[bars.length - 1]!;
  return {
    digits,
    ratio: wide / narrow,
    moduleMm: moduleMm * narrow,
    symbolModules: (last.x + last.w - bars[0]!.x) / narrow,
    quietLeftModules: bars[0]!.x / narrow,
    quietRightModules: (vbWidth - (last.x + last.w)) / narrow,
    heightMm: Number.parseFloat(attr(root, 'height')),
  };
}

describe('Interleaved 2 of 5', () => {
  it('encodes 0123 as Santander\'s example: start, EL EE LE LE EL, EL LL EE EE LE, stop', () => {
    // "INICIO 01 00 10 10 01 01 11 00 00 10 FIM": each pair is a bar then a space; start
    // narrow bar, narrow space, narrow bar, narrow space; stop wide bar, narrow space, narrow bar
    const pairs = '01 00 10 10 01 01 11 00 00 10'.replace(/ /g, '');
    const expected = [1, 1, 1, 1, ...[...pairs].map((b) => (b === '1' ? 3 : 1)), 3, 1, 1];
    expect(interleaved2of5Widths('0123')).toEqual(expected);
  });

  it('draws a published boleto barcode that reads back to its 44 digits, to the FEBRABAN layout', () => {
    // CAIXA 67.119's worked example (test/domain/boleto.test.ts)
    const code = '10494324200000321120055077222133347777777771';
    const r = read(interleaved2of5Svg(code));
    expect(r.digits).toBe(code);
    expect(r.ratio).toBeCloseTo(3, 9);
    expect(r.moduleMm).toBeCloseTo(0.254, 9);
    // 4 + 22 × (6 + 4 × 3) + (2 + 3) = 405 modules: 102.87 mm of the 103 mm the layout asks
    expect(r.symbolModules).toBeCloseTo(405, 9);
    expect(r.symbolModules * r.moduleMm).toBeCloseTo(102.87, 6);
    // at least 5 mm of white before the start and after the stop
    expect(r.quietLeftModules * r.moduleMm).toBeGreaterThanOrEqual(5);
    expect(r.quietRightModules * r.moduleMm).toBeGreaterThanOrEqual(5);
    expect(r.heightMm).toBe(13);
  });

  it('any even run of digits reads back, at any ratio from 2 to 3 (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 30 }).chain((n) => fc.stringMatching(new RegExp(`^\\d{${2 * n}}$`))), fc.constantFrom(2, 2.5, 3), (digits, ratio) => {
        const r = read(interleaved2of5Svg(digits, { ratio }));
        expect(r.digits).toBe(digits);
        expect(r.ratio).toBeCloseTo(ratio, 9);
        expect(r.quietLeftModules).toBeCloseTo(BOLETO_BARCODE_LAYOUT.quietModules, 9);
      }),
    );
  });

  it('refuses an odd count of digits, anything but digits, and a ratio outside 2 to 3', () => {
    expect(() => interleaved2of5Svg('123')).toThrow('even number of digits');
    expect(() => interleaved2of5Svg('')).toThrow(RangeError);
    expect(() => interleaved2of5Svg('12a4')).toThrow(RangeError);
    expect(() => interleaved2of5Svg('1234', { ratio: 4 })).toThrow('2 to 3 times');
    expect(() => interleaved2of5Svg('1234', { narrowMm: 0 })).toThrow(RangeError);
  });

  it('is a standalone SVG document with its digits as its accessible name', () => {
    const svg = interleaved2of5Svg('0123');
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).toContain('aria-label="0123"');
    expect(svg.endsWith('</svg>')).toBe(true);
  });
});
