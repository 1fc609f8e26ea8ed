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

/** The last two instants `isoOf` wrote, and their text: a request's own instant and another (a settlement day's) alternate. */
const isoMs = [Number.NaN, Number.NaN];
const isoText = ['', ''];
let isoNext = 0;
/**
 * `d.toISOString()`, made once per instant: the timestamps one request writes at its instant
 * (a charge's, its events', its receivables', its Idempotency-Key's) share one string.
 */
export function isoOf(d: Date): string {
  const ms = d.getTime();
  if (ms === isoMs[0]) return isoText[0]!;
  if (ms === isoMs[1]) return isoText[1]!;
  const text = d.toISOString(); // an invalid date throws here, as toISOString does
  isoMs[isoNext] = ms;
  isoText[isoNext] = text;
  isoNext ^= 1;
  return text;
}
