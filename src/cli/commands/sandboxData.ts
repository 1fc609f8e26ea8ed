/**
 * Test data the sandbox helpers create records with (`mpay smoke`, `mpay trigger`): a fresh
 * valid CPF (check digits from src/domain/taxid) and a real PNG built in memory.
 */
import { encodePng } from '../../domain/png.js';
import { cpfCheckDigits } from '../../domain/taxid.js';

/** A random valid CPF, never one repeated digit. */
export function randomCpf(random: () => number = Math.random): string {
  for (;;) {
    const base = Array.from({ length: 9 }, () => Math.floor(random() * 10)).join('');
    if (/^(\d)\1{8}$/.test(base)) continue;
    return base + cpfCheckDigits(base);
  }
}

/** A real 1×1 grey PNG, built in memory. */
export function tinyPng(): Buffer {
  return encodePng(1, 'grey', [Uint8Array.of(0x80)]);
}
