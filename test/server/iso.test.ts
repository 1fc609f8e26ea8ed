import { describe, expect, it } from 'vitest';
import { isoOf } from '../../src/server/clock.js';

describe('isoOf', () => {
  it('is toISOString, for instants asked in any order and again', () => {
    const instants = [0, 1_767_225_600_000, 1_767_225_600_001, 1_767_225_600_000, 8.64e15, -1, 1_767_225_600_001, 0, 0, 42];
    for (const ms of [...instants, ...instants.reverse()]) expect(isoOf(new Date(ms))).toBe(new Date(ms).toISOString());
  });

  it('throws on an invalid date, as toISOString does, however often asked', () => {
    isoOf(new Date(5));
    expect(() => isoOf(new Date(Number.NaN))).toThrow(RangeError);
    expect(() => isoOf(new Date(Number.NaN))).toThrow(RangeError);
  });
});
