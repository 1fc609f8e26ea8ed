export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };

/** A clock tests can move by hand. */
export class ManualClock implements Clock {
  constructor(private t: number = Date.parse('2026-01-15T12:00:00.000Z')) {}
  now(): Date {
    return new Date(this.t);
  }
  advance(ms: number): void {
    this.t += ms;
  }
  set(d: Date): void {
    this.t = d.getTime();
  }
}

/**
 * The last instants made into ISO strings, and their text: a request's own instant, a
 * settlement day's and the request log's line alternate, so a few are kept (replaced in turn).
 */
const ISO_SLOTS = 4;
const isoMs = new Array<number>(ISO_SLOTS).fill(Number.NaN);
const isoText = new Array<string>(ISO_SLOTS).fill('');
let isoNext = 0;

/**
 * `new Date(ms).toISOString()`, made once per instant: the timestamps one request writes at
 * its instant (a charge's, its events', its receivables', its Idempotency-Key's) and the log
 * lines of one millisecond share one string.
 */
export function isoAtMs(ms: number): string {
  for (let i = 0; i < ISO_SLOTS; i++) if (isoMs[i] === ms) return isoText[i]!;
  const text = new Date(ms).toISOString(); // an invalid time (NaN) throws here, as toISOString does
  isoMs[isoNext] = ms;
  isoText[isoNext] = text;
  isoNext = (isoNext + 1) % ISO_SLOTS;
  return text;
}

/** `d.toISOString()`, made once per instant (`isoAtMs`). */
export function isoOf(d: Date): string {
  return isoAtMs(d.getTime());
}
