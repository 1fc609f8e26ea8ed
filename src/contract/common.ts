import * as z from 'zod';
import { ERROR_CODES } from './errors.js';

/** Shared field types. Every resource schema is built from these. */
export const uuid = () => z.uuid({ error: 'must be a UUID' });
export const timestamp = () => z.string().describe('ISO 8601 date-time');
export const isoDateTime = () =>
  z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time, e.g. 2026-01-31T12:00:00Z' });
const DATE_FORM = /^\d{4}-\d{2}-\d{2}$/;
/** A calendar day, YYYY-MM-DD: a day in that form that the calendar has not (2026-02-30) is told apart from a wrong form. */
export const isoDate = () =>
  z.iso.date({
    error: (iss) =>
      typeof iss.input === 'string' && DATE_FORM.test(iss.input)
        ? `${iss.input} is not a calendar day: must be a real date in the form YYYY-MM-DD`
        : 'must be a date in the form YYYY-MM-DD',
  });
/**
 * Money is tagged by its type's error, which names the unit: every money field of the contract
 * (input or record) is one of `cents()`, `positiveCents()` or `money()`, and `isMoney` reads the
 * tag back (the CLI's R$ columns and its flags' "in cents" come from it, at build time).
 */
const CENTS_ERROR = 'must be a whole number of cents';
const TOO_LARGE = `must be at most ${Number.MAX_SAFE_INTEGER} cents`;
const TOO_SMALL = `must be at least ${Number.MIN_SAFE_INTEGER} cents`;
/**
 * A money field of a record: integer cents (may be negative, e.g. a debit). Beyond the safe
 * integers (which JSON numbers lose precision past) it says so, not that it is no whole number.
 */
export const money = () =>
  z.int({ error: (i) => (i.code === 'too_big' ? TOO_LARGE : i.code === 'too_small' ? TOO_SMALL : CENTS_ERROR) });
/** Integer cents; negative amounts are never accepted on input. */
export const cents = () => money().min(0, { error: 'must not be negative' }).max(Number.MAX_SAFE_INTEGER);
export const positiveCents = () => money().min(1, { error: 'must be at least 1 cent' }).max(Number.MAX_SAFE_INTEGER);

/** Money kept as a decimal string of integer cents (e.g. a submerchant's average_ticket: "15000"). */
export const centsString = () => z.string({ error: 'must be integer cents as a decimal string' });

type Def = { type: string; error?: (i: unknown) => unknown; innerType?: z.ZodType };
const defOf = (s: z.core.$ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;
function errorText(def: Def): string | undefined {
  if (typeof def.error !== 'function') return undefined;
  const msg = def.error({ code: 'invalid_type', input: undefined });
  return typeof msg === 'string' ? msg : undefined;
}

/** The unit a number's contract error names ("must be an integer number of cents" → cents), if any. */
export function unitOf(schema: z.core.$ZodType): 'cents' | 'seconds' | 'days' | undefined {
  const def = defOf(schema);
  if (def.type !== 'number') return undefined;
  return /number of (cents|seconds|days)\b/.exec(errorText(def) ?? '')?.[1] as 'cents' | 'seconds' | 'days' | undefined;
}

/** Whether a contract schema (nullable or optional or not) is money: `money()`, `cents()`, `positiveCents()`, `centsString()`. */
export function isMoney(schema: z.ZodType): boolean {
  let def = defOf(schema);
  while ((def.type === 'nullable' || def.type === 'optional') && def.innerType) def = defOf(def.innerType);
  return (def.type === 'number' || def.type === 'string') && /\bcents\b/.test(errorText(def) ?? '');
}

/**
 * The fields of a record schema (of every branch of a union of records) that `is` picks; those
 * of nested records and of arrays of records by dotted path (`summary.opening_balance`,
 * `entries.amount`).
 */
export function fieldsWhere(schema: z.ZodType, is: (field: z.ZodType) => boolean): string[] {
  const s = schema as unknown as { shape?: Record<string, z.ZodType>; options?: z.ZodType[] };
  if (s.options) return [...new Set(s.options.flatMap((o) => fieldsWhere(o, is)))];
  return Object.entries(s.shape ?? {}).flatMap(([k, v]) => {
    if (is(v)) return [k];
    const inner = recordOf(v);
    return inner ? fieldsWhere(inner, is).map((m) => `${k}.${m}`) : [];
  });
}

/** The money fields of a record schema, by dotted path (see fieldsWhere). */
export const moneyFields = (schema: z.ZodType): string[] => fieldsWhere(schema, isMoney);
/** The record schema a field holds (itself, or its array's element; nullable or optional or not). */
function recordOf(schema: z.ZodType): z.ZodType | undefined {
  let t = schema as unknown as z.core.$ZodType;
  for (;;) {
    const def = defOf(t) as Def & { element?: z.core.$ZodType; shape?: unknown };
    if ((def.type === 'nullable' || def.type === 'optional') && def.innerType) t = def.innerType;
    else if (def.type === 'array' && def.element) t = def.element;
    else return def.type === 'object' ? (t as unknown as z.ZodType) : undefined;
  }
}
export const nonEmpty = (max = 255) =>
  z.string({ error: 'must be a string' }).trim().min(1, { error: 'must not be empty' }).max(max, { error: `must be at most ${max} characters` });
export const currency = () => z.literal('BRL', { error: 'only BRL is accepted' });
export const metadata = () =>
  z.record(z.string().max(40), z.union([z.string().max(500), z.number(), z.boolean(), z.null()]), {
    error: 'must be an object of short keys to strings, numbers, booleans or null',
  });

/** Query-string helpers: every query value arrives as a string. */
export const qInt = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, { error: `must be a whole number from ${min} to ${max}` })
    .transform(Number)
    .pipe(z.int().min(min, { error: `must be at least ${min}` }).max(max, { error: `must be at most ${max}` }));
export const qEnum = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: `must be one of: ${values.join(', ')}` });
export const qBool = () =>
  z.enum(['true', 'false'], { error: 'must be true or false' }).transform((v) => v === 'true');

export const PAGE_DEFAULT = 1;
export const PER_PAGE_DEFAULT = 20;
export const PER_PAGE_MAX = 100;
export const PAGE_MAX = 1_000_000;

export const paginationQuery = {
  page: qInt(1, PAGE_MAX).optional(),
  per_page: qInt(1, PER_PAGE_MAX).optional(),
};

/** A strict query schema for a list: pagination plus the given filters. */
export const listQuery = <S extends z.ZodRawShape>(filters: S) => z.strictObject({ ...paginationQuery, ...filters });

export const pagination = z.object({
  page: z.int(),
  perPage: z.int(),
  total: z.int(),
  totalPages: z.int(),
});

export const errorEnvelope = z.object({
  success: z.literal(false),
  message: z.string(),
  error: z.enum(ERROR_CODES as [string, ...string[]]),
  details: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
});

export const envelope = <T extends z.ZodType>(data: T) =>
  z.object({ success: z.literal(true), message: z.string(), data });
export const listEnvelope = <T extends z.ZodType>(item: T) =>
  z.object({ success: z.literal(true), message: z.string(), data: z.array(item), pagination });
/** The envelope of a record one of whose fields is a page of a list (an endpoint's `pages`). */
export const pagedEnvelope = <T extends z.ZodType>(data: T) => z.object({ success: z.literal(true), message: z.string(), data, pagination });
