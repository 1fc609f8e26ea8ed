/**
 * Every cache of a running service, owned by its runtime (one set per openRuntime): none is a
 * module's global, so two runtimes in one process (tests, two replicas) never see each other's.
 * docs/architecture.md has the table: what each keys, its bound, what invalidates it.
 */
import { CalendarMemo } from '../calendarMemo.js';
import { Memo } from '../memo.js';
import type { CardReading } from './charges/cardReading.js';
import type { PageBoundary } from './chargeList.js';
import type { KnownChargeText } from './charges/view.js';

export interface Caches {
  /** a charge's record text by charge id, served while its row reads the same */
  chargeTexts: Memo<string, KnownChargeText>;
  /** what a card token's blob says (holder, expiry, decisions), by blob; null: unreadable */
  cardReadings: Memo<string, CardReading | null>;
  /** the São Paulo day of the last instant asked for, and settlement instants by capture day and term */
  calendar: CalendarMemo;
  /** the last row of each charge-list page served, by merchant, filter, page size and page */
  chargePages: Memo<string, PageBoundary>;
  /** the OpenAPI document of this server (made once: it takes a while), without its `servers` */
  openapi: Memo<'document', Record<string, unknown>>;
}

export function newCaches(): Caches {
  return {
    chargeTexts: new Memo(2_000),
    cardReadings: new Memo(1_024),
    calendar: new CalendarMemo(),
    chargePages: new Memo(50_000),
    openapi: new Memo(1),
  };
}
