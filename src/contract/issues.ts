/**
 * zod issues as the `details` of a validation error, `{ field, message }`: one wording for the
 * service (src/server/validate.ts) and the SDK's checks before sending (src/sdk/tokenizer.ts).
 *
 * A field that is absent "is required"; a field that is present with the wrong type says what
 * was expected and what came ("must be a whole number of cents, got 100.5"). Telling the two
 * apart needs the input of each issue, so schemas are parsed with `PARSE_OPTIONS`.
 */
import type * as z from 'zod';
import type { ErrorDetail } from './errors.js';

/** safeParse options that keep each issue's input (zod drops it otherwise). */
export const PARSE_OPTIONS = { reportInput: true } as const;

/** ['items', 0, 'quantity'] → "items[0].quantity" */
export function fieldOf(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += out ? `.${String(p)}` : String(p);
  }
  return out;
}

/** zod's own English for a wrong type, which the contract's schemas did not replace. */
const ZOD_TYPE_MESSAGE = /^Invalid input: expected /;

const EXPECTED: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
  null: 'null',
};

/** A numeric string short enough not to be a card number (13 digits or more) is quoted back. */
const QUOTABLE_NUMBER = /^-?\d{1,12}(\.\d{1,12})?$/;

/**
 * What came instead, without echoing data that may be sensitive: only a number that has the
 * right type but not the right form (a fraction where cents are whole), true/false, null, and a
 * short numeric string where a number was expected are shown; anything else is named by its type.
 */
function gotText(input: unknown, expected: string): string {
  if (input === null) return 'null';
  if (Array.isArray(input)) return 'a list';
  switch (typeof input) {
    case 'number':
      return expected === 'number' || expected === 'int' ? String(input) : 'a number';
    case 'boolean':
      return String(input);
    case 'string':
      if ((expected === 'number' || expected === 'int') && QUOTABLE_NUMBER.test(input)) return `a string ("${input}"; send the number without quotes)`;
      if (expected === 'boolean' && (input === 'true' || input === 'false')) return `a string ("${input}"; send ${input} without quotes)`;
      return 'a string';
    case 'object':
      return 'an object';
    default:
      return `a ${typeof input}`;
  }
}

function typeMessage(i: z.core.$ZodIssueInvalidType): string {
  const custom = !ZOD_TYPE_MESSAGE.test(i.message);
  if (i.input === undefined) return custom && i.message.startsWith('is required') ? i.message : 'is required';
  const expected = EXPECTED[i.expected] ?? `of type ${i.expected}`;
  const want = custom && !i.message.startsWith('is required') ? i.message : `must be ${expected}`;
  return `${want}, got ${gotText(i.input, i.expected)}`;
}

/** The issues of a failed parse (with PARSE_OPTIONS) as error details; `prefix` goes before every field. */
export function issuesToDetails(issues: readonly z.core.$ZodIssue[], prefix?: string): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const i of issues) {
    const base = prefix ? [prefix, ...i.path] : i.path;
    if (i.code === 'unrecognized_keys') {
      for (const k of i.keys) details.push({ field: fieldOf([...base, k]), message: 'is not a known field' });
    } else if (i.code === 'invalid_type') {
      details.push({ field: fieldOf(base) || '(body)', message: typeMessage(i) });
    } else if (i.code === 'invalid_union' && i.errors.length) {
      // report the branch that got furthest, the most useful message for a person
      const best = [...i.errors].sort((a, b) => a.length - b.length)[0]!;
      const at = fieldOf([...base]);
      details.push(...issuesToDetails(best, undefined).map((d) => ({ ...d, field: at ? `${at}${d.field ? '.' + d.field : ''}` : d.field })));
    } else {
      details.push({ field: fieldOf(base) || '(body)', message: i.message });
    }
  }
  // one detail per field and message (an integer's own safe range and a schema's bound may both refuse a value)
  return details.filter((d, n) => details.findIndex((e) => e.field === d.field && e.message === d.message) === n);
}
