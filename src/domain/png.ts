/**
 * A PNG encoder for small generated images (the sandbox helpers' document uploads, test
 * fixtures): signature, IHDR, one zlib IDAT, IEND, each chunk with its CRC. 8 bits per
 * sample, no interlace, filter 0 on every row.
 */
import { crc32, deflateSync } from 'node:zlib';
import { PNG_SIGNATURE } from './files.js';

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td) >>> 0);
  return Buffer.concat([len, td, crc]);
}

/**
 * Encodes `rows` (one per line, top to bottom: `width` pixels of 1 byte for grey or 3 bytes
 * R, G, B for rgb) as a PNG.
 */
export function encodePng(width: number, colour: 'grey' | 'rgb', rows: readonly Uint8Array[]): Buffer {
  const bpp = colour === 'grey' ? 1 : 3;
  for (const r of rows) if (r.length !== width * bpp) throw new RangeError(`a PNG row of ${width} ${colour} pixels has ${width * bpp} bytes, got ${r.length}`);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(rows.length, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = colour === 'grey' ? 0 : 2; // colour type
  const raw = Buffer.concat(rows.flatMap((r) => [Buffer.from([0]), Buffer.from(r)]));
  return Buffer.concat([Buffer.from(PNG_SIGNATURE), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}
