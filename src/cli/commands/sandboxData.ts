/**
 * Test data the sandbox helpers create records with (`mpay smoke`, `mpay trigger`): a fresh
 * valid CPF (check digits from src/domain/taxid) and a real PNG built in memory.
 */
import { crc32, deflateSync } from 'node:zlib';
import { cpfCheckDigits } from '../../domain/taxid.js';

/** A random valid CPF, never one repeated digit. */
export function randomCpf(random: () => number = Math.random): string {
  for (;;) {
    const base = Array.from({ length: 9 }, () => Math.floor(random() * 10)).join('');
    if (/^(\d)\1{8}$/.test(base)) continue;
    return base + cpfCheckDigits(base);
  }
}

function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td) >>> 0);
  return Buffer.concat([len, td, crc]);
}

/** A real 1×1 grey PNG, built in memory: signature, IHDR, IDAT, IEND. */
export function tinyPng(): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(1, 0);
  ihdr.writeUInt32BE(1, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(Buffer.from([0, 0x80]))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}
