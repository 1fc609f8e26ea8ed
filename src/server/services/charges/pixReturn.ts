/**
 * The server's side of PIX returns (src/domain/pixReturns.ts): a fresh return id, and the day a
 * PIX charge was paid, from which its windows count.
 */
import { randomBytes } from 'node:crypto';
import { pixIdSequence, returnId } from '../../../domain/pixReturns.js';
import type { ChargeRow } from './rows.js';

/** A new return id (`D…`) made at `at`: its 11-character sequence from 16 random bytes (65 bits of it). */
export function newReturnId(at: Date): string {
  return returnId(at, pixIdSequence(randomBytes(16)));
}

/** When a captured PIX charge was paid: the São Paulo day the payer paid on (a PIX with a due date), else the moment of its capture. */
export function pixPaidAt(c: Pick<ChargeRow, 'paid_on' | 'captured_at'>): Date | string {
  if (c.paid_on) return c.paid_on;
  if (!c.captured_at) throw new Error('a PIX charge that was not paid has no payment day');
  return new Date(c.captured_at);
}
