import { z } from 'zod';

/**
 * Date bounds of list filters. A value is a date (YYYY-MM-DD, a whole UTC day) or an ISO 8601
 * date-time. Lower bounds are inclusive. Upper bounds are inclusive too: a date covers its
 * whole day, a date-time that instant. Both become `{ iso }`: the ISO instant to compare
 * with `>=` (lower) or `<` (upper, already moved past the bound).
 */
const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
const MSG = 'must be a date (YYYY-MM-DD) or an ISO 8601 date-time, e.g. 2026-01-31 or 2026-01-31T12:00:00Z';

function parseBound(v: string, upper: boolean, ctx: z.core.$RefinementCtx<string>): string {
  const okShape = DATE_RE.test(v) || z.iso.datetime({ offset: true }).safeParse(v).success;
  const t = okShape ? Date.parse(DATE_RE.test(v) ? `${v}T00:00:00.000Z` : v) : NaN;
  if (!Number.isFinite(t)) {
    ctx.addIssue({ code: 'custom', message: MSG });
    return z.NEVER;
  }
  if (!upper) return new Date(t).toISOString();
  return new Date(DATE_RE.test(v) ? t + 86_400_000 : t + 1).toISOString();
}

/** Inclusive lower bound → ISO instant for `>=`. */
export const qFrom = () => z.string({ error: MSG }).transform((v, ctx) => parseBound(v, false, ctx));
/** Inclusive upper bound → ISO instant for `<`. */
export const qTo = () => z.string({ error: MSG }).transform((v, ctx) => parseBound(v, true, ctx));
