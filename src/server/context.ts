import type { Endpoint, ItemOut, BodyOut, ParamsOf, QueryOut } from '../contract/endpoint.js';
import type { endpoints } from '../contract/index.js';
import type { IdGenerator } from '../domain/ids.js';
import type { Db } from '../store/db.js';
import type { FileStore } from '../store/files.js';
import type { Caches } from './caches.js';
import type { Clock } from './clock.js';
import type { Limits } from './pipeline/limits.js';
import type { CoreRequest } from './pipeline/request.js';
import type { Keyring } from './keyring.js';
import type { DuePolicy } from './pipeline/due.js';
import type { RateLimits } from './rateLimit.js';
import type { UploadLimits } from './uploadLimits.js';

export type Mode = 'sandbox' | 'production';

/** What the services need from outside, injected so tests can replace any of it. */
export interface ServiceDeps {
  db: Db;
  clock: Clock;
  ids: IdGenerator;
  keyring: Keyring;
  /** the data directory (master.key; uploads when files are kept on disk) */
  dataDir: string;
  /** where uploaded files live: a directory (SQLite) or the database (PostgreSQL); see store/files.ts */
  files: FileStore;
  mode: Mode;
  /** public origin for links the service hands out (checkout_url, file url) */
  publicBaseUrl?: string;
  /** one structured line per request and per internal error; never bodies or headers */
  log?: (entry: Record<string, unknown>) => void;
  /** the runtime's caches (src/server/caches.ts) */
  caches: Caches;
  /** due work: how many items each job moves per call (one transaction per batch) */
  due: { readonly batch: number };
  /** uploads per merchant: rate, storage quota, retention of unattached uploads (src/server/uploadLimits.ts); unset parts take their defaults */
  uploadLimits?: Partial<UploadLimits>;
}

/** Everything the app needs: the services' deps and the settings of the request pipeline. */
export interface AppDeps extends ServiceDeps {
  /**
   * Addresses and CIDR ranges of reverse proxies whose X-Forwarded-For is believed (the client
   * is the right-most hop that is not one of them); empty or absent: the peer is the client.
   */
  trustProxy?: string[];
  /** the API's rate limits (src/server/rateLimit.ts; unset parts take their defaults); null disables them */
  rateLimit?: RateLimits | null;
  /** token buckets of the public checkout (per client and per payment link); null disables them */
  checkoutRateLimit?: CheckoutRateLimit | null;
  /** check every success response against the contract (tests turn this on) */
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

/**
 * What a service needs to act for a merchant: the store, the deps, the merchant and its clock
 * (and the public origin, for links it hands out). Route handlers, the hosted checkout, due work,
 * the CLI's admin commands and tests all call services with one of these.
 */
export interface ServiceContext {
  deps: ServiceDeps;
  db: Db;
  merchantId: string;
  /** the merchant's clock: the server clock moved by the merchant's sandbox offset */
  now(): Date;
  /** public origin for links the service hands out */
  baseUrl?: string;
  /** the merchant's BRL wallet, when the caller knows it already (a request: its principal); else read */
  walletId?: string;
}

/**
 * The clock offset a merchant's stored `clock_offset_ms` gives in this mode: the sandbox's
 * `POST /v1/sandbox/clock/advance` moves it; production has no sandbox clock, so an offset left
 * in a database created in sandbox mode moves nothing there.
 */
export function clockOffset(deps: Pick<ServiceDeps, 'mode'>, storedMs: number | string | null | undefined): number {
  return deps.mode === 'production' ? 0 : Number(storedMs ?? 0);
}

/** The ServiceContext of a merchant whose sandbox clock is `clockOffsetMs` ahead of the server's (none in production). */
export function serviceContext(deps: ServiceDeps, merchantId: string, clockOffsetMs: number, baseUrl?: string): ServiceContext {
  const offset = clockOffset(deps, clockOffsetMs);
  return { deps, db: deps.db, merchantId, now: () => new Date(deps.clock.now().getTime() + offset), ...(baseUrl !== undefined ? { baseUrl } : {}) };
}

/** What a due job needs (src/server/due.ts): a merchant's service context. */
export type DueContext = ServiceContext;
export type DueJob = (ctx: DueContext) => Promise<number | void>;

export interface RequestContext extends ServiceContext {
  deps: AppDeps;
  db: Db;
  /** the authenticated merchant; empty for endpoints without auth */
  merchantId: string;
  apiKeyId: string;
  requestId: string;
  /** the request as the pipeline received it (headers, the body as a stream for uploads) */
  readonly request: CoreRequest;
  /** the pipeline's limits, for the budgets a handler spends itself (the checkout's link budget) */
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

export interface PageRequest {
  page: number;
  perPage: number;
  limit: number;
  offset: number;
}

export interface Page<T> {
  items: T[];
  total: number;
}

/** A record one of whose fields is a page of a list (an endpoint's `pages`), and that list's total. */
export interface PagedRecord<T> {
  record: T;
  total: number;
}

export interface HandlerInput<E> {
  /** the path parameters named in the endpoint's template */
  params: ParamsOf<E>;
  query: QueryOut<E>;
  body: BodyOut<E>;
  page: PageRequest;
}

/**
 * A record a handler has already serialised: `text` is exactly what JSON.stringify of the
 * record gives. The pipeline puts it into the envelope as it is (no parse, no second
 * stringify); it is parsed only where the object is needed (response validation, a kept
 * Idempotency-Key answer).
 */
export class JsonText<T> {
  declare readonly of?: T;
  constructor(readonly text: string) {}
}

/**
 * An answer a handler made itself, not a record for the envelope: a download's bytes with
 * their headers, or an envelope already made (the checkout's payment).
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

/** One handler per endpoint id of a group of endpoints. */
export type Handlers<Es extends readonly Endpoint[]> = { [E in Es[number] as E['id']]: Handler<E> };

/** The endpoint of the contract with this id. */
export type EndpointFor<Id extends (typeof endpoints)[number]['id']> = Extract<(typeof endpoints)[number], { id: Id }>;
/** The parsed body of an endpoint, as a service takes it. */
export type BodyFor<Id extends (typeof endpoints)[number]['id']> = BodyOut<EndpointFor<Id>>;
/** The parsed query of an endpoint, as a service takes it. */
export type QueryFor<Id extends (typeof endpoints)[number]['id']> = QueryOut<EndpointFor<Id>>;
