/**
 * percentToBps: a percentage with at most two decimals, as the API takes it, in basis points.
 * Every such percentage from 0 to 100 lands on the point it names, though most of them are
 * binary fractions that × 100 falls just short of (0.29 × 100 = 28.999…) or past.
 */
import { describe, expect, it } from 'vitest';
import { percentToBps } from '../../src/domain/money.js';

describe('percentToBps', () => {
  it('names the basis points of a percentage', () => {
    expect(percentToBps(2.99)).toBe(299);
    expect(percentToBps(0.01)).toBe(1);
    expect(percentToBps(100)).toBe(10_000);
    expect(percentToBps(0)).toBe(0);
  });

  it('is exact where × 100 is not (0.29, 0.57, 1.1, 33.33)', () => {
    expect(0.29 * 100).not.toBe(29);
    expect(percentToBps(0.29)).toBe(29);
    expect(percentToBps(0.57)).toBe(57);
    expect(percentToBps(1.1)).toBe(110);
    expect(percentToBps(33.33)).toBe(3333);
  });

  it('gives back n for every n / 100 from 0 to 100 %', () => {
    const wrong: number[] = [];
    for (let n = 0; n <= 10_000; n++) if (percentToBps(n / 100) !== n) wrong.push(n);
    expect(wrong).toEqual([]);
  });
});
