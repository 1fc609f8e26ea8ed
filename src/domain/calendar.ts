/**
 * Brazil's banking calendar, in one place: the time zone days are counted in, the national
 * holidays, and the settlement day of a card receivable. Pure; time-zone arithmetic goes
 * through Intl (the platform's IANA database), never a hand-made offset.
 *
 * Rules (docs/api.md, Settlement calendar):
 * - A calendar day (YYYY-MM-DD) is a whole day in America/Sao_Paulo: it starts at local
 *   00:00 and ends just before the next day's 00:00.
 * - A banking business day is a day that is not a Saturday, a Sunday or a national holiday.
 * - National holidays: the fixed ones (1 Jan, 21 Apr, 1 May, 7 Sep, 12 Oct, 2 Nov, 15 Nov,
 *   20 Nov from 2024, 25 Dec) plus Carnival Monday and Tuesday (Easter − 48 and − 47 days),
 *   Good Friday (Easter − 2) and Corpus Christi (Easter + 60), Easter by the Gregorian
 *   computus.
 * - Installment n of a card sale settles on the capture's calendar day + 30 × n days, moved
 *   forward to the next business day; the receivable's settlement_date is the first instant
 *   of that day (local 00:00).
 */

export const TIME_ZONE = 'America/Sao_Paulo';

// built on first use: a time-zone formatter costs a few ms, and the CLI imports this module
let ymdFormat: Intl.DateTimeFormat | undefined;
let offsetFormat: Intl.DateTimeFormat | undefined;

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

function parts(ymd: string): [number, number, number] {
  const m = DATE_RE.exec(ymd);
  if (!m) throw new RangeError(`not a date (YYYY-MM-DD): ${ymd}`);
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const fromUtcDay = (d: Date) => `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;

/** The calendar day (YYYY-MM-DD) an instant falls on in São Paulo, as Intl says. */
function zonedDate(instant: Date): string {
  ymdFormat ??= new Intl.DateTimeFormat('en-CA', { timeZone: TIME_ZONE, year: 'numeric', month: '2-digit', day: '2-digit' });
  const p = Object.fromEntries(ymdFormat.formatToParts(instant).map((x) => [x.type, x.value]));
  return `${p.year}-${p.month}-${p.day}`;
}

/** The calendar day (YYYY-MM-DD) an instant falls on in São Paulo. */
export function localDate(instant: Date): string {
  return zonedDate(instant);
}

/** São Paulo's offset from UTC at an instant, in ms (e.g. −3 h), as the IANA database says. */
function offsetAt(instant: number): number {
  offsetFormat ??= new Intl.DateTimeFormat('en-US', { timeZone: TIME_ZONE, timeZoneName: 'longOffset' });
  const name = offsetFormat.formatToParts(new Date(instant)).find((x) => x.type === 'timeZoneName')?.value ?? 'GMT';
  const m = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
  if (!m) return 0; // "GMT": no offset
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 3_600_000 + Number(m[3]) * 60_000);
}

/** Calendar arithmetic on dates (no time, no zone): 2026-01-31 + 1 = 2026-02-01. */
export function addDays(ymd: string, days: number): string {
  const [y, m, d] = parts(ymd);
  return fromUtcDay(new Date(Date.UTC(y, m - 1, d + days)));
}

/** Whole calendar days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  const [y1, m1, d1] = parts(from);
  const [y2, m2, d2] = parts(to);
  return Math.round((Date.UTC(y2, m2 - 1, d2) - Date.UTC(y1, m1 - 1, d1)) / 86_400_000);
}

/**
 * The first instant of a calendar day in São Paulo (local 00:00; on a day whose midnight a
 * daylight-saving jump skipped, the first instant that exists).
 */
export function startOfDay(ymd: string): Date {
  return new Date(firstInstant(ymd));
}

function firstInstant(ymd: string): number {
  const [y, m, d] = parts(ymd);
  const wall = Date.UTC(y, m - 1, d); // local midnight read as if it were UTC
  let t = wall - offsetAt(wall);
  t = wall - offsetAt(t); // the offset in force at that instant, not at the guess
  if (zonedDate(new Date(t)) !== ymd) t = wall - offsetAt(t - 1); // midnight skipped: the day starts at the jump
  return t;
}

/** Easter Sunday of a Gregorian year (anonymous Gregorian computus, Meeus/Jones/Butcher). */
export function easter(year: number): string {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}`;
}

export interface Holiday {
  date: string;
  name: string;
  /** fixed: same day every year; easter: moves with Easter */
  kind: 'fixed' | 'easter';
}

/** The fixed national holidays: [month, day, name, first year it applies]. */
const FIXED: ReadonlyArray<readonly [number, number, string, number]> = [
  [1, 1, 'Confraternização Universal (New Year)', 0],
  [4, 21, 'Tiradentes', 0],
  [5, 1, 'Dia do Trabalho (Labour Day)', 0],
  [9, 7, 'Independência do Brasil', 0],
  [10, 12, 'Nossa Senhora Aparecida', 0],
  [11, 2, 'Finados (All Souls)', 0],
  [11, 15, 'Proclamação da República', 0],
  [11, 20, 'Dia Nacional de Zumbi e da Consciência Negra', 2024], // Lei 14.759/2023
  [12, 25, 'Natal (Christmas)', 0],
];

/** Holidays that move with Easter: [days from Easter Sunday, name]. */
const MOVABLE: ReadonlyArray<readonly [number, string]> = [
  [-48, 'Carnaval (Carnival Monday)'],
  [-47, 'Carnaval (Carnival Tuesday)'],
  [-2, 'Sexta-feira Santa (Good Friday)'],
  [60, 'Corpus Christi'],
];

/** The fixed holidays by month and day ('MM-DD'): their name and the first year each applies. */
const FIXED_BY_DAY: ReadonlyMap<string, { name: string; since: number }> = new Map(
  FIXED.map(([m, d, name, since]) => [`${pad(m)}-${pad(d)}`, { name, since }]),
);

/** Every national banking holiday of a year, in date order. */
export function holidays(year: number): Holiday[] {
  if (!Number.isInteger(year) || year < 1583 || year > 9999) throw new RangeError('year must be 1583 to 9999 (Gregorian calendar)');
  const e = easter(year);
  return [
    ...FIXED.filter(([, , , since]) => year >= since).map(([m, d, name]) => ({ date: `${pad(year, 4)}-${pad(m)}-${pad(d)}`, name, kind: 'fixed' as const })),
    ...MOVABLE.map(([off, name]) => ({ date: addDays(e, off), name, kind: 'easter' as const })),
  ].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
}

/** The holiday on a day, or null. */
export function holidayOn(ymd: string): Holiday | null {
  const [year] = parts(ymd);
  if (year < 1583 || year > 9999) throw new RangeError('year must be 1583 to 9999 (Gregorian calendar)');
  const fixed = FIXED_BY_DAY.get(ymd.slice(5));
  if (fixed && year >= fixed.since) return { date: ymd, name: fixed.name, kind: 'fixed' };
  const fromEaster = daysBetween(easter(year), ymd);
  const movable = MOVABLE.find(([off]) => off === fromEaster);
  return movable ? { date: ymd, name: movable[1], kind: 'easter' } : null;
}

/** 0 = Sunday … 6 = Saturday (of the calendar day itself, no zone involved). */
function weekday(ymd: string): number {
  const [y, m, d] = parts(ymd);
  return new Date(Date.UTC(y, m - 1, d)).getUTCDay();
}

/** Not a Saturday, a Sunday or a national holiday. */
export function isBusinessDay(ymd: string): boolean {
  const w = weekday(ymd);
  return w !== 0 && w !== 6 && holidayOn(ymd) === null;
}

/** The day itself when it is a business day, else the next one. */
export function nextBusinessDay(ymd: string): string {
  let d = ymd;
  while (!isBusinessDay(d)) d = addDays(d, 1);
  return d;
}

/**
 * The most days the move to a business day adds (a D+30 on the Saturday before Carnival settles
 * on Ash Wednesday; test/domain/calendar.test.ts checks every day from 2000 to 2100).
 */
export const MAX_BUSINESS_DAY_SHIFT = 4;

/** Days of clock advance that settle a card installment due `days` after a capture made now,
 *  whatever the weekday, holiday or hour (the São Paulo day + days + the longest shift). */
export const settledAfterDays = (days: number) => days + MAX_BUSINESS_DAY_SHIFT + 1;

/** The settlement day of a receivable: the capture's São Paulo day + `days`, moved to a business day. */
export function settlementDay(capturedAt: Date, days: number): string {
  return settlementDayFrom(localDate(capturedAt), days);
}

/** The settlement day of a receivable captured on São Paulo day `from`, `days` later, moved to a business day. */
export function settlementDayFrom(from: string, days: number): string {
  return nextBusinessDay(addDays(from, days));
}

/** The settlement instant stored on a receivable: the first instant of its settlement day. */
export function settlementInstant(capturedAt: Date, days: number): Date {
  return startOfDay(settlementDay(capturedAt, days));
}

/** Calendar days from `now`'s São Paulo day until an instant's São Paulo day; 0 when not ahead. */
export function calendarDaysUntil(settlement: Date, now: Date): number {
  if (settlement.getTime() <= now.getTime()) return 0;
  return Math.max(0, daysBetween(localDate(now), localDate(settlement)));
}
