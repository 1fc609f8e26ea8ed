import type * as z from 'zod';
import type { ErrorDetail } from '../contract/errors.js';
import { fieldOf, issuesToDetails, PARSE_OPTIONS } from '../contract/issues.js';
import { ApiError } from './errors.js';

export function validationError(where: 'body' | 'query', details: ErrorDetail[]): ApiError {
  const text = details.map((d) => `${d.field}: ${d.message}`).join('; ');
  const label = where === 'body' ? 'Invalid request body' : 'Invalid query parameters';
  return new ApiError('validation_error', `${label}: ${text}`, details);
}

/**
 * Where a parsed JSON value holds an own `__proto__` key. JSON.parse keeps it as data, but no
 * JavaScript object built from it can (assigning it sets the prototype), so a record such as
 * `metadata` would drop it silently: it is refused instead. Iterative, so depth costs no stack.
 */
export function protoKeyPaths(value: unknown): string[] {
  interface Node {
    v: unknown;
    key: PropertyKey | null;
    parent: Node | null;
  }
  const pathOf = (n: Node): PropertyKey[] => {
    const out: PropertyKey[] = [];
    for (let p: Node | null = n; p && p.key !== null; p = p.parent) out.unshift(p.key);
    return out;
  };
  const found: string[] = [];
  const stack: Node[] = [{ v: value, key: null, parent: null }];
  while (stack.length) {
    const n = stack.pop()!;
    const v = n.v;
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], key: i, parent: n });
      continue;
    }
    if (Object.hasOwn(v, '__proto__')) found.push(fieldOf([...pathOf(n), '__proto__']));
    const keys = Object.keys(v);
    for (let i = keys.length - 1; i >= 0; i--) if (keys[i] !== '__proto__') stack.push({ v: (v as Record<string, unknown>)[keys[i]!], key: keys[i]!, parent: n });
  }
  return found;
}

export function parseWith<S extends z.ZodType>(schema: S, value: unknown, where: 'body' | 'query'): z.output<S> {
  if (where === 'body') {
    const proto = protoKeyPaths(value);
    if (proto.length) {
      throw validationError(
        'body',
        proto.map((field) => ({ field, message: 'is not allowed as a key (a JavaScript object cannot hold it as data); rename it' })),
      );
    }
  }
  const r = schema.safeParse(value, PARSE_OPTIONS);
  if (!r.success) throw validationError(where, issuesToDetails(r.error.issues));
  return r.data;
}
