/**
 * What a service is given: its deps and the merchant it acts for. Nothing here knows HTTP —
 * no request, header, rate limit or pipeline setting: those are the app's deps and a request's
 * context (src/server/context.ts), which extend these. scripts/check-imports.mjs keeps the
 * services, types included, from importing the HTTP layer.
 */
import type { BodyOut, QueryOut } from '../../contract/endpoint.js';
import type { endpoints } from '../../contract/index.js';
import type { IdGenerator } from '../../domain/ids.js';
import type { Pricing } from '../../domain/pricing.js';
import type { Db } from '../../store/db.js';
import type { FileStore } from '../../store/files.js';
import type { Caches } from './caches.js';
import type { Clock } from '../clock.js';
import type { Keyring } from '../keyring.js';
import type { UploadRules } from './uploadQuota.js';

export type Mode = 'sandbox' | 'production';

/** What the services need from outside, injected so tests can replace any of it. */
export interface ServiceDeps {
  db: Db;
  clock: Clock;
  ids: IdGenerator;
  keyring: Keyring;
  /** where uploaded files live: a directory (SQLite) or the database (PostgreSQL); see store/files.ts */
  files: FileStore;
  mode: Mode;
  /** the server's pricing (`--pricing FILE` / MPAY_PRICING, else the defaults); a merchant's override is laid over it (services/pricing.ts) */
  pricing: Pricing;
  /** public origin for links the service hands out (checkout_url, file url) */
  publicBaseUrl?: string;
  /** structured log lines (the pipeline's, due work's and the webhook worker's); never bodies or headers */
  log?: (entry: Record<string, unknown>) => void;
  /** the runtime's caches (services/caches.ts) */
  caches: Caches;
  /** due work: how many items each job moves per call (one transaction per batch) */
  due: { readonly batch: number };
  /** what a merchant's stored uploads may take and how long an unattached one is kept (services/uploadQuota.ts); unset parts take their defaults */
  uploadLimits?: Partial<UploadRules>;
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

/** The page a list asks for: `page` and `perPage` as given, `limit` and `offset` for the SQL. */
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

/**
 * A record already serialised: `text` is exactly what JSON.stringify of the record gives. The
 * pipeline puts it into the envelope as it is (no parse, no second stringify); it is parsed
 * only where the object is needed (response validation, a kept Idempotency-Key answer).
 */
export class JsonText<T> {
  declare readonly of?: T;
  constructor(readonly text: string) {}
}

/** The endpoint of the contract with this id. */
export type EndpointFor<Id extends (typeof endpoints)[number]['id']> = Extract<(typeof endpoints)[number], { id: Id }>;
/** The parsed body of an endpoint, as a service takes it. */
export type BodyFor<Id extends (typeof endpoints)[number]['id']> = BodyOut<EndpointFor<Id>>;
/** The parsed query of an endpoint, as a service takes it. */
export type QueryFor<Id extends (typeof endpoints)[number]['id']> = QueryOut<EndpointFor<Id>>;
