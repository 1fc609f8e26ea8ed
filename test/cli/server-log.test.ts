import { afterEach, describe, expect, it, vi } from 'vitest';
import { LOG_FLUSH_MS, isoStamper, lineBuffer } from '../../src/cli/commands/serverStart/run.js';

/** The request log of `mpay server start`: lines written together, never lost, never late by more than LOG_FLUSH_MS. */
describe('request-log line buffer', () => {
  afterEach(() => vi.useRealTimers());

  it('lines pushed within LOG_FLUSH_MS leave in one write, in order, no later than LOG_FLUSH_MS after the first', () => {
    vi.useFakeTimers();
    const writes: string[] = [];
    const b = lineBuffer((s) => writes.push(s));
    b.push('a');
    vi.advanceTimersByTime(LOG_FLUSH_MS - 1);
    b.push('b');
    expect(writes).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(writes).toEqual(['a\nb\n']);
    b.push('c');
    vi.advanceTimersByTime(LOG_FLUSH_MS);
    expect(writes).toEqual(['a\nb\n', 'c\n']);
  });

  it('256 waiting lines are written at once, and flush() writes what waits (on stop)', () => {
    vi.useFakeTimers();
    const writes: string[] = [];
    const b = lineBuffer((s) => writes.push(s));
    for (let i = 0; i < 256; i++) b.push(String(i));
    expect(writes.length).toBe(1);
    expect(writes[0]!.split('\n').length).toBe(257);
    b.push('last');
    b.flush();
    expect(writes[1]).toBe('last\n');
    vi.advanceTimersByTime(LOG_FLUSH_MS * 2);
    expect(writes.length).toBe(2);
  });
});

describe("the request log's timestamps", () => {
  it('a stamper gives new Date(t).toISOString() for every millisecond, in any order', () => {
    const isoNow = isoStamper();
    const base = Date.UTC(2026, 10, 28, 23, 59, 59, 998);
    for (const t of [base, base, base + 1, base + 2, base + 2, base - 86_400_000, base]) {
      expect(isoNow(t)).toBe(new Date(t).toISOString());
    }
    expect(isoNow(base)).toBe(isoNow(base));
    const real = isoNow();
    expect(Math.abs(Date.parse(real) - Date.now())).toBeLessThan(1000);
    expect(() => isoNow(Number.NaN)).toThrow(RangeError);
  });
});
