import type { Clock } from '../../src/server/clock.js';

/** A clock a test moves by hand. */
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
