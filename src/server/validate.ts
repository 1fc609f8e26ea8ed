import type { z } from 'zod';
import type { ErrorDetail } from '../contract/errors.js';
import { ApiError } from './errors.js';

function fieldOf(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += out ? `.${String(p)}` : String(p);
  }
  return out;
}

export function issuesToDetails(issues: readonly z.core.$ZodIssue[], prefix?: string): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const i of issues) {
    const base = prefix ? [prefix, ...i.path] : i.path;
    if (i.code === 'unrecognized_keys') {
      for (const k of i.keys) details.push({ field: fieldOf([...base, k]), message: 'is not a known field' });
    } else if (i.code === 'invalid_type' && i.input === undefined) {
      details.push({ field: fieldOf(base) || '(body)', message: 'is required' });
    } else if (i.code === 'invalid_union' && i.errors.length) {
      // report the branch that got furthest, the most useful message for a person
      const best = [...i.errors].sort((a, b) => a.length - b.length)[0]!;
      details.push(...issuesToDetails(best, undefined).map((d) => ({ ...d, field: fieldOf([...base]) ? `${fieldOf([...base])}${d.field ? '.' + d.field : ''}` : d.field })));
    } else {
      details.push({ field: fieldOf(base) || '(body)', message: i.message });
    }
  }
  return details;
}

export function validationError(where: 'body' | 'query', details: ErrorDetail[]): ApiError {
  const text = details.map((d) => `${d.field}: ${d.message}`).join('; ');
  const label = where === 'body' ? 'Invalid request body' : 'Invalid query parameters';
  return new ApiError('validation_error', `${label}: ${text}`, details);
}

export function parseWith<S extends z.ZodType>(schema: S, value: unknown, where: 'body' | 'query'): z.output<S> {
  const r = schema.safeParse(value);
  if (!r.success) throw validationError(where, issuesToDetails(r.error.issues));
  return r.data;
}
