import type { Endpoint, ItemOut, BodyOut, ParamsOf, QueryOut } from '../contract/endpoint.js';
import type { Db } from '../store/db.js';
import type { Limits } from './pipeline/limits.js';
import type { CoreRequest } from './pipeline/request.js';
import type { DuePolicy } from './pipeline/due.js';
import type { RateLimits } from './rateLimit.js';
import type { UploadLimits } from './uploadLimits.js';
import type { JsonText, Page, PagedRecord, PageRequest, ServiceContext, ServiceDeps } from './services/context.js';

// The services' side (src/server/services/context.ts), for the HTTP layer's modules
export { clockOffset, JsonText, serviceContext } from './services/context.js';
export type { BodyFor, DueContext, DueJob, EndpointFor, Mode, Page, PagedRecord, PageRequest, QueryFor, ServiceContext, ServiceDeps } from './services/context.js';

/** Everything the app needs: the services' deps and the settings of the request pipeline. */
export interface AppDeps extends ServiceDeps {
  /** the data directory (master.key; uploads when files are kept on disk; the scratch of uploads being read) */
  dataDir: string;
  /** uploads per merchant: the rate the pipeline spends before the body is read, and the services' quota and retention (src/server/uploadLimits.ts) */
  uploadLimits?: Partial<UploadLimits>;
  /**
   * Addresses and CIDR ranges of reverse proxies whose X-Forwarded-For is believed (the client
   * is the right-most hop that is not one of them); empty or absent: the peer is the client.
   */
  trustProxy?: string[];
  /** the API's rate limits (src/server/rateLimit.ts; unset parts take their defaults); null disables them */
  rateLimit?: RateLimits | null;
  /** token buckets of the public checkout (per client and per payment link); null disables them */
  checkoutRateLimit?: CheckoutRateLimit | null;
  /**
   * check every success response against the contract (an answer off it is a 500, logged): set
   * when the runtime is built — `mpay server start --check-responses`, and the test suites' runtimes
   */
  validateResponses?: boolean;
  /**
   * Serve the reads of stored rows again from the answer made at the same database state
   * (readMemo.ts); default true. False reads the store for every request.
   */
  readMemo?: boolean;
  /** work to run after each request's response is ready (e.g. a webhook worker kick) */
  onEvent?: () => void;
  /** when a request runs its merchant's due work first (src/server/pipeline/due.ts) */
  due: DuePolicy;
}

export interface CheckoutRateLimit {
  /** payment attempts per client (an IPv4 address, an IPv6 /64), spent before the body is read */
  payPerIp: { perSecond: number; burst: number };
  /** payments per payment link, shared so that strangers cannot spend it for a new buyer (rateLimit.ts LinkBudget) */
  payPerLink: { perSecond: number; burst: number };
  /** status polls per client */
  pollPerIp: { perSecond: number; burst: number };
}

export interface Principal {
  merchantId: string;
  apiKeyId: string;
  /** merchant's sandbox clock offset */
  clockOffsetMs: number;
  /** what the caller authenticated with: the secret key, the public key alone, or nothing */
  credential: 'secret' | 'public' | 'none';
  /** the merchant's BRL wallet, read with its key (a wallet's id never changes) */
  walletId?: string;
}

export interface RequestContext extends ServiceContext {
  deps: AppDeps;
  db: Db;
  /** the authenticated merchant; empty for endpoints without auth */
  merchantId: string;
  apiKeyId: string;
  requestId: string;
  /** the request as the pipeline received it (headers, the body as a stream for uploads) */
  readonly request: CoreRequest;
  /** the pipeline's limits, for the budgets a handler spends itself (the checkout's status polls) */
  readonly limits: Limits;
  clientIp: string;
  /** the client as per-client limits and holds count it (rateLimit.ts clientOf): an IPv4 address, an IPv6 /64 */
  client: string;
  baseUrl: string;
  /** the merchant's clock: the server clock moved by the merchant's sandbox offset */
  now(): Date;
  /** overrides the endpoint's success status */
  status?: number;
  /** overrides the endpoint's success message */
  message?: string;
}

export interface HandlerInput<E> {
  /** the path parameters named in the endpoint's template */
  params: ParamsOf<E>;
  query: QueryOut<E>;
  body: BodyOut<E>;
  page: PageRequest;
}

/**
 * An answer a handler made itself, not a record for the envelope: a download's bytes with
 * their headers.
 */
export class RawAnswer {
  constructor(
    readonly status: number,
    readonly headers: Record<string, string>,
    readonly body: string | Uint8Array | null,
  ) {}
}

export type HandlerResult<E> = E extends { list?: true }
  ? Page<ItemOut<E>> | Page<JsonText<ItemOut<E>>>
  : E extends { pages?: undefined }
    ? ItemOut<E> | JsonText<ItemOut<E>>
    : PagedRecord<ItemOut<E>>;

export type Handler<E> = (ctx: RequestContext, input: HandlerInput<E>) => Promise<HandlerResult<E> | RawAnswer>;

/**
 * The handler of an endpoint made idempotent by a field of its body (`idempotency: { bodyField }`
 * in the contract, an operation anyone may call), in the three steps the pipeline runs apart:
 * `owner` before the idempotency stage, `limit` once the key is claimed, then `handle`, whose
 * answer the shape stage makes. A retry of the same attempt runs `owner` only, then replays.
 */
export interface OwnedOperation<E, P = unknown> {
  /** checks the request and names the merchant its key is kept under; `prepared` is handed to the steps after it */
  owner(ctx: RequestContext, input: HandlerInput<E>): Promise<{ merchantId: string; prepared: P }>;
  /** the limit stage's: takes the resource's budget, and returns what gives it back should `handle` fail */
  limit(limits: Limits, ctx: RequestContext, input: HandlerInput<E>, prepared: P): () => void;
  handle(ctx: RequestContext, input: HandlerInput<E>, prepared: P): Promise<HandlerResult<E>>;
}

/** One handler per endpoint id of a group of endpoints. */
export type Handlers<Es extends readonly Endpoint[]> = { [E in Es[number] as E['id']]: Handler<E> | OwnedOperation<E, any> };
