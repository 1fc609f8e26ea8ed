/** The one PNG encoder (src/domain/png.ts) the sandbox helpers and the test fixtures share. */
import { crc32, inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { sniff } from '../../src/domain/files.js';
import { encodePng } from '../../src/domain/png.js';

function chunks(png: Buffer): { type: string; data: Buffer; crcOk: boolean }[] {
  const out = [];
  for (let at = 8; at < png.length; ) {
    const len = png.readUInt32BE(at);
    const type = png.subarray(at + 4, at + 8).toString('ascii');
    const data = png.subarray(at + 8, at + 8 + len);
    const crcOk = png.readUInt32BE(at + 8 + len) === crc32(png.subarray(at + 4, at + 8 + len)) >>> 0;
    out.push({ type, data, crcOk });
    at += 12 + len;
  }
  return out;
}

describe('encodePng', () => {
  it('writes a PNG the upload sniffer accepts, with valid CRCs and the rows filtered 0', () => {
    const png = encodePng(2, 'rgb', [Uint8Array.of(255, 0, 0, 0, 255, 0), Uint8Array.of(0, 0, 255, 255, 255, 255)]);
    expect(sniff(png.subarray(0, 16))).toBe('png');
    const cs = chunks(png);
    expect(cs.map((c) => c.type)).toEqual(['IHDR', 'IDAT', 'IEND']);
    expect(cs.every((c) => c.crcOk)).toBe(true);
    const ihdr = cs[0]!.data;
    expect([ihdr.readUInt32BE(0), ihdr.readUInt32BE(4), ihdr[8], ihdr[9]]).toEqual([2, 2, 8, 2]);
    expect([...inflateSync(cs[1]!.data)]).toEqual([0, 255, 0, 0, 0, 255, 0, 0, 0, 0, 255, 255, 255, 255]);
  });

  it('grey images take one byte a pixel; a row of the wrong size is refused', () => {
    const png = encodePng(1, 'grey', [Uint8Array.of(0x80)]);
    expect(chunks(png)[0]!.data[9]).toBe(0);
    expect(() => encodePng(2, 'grey', [Uint8Array.of(1)])).toThrow('a PNG row of 2 grey pixels has 2 bytes, got 1');
  });
});
