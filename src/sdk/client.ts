import type { endpoints } from '../contract/index.js';
import type { BodyOf, DataOf, OperationRoute, QueryOf } from '../contract/endpoint.js';
// the contract's operations by id (method, path, credentials), generated from its endpoint table
// at build time: the client needs no schema, and loading the contract's (zod) took a remote
// command ~15 ms (bench/startup)
import operations from '#generated/operations.json' with { type: 'json' };
import { ApiError, AuthenticationError, NotMpayApiError, ValidationError, type ErrorDetail } from './errors.js';
import type { Transport } from './transport.js';

type Eps = (typeof endpoints)[number];
export type OperationId = Eps['id'];
export type Operation<I extends OperationId> = Extract<Eps, { id: I }>;

export interface Pagination {
  page: number;
  perPage: number;
  total: number;
  totalPages: number;
}

export interface Envelope<T = unknown> {
  success: boolean;
  message: string;
  data?: T;
  pagination?: Pagination;
  error?: string;
  details?: ErrorDetail[];
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  /** the parsed JSON body, or the text when it is not JSON */
  body: unknown;
  requestId?: string;
}

export type AuthMode = 'secret' | 'public' | 'none';

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined | null>;
  body?: unknown;
  /** raw bytes with their content type (multipart uploads); onProgress reports the bytes sent */
  rawBody?: RawBody;
  headers?: Record<string, string>;
  idempotencyKey?: string;
  auth?: AuthMode;
}

export interface CallOptions<I extends OperationId> {
  params?: Record<string, string>;
  query?: QueryOf<Operation<I>>;
  body?: BodyOf<Operation<I>>;
  rawBody?: RawBody;
  idempotencyKey?: string;
  headers?: Record<string, string>;
}

/**
 * The input of an operation whose id is known only at run time (any OperationId, e.g. a
 * command line's generic runner): the service validates the body and query, as for any caller.
 */
export interface AnyCallOptions {
  params?: Record<string, string>;
  query?: RequestOptions['query'];
  body?: unknown;
  rawBody?: RawBody;
  idempotencyKey?: string;
  headers?: Record<string, string>;
}

/**
 * What `callById` and `exchange` take: for an id written in the code (a literal, or a union of
 * some), that operation's CallOptions, checked; for an id of type OperationId (known only at run
 * time), AnyCallOptions.
 */
export type CallByIdOptions<I extends OperationId> = [OperationId] extends [I] ? AnyCallOptions : CallOptions<I>;

/** An operation's answer whatever its status: the envelope as far as the body is one. */
export interface Exchange<T> {
  status: number;
  headers: Record<string, string>;
  /** the JSON envelope; empty ({}) when the body is not a JSON object */
  envelope: Partial<Envelope<T>>;
  requestId?: string;
}

export interface RawBody {
  bytes: Uint8Array;
  contentType: string;
  /** called as the body is sent: bytes taken so far and the total (for a progress bar) */
  onProgress?: (sent: number, total: number) => void;
}

export interface Result<T> {
  data: T;
  message: string;
  status: number;
  pagination?: Pagination;
  requestId?: string;
}

export interface ClientOptions {
  transport: Transport;
  publicKey?: string;
  secretKey?: string;
  userAgent?: string;
  /** called with every exchange, for -v traces (credentials already redacted) */
  onTrace?: (t: { method: string; path: string; status: number; ms: number; requestId?: string }) => void;
}

const byId = new Map<string, OperationRoute>(Object.entries(operations));

export function toQueryString(query: RequestOptions['query']): string {
  if (!query) return '';
  const sp = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') sp.set(k, String(v));
  const s = sp.toString();
  return s ? `?${s}` : '';
}

/** Whether a body is the API's JSON envelope: an object with a boolean `success` and a `message`. */
export function isEnvelope(body: unknown): body is Envelope {
  return typeof body === 'object' && body !== null && typeof (body as Envelope).success === 'boolean' && typeof (body as Envelope).message === 'string';
}

/** Raises the SDK error that matches an error envelope. */
export function errorFromResponse(r: RawResponse): ApiError {
  const env = (typeof r.body === 'object' && r.body ? r.body : {}) as Envelope;
  const message = env.message ?? (typeof r.body === 'string' && r.body ? r.body.slice(0, 200) : `HTTP ${r.status}`);
  const code = env.error ?? 'http_error';
  const details = env.details ?? [];
  if (r.status === 401 || r.status === 403) return new AuthenticationError(message, r.status, code, details, r.requestId, r.headers);
  if (code === 'validation_error' && details[0]) return new ValidationError(message, details[0].field, details, r.status, r.requestId);
  return new ApiError(message, r.status, code, details, r.requestId, r.headers);
}

/** A typed client of the payments API over any transport. */
export class MpayClient {
  constructor(private readonly o: ClientOptions) {}

  get target(): string {
    return this.o.transport.target;
  }

  /** Sends a request and returns the response whatever its status. */
  async raw(method: string, path: string, opts: RequestOptions = {}): Promise<RawResponse> {
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': this.o.userAgent ?? 'mpay-sdk', ...opts.headers };
    const auth = opts.auth ?? 'secret';
    if (auth !== 'none' && this.o.publicKey) {
      const secret = auth === 'secret' ? (this.o.secretKey ?? '') : '';
      headers.authorization = 'Basic ' + Buffer.from(`${this.o.publicKey}:${secret}`).toString('base64');
    }
    if (opts.idempotencyKey) headers['idempotency-key'] = opts.idempotencyKey;
    let body: Uint8Array | string | undefined;
    if (opts.rawBody) {
      body = opts.rawBody.bytes;
      headers['content-type'] = opts.rawBody.contentType;
      // sent as a stream when progress is wanted: the length is declared all the same
      if (opts.rawBody.onProgress) headers['content-length'] = String(opts.rawBody.bytes.byteLength);
    } else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] = 'application/json';
    }
    const fullPath = path + toQueryString(opts.query);
    // timed only for a trace: the first use of `performance` loads Node's perf_hooks (~0.6 ms of
    // every command's start-up, bench/startup)
    const started = this.o.onTrace ? performance.now() : 0;
    const res = await this.o.transport.send({ method, path: fullPath, headers, body, onBodyProgress: opts.rawBody?.onProgress });
    const text = Buffer.from(res.body).toString('utf8');
    let parsed: unknown = text;
    if ((res.headers['content-type'] ?? '').includes('json')) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    const requestId = res.headers['x-request-id'];
    this.o.onTrace?.({ method, path: fullPath, status: res.status, ms: performance.now() - started, requestId });
    return { status: res.status, headers: res.headers, body: parsed, requestId };
  }

  /** Sends a request; returns the envelope's data or throws the matching error. */
  async request<T = unknown>(method: string, path: string, opts: RequestOptions = {}): Promise<Result<T>> {
    const r = await this.raw(method, path, opts);
    const env = r.body as Envelope<T>;
    if (!isEnvelope(r.body)) throw this.notMpay(method, path, r);
    if (r.status >= 400 || env.success !== true) throw errorFromResponse(r);
    return { data: env.data as T, message: env.message, status: r.status, pagination: env.pagination, requestId: r.requestId };
  }

  /** What answered when it is not the mpay API: its status, content type and the start of its body. */
  private notMpay(method: string, path: string, r: RawResponse): NotMpayApiError {
    const text = (typeof r.body === 'string' ? r.body : JSON.stringify(r.body)).replace(/\s+/g, ' ').trim();
    const excerpt = text === '' ? '(empty body)' : typeof r.body === 'string' && !/^[[{]/.test(text) ? JSON.stringify(text.slice(0, 120)) : text.slice(0, 120);
    return new NotMpayApiError(this.o.transport.target, method, path, r.status, r.headers['content-type']?.split(';')[0], excerpt + (text.length > 120 ? '…' : ''));
  }

  private resolve(id: string, params?: Record<string, string>): { e: OperationRoute; path: string } {
    const e = byId.get(id);
    if (!e) throw new Error(`unknown operation ${id}`);
    const path = e.path.replace(/\{([a-z_]+)\}/gi, (_, name: string) => {
      const v = params?.[name];
      if (v === undefined) throw new ValidationError(`${name} is required`, name);
      return encodeURIComponent(v);
    });
    return { e, path };
  }

  /** Calls an operation whose answer is raw bytes (a download); throws on an error status. */
  async download(id: OperationId, params: Record<string, string>): Promise<{ bytes: Uint8Array; contentType?: string; fileName?: string }> {
    const { e, path } = this.resolve(id, params);
    const headers: Record<string, string> = { 'user-agent': this.o.userAgent ?? 'mpay-sdk' };
    if (this.o.publicKey) headers.authorization = 'Basic ' + Buffer.from(`${this.o.publicKey}:${this.o.secretKey ?? ''}`).toString('base64');
    const res = await this.o.transport.send({ method: e.method, path, headers });
    if (res.status >= 400) {
      const text = Buffer.from(res.body).toString('utf8');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        /* not JSON */
      }
      const r = { status: res.status, headers: res.headers, body, requestId: res.headers['x-request-id'] };
      throw isEnvelope(body) ? errorFromResponse(r) : this.notMpay(e.method, path, r);
    }
    const cd = res.headers['content-disposition'] ?? '';
    const fileName = /filename="([^"]+)"/.exec(cd)?.[1];
    return { bytes: res.body, contentType: res.headers['content-type'], fileName };
  }

  /** The request of an operation: its method, its path with the params filled in, its credentials. */
  private requestOf(id: OperationId, opts: AnyCallOptions): { method: string; path: string; options: RequestOptions } {
    const { e, path } = this.resolve(id, opts.params);
    return {
      method: e.method,
      path,
      options: { query: opts.query, body: opts.body, rawBody: opts.rawBody, idempotencyKey: opts.idempotencyKey, headers: opts.headers, auth: e.auth },
    };
  }

  /** Calls an operation of the contract by id, e.g. call('apiKeys.create', { body: { name } }). */
  async call<I extends OperationId>(id: I, opts: CallOptions<I> = {} as CallOptions<I>): Promise<Result<DataOf<Operation<I>>>> {
    const r = this.requestOf(id, { ...opts, query: opts.query as RequestOptions['query'] });
    return this.request(r.method, r.path, r.options);
  }

  /**
   * Calls an operation whose id may be known only at run time, e.g. an id read from the
   * contract's table: `callById(spec.id, { params, body })`. With an id written in the code it
   * is `call` (the input is checked against that operation); with an OperationId the input is
   * AnyCallOptions and the answer the union of the operations' data.
   */
  async callById<I extends OperationId>(id: I, opts: CallByIdOptions<I> = {}): Promise<Result<DataOf<Operation<I>>>> {
    const r = this.requestOf(id, opts);
    return this.request(r.method, r.path, r.options);
  }

  /**
   * Calls an operation and returns its answer whatever the status (no error is thrown for a
   * refusal): for a caller that reports refusals itself, e.g. a webhook listener registering its
   * endpoint. Network failures still throw.
   */
  async exchange<I extends OperationId>(id: I, opts: CallByIdOptions<I> = {}): Promise<Exchange<DataOf<Operation<I>>>> {
    const r = this.requestOf(id, opts);
    const res = await this.raw(r.method, r.path, r.options);
    const envelope: Partial<Envelope<DataOf<Operation<I>>>> = typeof res.body === 'object' && res.body !== null ? res.body : {};
    return { status: res.status, headers: res.headers, envelope, requestId: res.requestId };
  }

  /** Walks every page of a list operation. */
  async *paginate<I extends OperationId>(id: I, opts: CallOptions<I> = {} as CallOptions<I>): AsyncGenerator<Result<DataOf<Operation<I>>>> {
    let page = Number((opts.query as { page?: number } | undefined)?.page ?? 1);
    for (;;) {
      const r = await this.call(id, { ...opts, query: { ...opts.query, page } as QueryOf<Operation<I>> });
      yield r;
      if (!r.pagination || page >= r.pagination.totalPages) return;
      page++;
    }
  }
}
