import * as z from 'zod';
import { addDays, startOfDay } from '../domain/calendar.js';

/**
 * Date bounds of list filters. A value is a date (YYYY-MM-DD, a whole day in America/Sao_Paulo:
 * src/domain/calendar.ts) or an ISO 8601
 * date-time. Lower bounds are inclusive. Upper bounds are inclusive too: a date covers its
 * whole day, a date-time that instant. Both become `{ iso }`: the ISO instant to compare
 * with `>=` (lower) or `<` (upper, already moved past the bound).
 */
const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
const MSG = 'must be a date (YYYY-MM-DD) or an ISO 8601 date-time, e.g. 2026-01-31 or 2026-01-31T12:00:00Z';

/** The last instant stored timestamps can carry (4-digit years): bounds past it are capped to it,
 *  so a bound never becomes a `+010000-…` string that sorts before every real timestamp. */
const LAST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');

/** Is `YYYY-MM-DD` a day of the calendar (no 2026-02-30 rolling over into March)? */
export function isCalendarDate(ymd: string): boolean {
  const [y, m, d] = ymd.split('-').map(Number) as [number, number, number];
  if (m < 1 || m > 12 || d < 1) return false;
  const days = new Date(Date.UTC(2000, m, 0)).getUTCDate(); // days of month m in a leap year
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  return d <= (m === 2 && !leap ? 28 : days);
}

function parseBound(v: string, upper: boolean, ctx: z.core.$RefinementCtx<string>): string {
  const isDate = DATE_RE.test(v);
  const okShape = isDate || z.iso.datetime({ offset: true }).safeParse(v).success;
  const real = okShape && isCalendarDate(v.slice(0, 10));
  const t = !real ? NaN : isDate ? startOfDay(v).getTime() : Date.parse(v);
  if (!Number.isFinite(t)) {
    ctx.addIssue({ code: 'custom', message: `${MSG}, of a real calendar day` });
    return z.NEVER;
  }
  if (!upper) return new Date(Math.min(t, LAST_INSTANT)).toISOString();
  const end = isDate ? (v >= '9999-12-31' ? Infinity : startOfDay(addDays(v, 1)).getTime()) : t + 1;
  return new Date(Math.min(end, LAST_INSTANT)).toISOString();
}

/** Inclusive lower bound → ISO instant for `>=`. */
export const qFrom = () => z.string({ error: MSG }).transform((v, ctx) => parseBound(v, false, ctx));
/** Inclusive upper bound → ISO instant for `<`. */
export const qTo = () => z.string({ error: MSG }).transform((v, ctx) => parseBound(v, true, ctx));
