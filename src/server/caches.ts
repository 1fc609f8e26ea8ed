/**
 * Every cache of a running service, owned by its runtime (one set per createApp): none is a
 * module's global, so two runtimes in one process (tests, two replicas) never see each other's.
 * docs/architecture.md has the table: what each keys, its bound, what invalidates it.
 */
import { Memo } from './memo.js';
import type { CardReading } from './services/charges/card.js';
import type { KnownChargeText } from './services/charges/view.js';

export interface Caches {
  /** a charge's record text by charge id, served while its row reads the same */
  chargeTexts: Memo<string, KnownChargeText>;
  /** what a card token's blob says (holder, expiry, decisions), by blob; null: unreadable */
  cardReadings: Memo<string, CardReading | null>;
}

export function newCaches(): Caches {
  return {
    chargeTexts: new Memo(2_000),
    cardReadings: new Memo(1_024),
  };
}
