import type { AnyEndpoint } from '../../contract/index.js';
import { PAGE_DEFAULT, PER_PAGE_DEFAULT } from '../../contract/common.js';
import { UUID_RE } from '../../domain/ids.js';
import { JSON_LIMIT, PUBLIC_JSON_LIMIT, parseJsonBody } from '../body.js';
import type { PageRequest } from '../context.js';
import { ApiError } from '../errors.js';
import { parseWith, validationError } from '../validate.js';
import type { CoreRequest } from './request.js';

const EMPTY = new Uint8Array(0);

/** Path words whose resource has a name of its own (otherwise the word, singular, dashes as spaces). */
const RESOURCE_NAMES: Record<string, string> = { 'api-keys': 'API key', endpoints: 'Webhook endpoint', checkout: 'Payment link' };

/**
 * The resource a path parameter names, for "… not found": `{charge_id}` a charge; `{id}` the
 * path word before it (`/v1/sandbox/charges/{id}/pay` a charge, `/v1/api-keys/{id}` an API key).
 */
function resourceName(path: string, param: string): string {
  const segments = path.split('/');
  const word = param === 'id' ? (segments[segments.indexOf('{id}') - 1] ?? 'resource') : param.replace(/_id$/, '');
  const name = RESOURCE_NAMES[word] ?? word.replace(/s$/, '').replace(/[-_]/g, ' ');
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/** Path ids: a malformed UUID is a 404 of the resource it names, as an unknown one is. */
export function checkParams(e: AnyEndpoint, params: Record<string, string>): void {
  for (const k in params) {
    if ((k === 'id' || k.endsWith('_id')) && !UUID_RE.test(params[k]!)) throw new ApiError('not_found', `${resourceName(e.path, k)} not found`);
  }
}

function queryObject(search: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (search.length <= 1) return out;
  const dups: string[] = [];
  for (const [k, v] of new URLSearchParams(search)) {
    if (k in out) dups.push(k);
    out[k] = v;
  }
  if (dups.length) throw validationError('query', dups.map((k) => ({ field: k, message: 'must be given at most once' })));
  return out;
}

/** The query string against the endpoint's strict schema (an unknown parameter is a 400). */
export function parseQuery(e: AnyEndpoint, search: string): unknown {
  const raw = queryObject(search);
  if (e.query) return parseWith(e.query, raw, 'query');
  const keys = Object.keys(raw);
  if (keys.length) throw validationError('query', keys.map((k) => ({ field: k, message: 'is not a known query parameter' })));
  return undefined;
}

export function pageOf(query: unknown): PageRequest {
  const q = (query ?? {}) as { page?: number; per_page?: number };
  const page = q.page ?? PAGE_DEFAULT;
  const perPage = q.per_page ?? PER_PAGE_DEFAULT;
  return { page, perPage, limit: perPage, offset: (page - 1) * perPage };
}

/**
 * The JSON body of a write, up to 1 MiB with the secret key and 16 KiB for the operations
 * anyone may call. A multipart upload is read by its handler as a stream, never here.
 */
export function readBody(e: AnyEndpoint, req: CoreRequest): Promise<Uint8Array> {
  if (e.multipart || !(e.method === 'POST' || e.method === 'PUT' || e.method === 'PATCH' || e.method === 'DELETE')) return Promise.resolve(EMPTY);
  return req.body(e.auth === 'secret' ? JSON_LIMIT : PUBLIC_JSON_LIMIT);
}

/**
 * The body against the endpoint's strict schema (unknown fields are a 400); none where it takes
 * none. No body at all is an empty object; a JSON `null` is a value like any other, and not an
 * object.
 */
export function parseBody(e: AnyEndpoint, raw: Uint8Array, contentType: string | undefined): unknown {
  if (e.body) {
    const parsed = parseJsonBody(raw, contentType ?? null);
    return parseWith(e.body, parsed === undefined ? {} : parsed, 'body');
  }
  if (raw.byteLength) {
    const parsed = parseJsonBody(raw, contentType ?? null);
    if (parsed !== null && (typeof parsed !== 'object' || Object.keys(parsed as object).length)) {
      throw new ApiError('validation_error', 'This operation takes no request body');
    }
  }
  return undefined;
}
