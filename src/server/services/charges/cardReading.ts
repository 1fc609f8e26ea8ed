/**
 * What a card token's blob says, read once per blob: the holder, the expiry and the sandbox
 * acquirer's decision on the number (src/domain/sandbox.ts), and the later dispute of a charge
 * paid with a magic dispute card.
 */
import { decideCard, type CardDecision, type LaterDispute } from '../../../domain/sandbox.js';
import type { Queryable } from '../../../store/db.js';
import type { ServiceDeps } from '../context.js';
import type { ChargeRow } from './rows.js';

/**
 * What a charge needs of a card token's blob: the holder's name, the expiry, and the sandbox
 * acquirer's decision on the number (while the card is valid, and once it has expired). Not
 * the number itself, which stays only in the blob.
 */
export interface CardReading {
  holder: string;
  year: number;
  month: number;
  valid: CardDecision;
  expired: CardDecision;
}

/**
 * The reading of a token blob, or null when it cannot be read (altered, another master key).
 * Readings are remembered by blob (`caches.cardReadings`; a blob is never rewritten in place:
 * a changed blob is another key), so a token charged again is not decrypted again.
 */
export function cardReading(deps: ServiceDeps, encrypted: string | undefined): CardReading | null {
  if (!encrypted) return null;
  const memo = deps.caches.cardReadings;
  const known = memo.get(encrypted);
  if (known !== undefined) return known;
  let reading: CardReading | null;
  try {
    const card = JSON.parse(deps.keyring.decrypt(encrypted)) as { number: string; expirationMonth: string; expirationYear: string; holderName?: string };
    reading = {
      holder: card.holderName ?? '',
      year: Number(card.expirationYear),
      month: Number(card.expirationMonth),
      valid: decideCard(card.number, false),
      expired: decideCard(card.number, true),
    };
  } catch {
    reading = null;
  }
  memo.set(encrypted, reading);
  return reading;
}

export function cardDecisionFor(card: CardReading | null, now: Date): CardDecision {
  if (!card) return { approved: false, failure_code: 'processing_error', failure_reason: 'The card data could not be read' };
  const y = now.getUTCFullYear();
  const expired = card.year < y || (card.year === y && card.month < now.getUTCMonth() + 1);
  return expired ? card.expired : card.valid;
}

/**
 * The sandbox's later dispute of a charge paid with a magic dispute card, read from its card
 * token; none for any other card, an unreadable token or in production.
 */
export async function laterDisputeOf(q: Queryable, deps: ServiceDeps, c: Pick<ChargeRow, 'card_token' | 'merchant_id'>): Promise<LaterDispute | undefined> {
  if (deps.mode === 'production' || !c.card_token) return undefined;
  const tok = await q.get<{ encrypted: string }>('SELECT encrypted FROM card_tokens WHERE token = ? AND merchant_id = ?', [c.card_token, c.merchant_id]);
  const valid = tok ? cardReading(deps, tok.encrypted)?.valid : undefined;
  return valid?.approved ? valid.dispute : undefined;
}
