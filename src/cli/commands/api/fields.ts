/**
 * The fields of `mpay api`, as `gh api` reads them (cli/cli pkg/cmd/api/fields.go):
 *
 * - `-f/--raw-field key=value` adds a string;
 * - `-F/--field key=value` adds a typed value: `true`, `false`, `null` and integers become JSON
 *   literals, `@FILE` is the content of FILE (`@-`: standard input), anything else a string;
 * - `key[sub]=v` nests an object, `key[]=v` appends to a list (`key[]` alone: an empty list),
 *   `key[][sub]=v` fills the list's last object until a key repeats.
 *
 * Raw fields are read first, then typed ones; a key given twice is an error. On GET and DELETE
 * the fields are the query string (gh's flattening: `key[]` per list entry, nested keys by their
 * own name).
 */
import { usage } from '../../errors.js';

export type FieldValue = string | number | boolean | null | FieldValue[] | FieldMap;
export interface FieldMap {
  [key: string]: FieldValue;
}

/** Go's strconv.Atoi: an optional sign and decimal digits; kept as a string beyond what a double holds exactly. */
function integer(v: string): number | undefined {
  if (!/^[+-]?\d+$/.test(v)) return undefined;
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** What `-F` turns a value into (gh's magicFieldValue, without its repository placeholders). */
async function magicValue(v: string, readUserFile: (name: string) => Promise<string>): Promise<FieldValue> {
  if (v.startsWith('@')) return readUserFile(v.slice(1));
  const n = integer(v);
  if (n !== undefined) return n;
  if (v === 'true') return true;
  if (v === 'false') return false;
  if (v === 'null') return null;
  return v;
}

const typeName = (v: FieldValue | undefined): string => (v === null ? 'null' : Array.isArray(v) ? 'list' : typeof v === 'object' ? 'object' : typeof v);

function isMap(v: FieldValue | undefined): v is FieldMap {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function paramsMap(m: FieldMap, key: string): FieldMap {
  const v = m[key];
  if (v === undefined) return (m[key] = {});
  if (isMap(v)) return v;
  throw usage(`expected map type under "${key}", got ${typeName(v)}`);
}

function paramsSlice(m: FieldMap, prevKey: string, newKey: string): FieldMap {
  const v = m[prevKey];
  if (v === undefined) {
    const fresh: FieldMap = {};
    m[prevKey] = [fresh];
    return fresh;
  }
  if (!Array.isArray(v)) throw usage(`expected array type under "${prevKey}", got ${typeName(v)}`);
  const last = v[v.length - 1];
  if (isMap(last) && (last[newKey] === undefined || Array.isArray(last[newKey]))) return last;
  const fresh: FieldMap = {};
  v.push(fresh);
  return fresh;
}

/** The keys of a field (`items[][name]=x` → ['items', '', 'name']) and where its value starts (-1: none). */
export function fieldKeys(f: string): { keys: string[]; valueAt: number } {
  const keys: string[] = [];
  let keyStartAt = 0;
  for (let i = 0; i < f.length; i++) {
    const c = f[i];
    if (c === '[') {
      if (keyStartAt === 0) keys.push(f.slice(0, i));
      keyStartAt = i + 1;
    } else if (c === ']') {
      keys.push(f.slice(keyStartAt, i));
    } else if (c === '=') {
      if (keyStartAt === 0) keys.push(f.slice(0, i));
      return { keys, valueAt: i + 1 };
    }
  }
  return { keys, valueAt: -1 };
}

async function addField(params: FieldMap, f: string, magic: boolean, readUserFile: (name: string) => Promise<string>): Promise<void> {
  const { keys, valueAt } = fieldKeys(f);
  if (valueAt < 0 && (keys.length === 0 || keys[keys.length - 1] !== '')) throw usage(`field "${f}" requires a value separated by an '=' sign`);
  if (keys.length === 0 || keys[0] === '') throw usage(`invalid key: "${f}"`);
  const key = valueAt < 0 ? f : f.slice(0, valueAt - 1);
  let value: FieldValue | undefined;
  if (valueAt >= 0) {
    const raw = f.slice(valueAt);
    try {
      value = magic ? await magicValue(raw, readUserFile) : raw;
    } catch (e) {
      throw usage(`error parsing "${key}" value: ${(e as Error).message}`);
    }
  }
  let dest = params;
  let isArray = false;
  let subkey = '';
  for (const k of keys) {
    if (k === '') {
      isArray = true;
      continue;
    }
    if (subkey !== '') {
      if (isArray) {
        dest = paramsSlice(dest, subkey, k);
        isArray = false;
      } else {
        dest = paramsMap(dest, subkey);
      }
    }
    subkey = k;
  }
  if (isArray) {
    const existing = dest[subkey];
    if (value === undefined) dest[subkey] = [];
    else if (existing === undefined) dest[subkey] = [value];
    else if (Array.isArray(existing)) existing.push(value);
    else throw usage(`expected array type under "${subkey}", got ${typeName(existing)}`);
  } else {
    if (dest[subkey] !== undefined) throw usage(`unexpected override existing field under "${subkey}"`);
    dest[subkey] = value ?? null;
  }
}

/** The request parameters of the raw (-f) and typed (-F) fields, in gh's order: raw first. */
export async function parseFields(raw: readonly string[], typed: readonly string[], readUserFile: (name: string) => Promise<string>): Promise<FieldMap> {
  const params: FieldMap = {};
  for (const f of raw) await addField(params, f, false, readUserFile);
  for (const f of typed) await addField(params, f, true, readUserFile);
  return params;
}

/** gh's addQueryParam: the parameters as query pairs. */
export function queryPairs(params: FieldMap): [string, string][] {
  const out: [string, string][] = [];
  const add = (key: string, v: FieldValue) => {
    if (v === null) out.push([key, '']);
    else if (Array.isArray(v)) for (const e of v) add(`${key}[]`, e);
    else if (typeof v === 'object') for (const [k, sub] of Object.entries(v)) add(k, sub);
    else out.push([key, String(v)]);
  };
  for (const [k, v] of Object.entries(params)) add(k, v);
  return out;
}

/**
 * The raw fields whose value `-F` would have sent as another type, by the path the service
 * names in its details (`metadata[n]` → `metadata.n`): the hint after a refusal.
 */
export function typedAlternatives(raw: readonly string[]): Map<string, { field: string; as: string }> {
  const out = new Map<string, { field: string; as: string }>();
  for (const f of raw) {
    const { keys, valueAt } = fieldKeys(f);
    if (valueAt < 0 || keys.includes('')) continue;
    const v = f.slice(valueAt);
    const as = integer(v) !== undefined ? 'a number' : v === 'true' || v === 'false' ? 'a boolean' : v === 'null' ? 'null' : undefined;
    if (as) out.set(keys.join('.'), { field: f, as });
  }
  return out;
}
