import type { AnyEndpoint } from '../../contract/index.js';
import type { BodyIdempotency } from '../../contract/endpoint.js';
import type { Db } from '../../store/db.js';
import type { AppDeps, HandlerInput, OwnedOperation, Principal, RequestContext } from '../context.js';
import { ApiError } from '../errors.js';
import { requestHash, withIdempotency, withIdempotencyInTx } from '../idempotency.js';
import { jsonAnswer, type Answer, type CoreRequest } from './request.js';
import type { Limits } from './limits.js';
import { shape, type Shaped } from './shape.js';

const IDEMPOTENCY_KEY_RE = /^[\x21-\x7e]{1,255}$/;

/**
 * The request's Idempotency-Key, when it has one that counts: on a POST with a JSON body, under
 * the secret key (keys belong to the merchant's secret key; the publishable-key operation,
 * tokenizing, is idempotent by itself and its body is card data, of which nothing may be kept).
 * A malformed key is a 400 on any authenticated POST.
 */
export function idempotencyKeyOf(e: AnyEndpoint, req: CoreRequest, principal: Principal): string | undefined {
  const header = e.method === 'POST' && !e.multipart && principal.merchantId ? req.header('idempotency-key') : undefined;
  if (header === undefined) return undefined;
  if (!IDEMPOTENCY_KEY_RE.test(header)) {
    throw new ApiError('validation_error', 'Idempotency-Key must be 1 to 255 printable ASCII characters', [
      { field: 'Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters' },
    ]);
  }
  return e.auth === 'secret' ? header : undefined;
}

/**
 * The idempotency stage: the handler runs at most once per (merchant, key); the same request
 * again replays the answer kept (`Idempotent-Replayed: true`), another body under the key is a
 * 409 (src/server/idempotency.ts). An endpoint declared `idempotency: 'in-transaction'` in the
 * contract has its key claimed, and its answer kept, in its handler's own transaction, which
 * writes through the store it is handed (`respond(db)`).
 */
export async function runIdempotent(
  deps: AppDeps,
  e: AnyEndpoint,
  merchantId: string,
  key: string,
  req: CoreRequest,
  raw: Uint8Array,
  respond: (db?: Db) => Promise<Shaped>,
): Promise<Answer> {
  const hash = requestHash(deps, e.method, req.path + req.search, raw);
  const outcome =
    e.idempotency === 'in-transaction'
      ? await withIdempotencyInTx(deps, merchantId, key, hash, (db) => respond(db))
      : await withIdempotency(deps, merchantId, key, hash, () => respond());
  if (outcome.replayed) return jsonAnswer(outcome.response.status, outcome.response.body, { 'Idempotent-Replayed': 'true' });
  return outcome.value;
}

/** An answer to one buyer's attempt, first or replayed: never stored by a cache. */
const OWNED_HEADERS = { 'Cache-Control': 'no-store' };

/**
 * The idempotency stage of an endpoint declared `idempotency: { bodyField }` (an operation
 * anyone may call): the key is that field of the body after the path's parameters (the
 * contract's BodyIdempotency), kept under the merchant the operation's `owner` names; the
 * request is told from another by its path and its parsed body. Once the key is claimed, the limit stage runs the
 * operation's `limit` (given back should the handler fail), then the handler and the shape stage.
 */
export async function runOwned(
  deps: AppDeps,
  e: AnyEndpoint,
  op: OwnedOperation<AnyEndpoint>,
  ctx: RequestContext,
  limits: Limits,
  input: HandlerInput<AnyEndpoint>,
): Promise<Answer> {
  const { merchantId, prepared } = await op.owner(ctx, input);
  const { prefix, bodyField } = e.idempotency as BodyIdempotency;
  const params = input.params as Record<string, string>;
  const path = e.path.replace(/\{(\w+)\}/g, (_, name: string) => params[name]!);
  const key = [prefix, ...Object.values(params), String((input.body as Record<string, unknown>)[bodyField])].join(' ');
  const hash = requestHash(deps, e.method, path, new TextEncoder().encode(JSON.stringify(input.body)));
  const outcome = await withIdempotency(deps, merchantId, key, hash, async () => {
    const giveBack = op.limit(limits, ctx, input, prepared);
    let result: unknown;
    try {
      result = await op.handle(ctx, input, prepared);
    } catch (err) {
      giveBack();
      throw err;
    }
    return shape(deps, e, ctx, result, input.page, true);
  });
  if (outcome.replayed) return jsonAnswer(outcome.response.status, outcome.response.body, { ...OWNED_HEADERS, 'Idempotent-Replayed': 'true' });
  Object.assign(outcome.value.headers, OWNED_HEADERS);
  return outcome.value;
}
