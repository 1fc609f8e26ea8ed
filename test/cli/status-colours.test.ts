/**
 * The CLI colours a status by its tone in the lifecycles (src/domain/lifecycle.ts), so a state
 * added to a lifecycle cannot be left uncoloured.
 */
import { describe, expect, it } from 'vitest';
import { LIFECYCLES, type Lifecycle } from '../../src/domain/lifecycle.js';
import { cell, type Painter } from '../../src/cli/output.js';

const marking: Painter = {
  green: (s) => `<green>${s}`,
  yellow: (s) => `<yellow>${s}`,
  red: (s) => `<red>${s}`,
  dim: (s) => `<dim>${s}`,
  bold: (s) => `<bold>${s}`,
};

describe('status colours come from the lifecycles', () => {
  for (const l of Object.keys(LIFECYCLES) as Lifecycle[]) {
    for (const status of Object.keys(LIFECYCLES[l])) {
      it(`${l} '${status}' has a colour`, () => {
        expect(cell('status', status, marking)).toMatch(new RegExp(`^<(green|yellow|red|dim)>${status}$`));
      });
    }
  }

  it('keeps the colours it had', () => {
    const c = (s: string) => cell('status', s, marking);
    expect(['captured', 'paid', 'completed', 'approved', 'active', 'delivered'].map(c)).toEqual(
      ['captured', 'paid', 'completed', 'approved', 'active', 'delivered'].map((s) => `<green>${s}`),
    );
    expect(['pending', 'processing', 'under_review', 'anticipated'].map(c)).toEqual(['pending', 'processing', 'under_review', 'anticipated'].map((s) => `<yellow>${s}`));
    expect(['failed', 'refused', 'rejected', 'disabled', 'expired', 'refunded'].map(c)).toEqual(
      ['failed', 'refused', 'rejected', 'disabled', 'expired', 'refunded'].map((s) => `<red>${s}`),
    );
  });

  it('leaves a status no lifecycle has, and other columns, as they are', () => {
    expect(cell('status', 'toString', marking)).toBe('toString');
    expect(cell('status', 'mystery', marking)).toBe('mystery');
    expect(cell('type', 'pending', marking)).toBe('pending');
  });
});
