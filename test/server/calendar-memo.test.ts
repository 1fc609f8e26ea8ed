/**
 * The runtime's calendar memo (src/server/calendarMemo.ts) answers what the domain's pure
 * calendar answers, for instants asked in any order — across daylight-saving days (São Paulo
 * had them until 2019), the day windows it keeps and the settlement instants it remembers.
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { localDate, settlementInstant } from '../../src/domain/calendar.js';
import { CalendarMemo } from '../../src/server/calendarMemo.js';

it('localDate and settlementInstant equal the domain calendar, for any instants in any order', () => {
  const memo = new CalendarMemo();
  const from = Date.UTC(2000, 0, 1);
  const to = Date.UTC(2031, 0, 1);
  // instants near one another (the kept day window), and DST transitions of 2017–2019
  const near = fc.tuple(fc.integer({ min: from, max: to }), fc.array(fc.integer({ min: -3 * 86_400_000, max: 3 * 86_400_000 }), { maxLength: 6 }));
  fc.assert(
    fc.property(fc.array(near, { minLength: 1, maxLength: 10 }), fc.integer({ min: 0, max: 12 }), (groups, n) => {
      for (const [base, offsets] of groups) {
        for (const t of [base, ...offsets.map((o) => base + o), Date.UTC(2018, 10, 4, 2, 59, 59, 999), Date.UTC(2018, 10, 4, 3), Date.UTC(2019, 1, 17, 1, 59)]) {
          const d = new Date(t);
          expect(memo.localDate(d)).toBe(localDate(d));
          expect(memo.settlementInstant(d, 30 * n).getTime()).toBe(settlementInstant(d, 30 * n).getTime());
        }
      }
    }),
    { numRuns: 200 },
  );
});
