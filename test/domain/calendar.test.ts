import { describe, expect, it } from 'vitest';
import {
  addDays,
  calendarDaysUntil,
  daysBetween,
  MAX_BUSINESS_DAY_SHIFT,
  easter,
  holidays,
  isBusinessDay,
  localDate,
  nextBusinessDay,
  settlementDay,
  settlementInstant,
  startOfDay,
} from '../../src/domain/calendar.js';

// settlement on banking business days, days in America/Sao_Paulo
describe('the Brazilian banking calendar', () => {
  it('computes Easter (known dates) and the holidays that move with it', () => {
    expect([2024, 2025, 2026, 2027, 2028, 2038].map(easter)).toEqual(['2024-03-31', '2025-04-20', '2026-04-05', '2027-03-28', '2028-04-16', '2038-04-25']);
    const h2026 = holidays(2026);
    expect(h2026.filter((h) => h.kind === 'easter').map((h) => h.date)).toEqual(['2026-02-16', '2026-02-17', '2026-04-03', '2026-06-04']);
    expect(h2026.map((h) => h.date)).toEqual([
      '2026-01-01', '2026-02-16', '2026-02-17', '2026-04-03', '2026-04-21', '2026-05-01', '2026-06-04',
      '2026-09-07', '2026-10-12', '2026-11-02', '2026-11-15', '2026-11-20', '2026-12-25',
    ]);
    expect(holidays(2023).some((h) => h.date === '2023-11-20')).toBe(false); // national from 2024
    expect(() => holidays(1200)).toThrow(RangeError);
  });

  it('business days skip weekends and holidays', () => {
    expect(isBusinessDay('2026-02-13')).toBe(true); // Friday
    expect(isBusinessDay('2026-02-14')).toBe(false); // Saturday
    expect(isBusinessDay('2026-02-16')).toBe(false); // Carnival Monday
    expect(nextBusinessDay('2026-02-14')).toBe('2026-02-18'); // Sat → Sun → Carnival Mon, Tue → Ash Wednesday
    expect(nextBusinessDay('2026-04-03')).toBe('2026-04-06'); // Good Friday → Monday
    expect(nextBusinessDay('2027-01-01')).toBe('2027-01-04'); // New Year (Friday) → Monday
    expect(nextBusinessDay('2027-01-31')).toBe('2027-02-01'); // Sunday → Monday
    expect(nextBusinessDay('2026-03-16')).toBe('2026-03-16');
  });

  it('days are São Paulo days: 23:30 local on the 31st is 02:30 UTC on the 1st', () => {
    const late = new Date('2026-04-01T02:30:00Z');
    expect(localDate(late)).toBe('2026-03-31');
    expect(localDate(new Date('2026-04-01T03:00:00Z'))).toBe('2026-04-01');
    expect(startOfDay('2026-03-31').toISOString()).toBe('2026-03-31T03:00:00.000Z');
    // 2018-11-04: daylight saving started at local midnight, so that day began at 01:00 (−02:00)
    expect(startOfDay('2018-11-04').toISOString()).toBe('2018-11-04T03:00:00.000Z');
    expect(startOfDay('2018-11-05').toISOString()).toBe('2018-11-05T02:00:00.000Z');
    expect(addDays('2026-01-31', 30)).toBe('2026-03-02');
  });

  it('settlement day: capture day + 30 × n, moved forward to a business day', () => {
    expect(settlementDay(new Date('2026-01-15T12:00:00Z'), 30)).toBe('2026-02-18'); // D+30 Saturday before Carnival
    expect(settlementDay(new Date('2026-01-15T12:00:00Z'), 60)).toBe('2026-03-16');
    // captured 23:30 on 31 March in São Paulo: D+30 = 30 April (UTC would say 1 May, a holiday)
    expect(settlementInstant(new Date('2026-04-01T02:30:00Z'), 30).toISOString()).toBe('2026-04-30T03:00:00.000Z');
    expect(settlementDay(new Date('2026-12-02T15:00:00Z'), 30)).toBe('2027-01-04'); // 1 Jan 2027 (Fri) → Mon 4
  });

  it('never moves a day by more than MAX_BUSINESS_DAY_SHIFT (every day of 2000–2100)', () => {
    let worst = 0;
    for (let d = '2000-01-01'; d < '2101-01-01'; d = addDays(d, 1)) worst = Math.max(worst, daysBetween(d, nextBusinessDay(d)));
    expect(worst).toBe(MAX_BUSINESS_DAY_SHIFT);
  });

  // localDate keeps the last day's span and startOfDay its results (a capture asks per receivable):
  // they must answer what Intl answers, instant after instant, across daylight-saving jumps
  it('localDate and startOfDay answer as Intl does, every 20 minutes of 2017–2019 (daylight saving on and off)', () => {
    const intl = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo', year: 'numeric', month: '2-digit', day: '2-digit' });
    const wrong: string[] = [];
    for (let t = Date.UTC(2017, 0, 1); t < Date.UTC(2020, 0, 1); t += 20 * 60_000) {
      const at = new Date(t);
      const want = intl.format(at);
      if (localDate(at) !== want) wrong.push(`${at.toISOString()}: ${localDate(at)} (Intl: ${want})`);
      // the first instant of the day it falls on is not after it, and the instant before that is on another day
      const start = startOfDay(want).getTime();
      if (start > t || intl.format(new Date(start - 1)) === want) wrong.push(`${at.toISOString()}: day ${want} starts at ${new Date(start).toISOString()}`);
    }
    expect(wrong).toEqual([]);
    // going back and forth between days (the kept span is the last day asked for)
    expect(localDate(new Date('2018-11-04T02:59:59.999Z'))).toBe('2018-11-03');
    expect(localDate(new Date('2018-11-04T03:00:00Z'))).toBe('2018-11-04');
    expect(localDate(new Date('2019-02-17T01:30:00Z'))).toBe('2019-02-16'); // daylight saving ended at local midnight: 23:30 again
    expect(localDate(new Date('2019-02-17T02:30:00Z'))).toBe('2019-02-16');
    expect(localDate(new Date('2019-02-17T03:00:00Z'))).toBe('2019-02-17');
    expect(() => localDate(new Date(NaN))).toThrow(RangeError);
  });

  it('counts calendar days until a settlement day, 0 once due', () => {
    const now = new Date('2026-01-15T12:00:00Z');
    expect(calendarDaysUntil(startOfDay('2026-02-18'), now)).toBe(34);
    expect(calendarDaysUntil(startOfDay('2026-01-16'), new Date('2026-01-16T02:59:00Z'))).toBe(1); // 23:59 the day before
    expect(calendarDaysUntil(startOfDay('2026-01-16'), new Date('2026-01-16T03:00:00Z'))).toBe(0);
  });
});
