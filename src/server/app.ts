import { Hono, type Context } from 'hono';
import { endpoints, honoPath, type AnyEndpoint, PAGE_DEFAULT, PER_PAGE_DEFAULT, envelope, listEnvelope } from '../contract/index.js';
import { InvalidTransitionError } from '../domain/lifecycle.js';
import { AuthCache, authenticate, blockListOf, ipIn, normalizeIp, WrongSecretError } from './auth.js';
import { isIP, type BlockList } from 'node:net';
import { JSON_LIMIT, PUBLIC_JSON_LIMIT, parseJsonBody, readCapped, readIncomingCapped } from './body.js';
import type { IncomingMessage } from 'node:http';
import { JsonText, type AppEnv as Env, type AppDeps, type Handler, type Page, type Principal, type RequestContext } from './context.js';
import { ApiError, CLIENT_CLOSED_STATUS, ClientClosedError } from './errors.js';
import { StoreUnavailable, type Db } from '../store/db.js';
import { errorBody, keptAnswer, keptText, requestHash, withIdempotency, withIdempotencyInTx, type StoredResponse } from './idempotency.js';
import { ApiLimits, clientOf, DEFAULT_RATE_LIMITS, takePublicBodyToken } from './rateLimit.js';
import { handlers, rawRoutes } from './routes/index.js';
import { runDueJobs } from './due.js';
import { MAX_MEMO_SEARCH, MEMO_ENDPOINTS, ReadMemo } from './readMemo.js';
import { parseWith, validationError } from './validate.js';
import { buildOpenApi } from '../contract/openapi.js';
import { UUID_RE } from '../domain/ids.js';

const IDEMPOTENCY_KEY_RE = /^[\x21-\x7e]{1,255}$/;
const JSON_TYPE = 'application/json; charset=utf-8';
/** How long (merchant time) a request may skip the due work after a run that moved nothing. */
export const DUE_SKIP_MS = 100;

export function errorResponse(err: ApiError): Response {
  return new Response(errorBody(err), { status: err.status, headers: { 'content-type': JSON_TYPE, ...err.headers } });
}

function toApiError(err: unknown, deps: AppDeps, requestId: string): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof InvalidTransitionError) return new ApiError('invalid_state', err.message);
  const code = (err as { code?: string })?.code;
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_SNAPSHOT' || err instanceof StoreUnavailable) {
    return new ApiError('service_unavailable', 'The service is busy; retry shortly', undefined, { 'Retry-After': '1' });
  }
  deps.log?.({ level: 'error', request_id: requestId, error: (err as Error)?.name, message: (err as Error)?.message, stack: (err as Error)?.stack });
  return new ApiError('internal_error', `Internal error; quote request id ${requestId} to support`);
}

function resourceName(e: AnyEndpoint): string {
  return (e.tag.replace(/s$/, '') || 'resource');
}

function queryObject(search: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (search.length <= 1) return out;
  const dups: string[] = [];
  for (const [k, v] of new URLSearchParams(search)) {
    if (k in out) dups.push(k);
    out[k] = v;
  }
  if (dups.length) {
    throw validationError('query', dups.map((k) => ({ field: k, message: 'must be given at most once' })));
  }
  return out;
}

/** Node's incoming message, when the app is served by the HTTP server (not in-process). */
function incomingOf(c: Context): IncomingMessage | undefined {
  return (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
}

/** The query string of the request (with its '?', or ''), without parsing the whole URL on Node. */
function searchOf(c: Context): string {
  const raw = incomingOf(c)?.url;
  if (raw !== undefined) {
    const i = raw.indexOf('?');
    return i < 0 ? '' : raw.slice(i);
  }
  return new URL(c.req.url).search;
}

/** A request header; on Node straight from the incoming message (no Headers object built). */
function headerOf(c: Context, name: string): string | undefined {
  const incoming = incomingOf(c);
  if (incoming?.headers) {
    const v = incoming.headers[name];
    return Array.isArray(v) ? v.join(', ') : v;
  }
  return c.req.header(name);
}

/**
 * The client is gone: its socket closed (or, in-process, its request was aborted) before the
 * answer was ready. Whatever the handler made of the cut-off request is logged as 499.
 */
export function incomingGone(incoming: IncomingMessage): boolean {
  return incoming.socket?.destroyed === true || (incoming.destroyed && !incoming.complete);
}

function clientGone(c: Context): boolean {
  const incoming = incomingOf(c);
  if (incoming) return incomingGone(incoming);
  return c.req.raw.signal?.aborted === true;
}

/**
 * The request body has not all arrived although the answer is ready (a refusal before or while
 * reading it). The server would discard the rest only up to a point and then break the socket
 * under a keep-alive client, so the answer says `Connection: close` instead.
 */
export function incomingBodyLeftUnread(incoming: IncomingMessage, method: string): boolean {
  return !incoming.complete && method !== 'GET' && method !== 'HEAD';
}

function bodyLeftUnread(c: Context): boolean {
  const incoming = incomingOf(c);
  return incoming !== undefined && incomingBodyLeftUnread(incoming, c.req.method);
}

/**
 * The client's address: the peer's, or, when the peer is a trusted proxy (--trust-proxy), the
 * right-most X-Forwarded-For hop that is not a trusted proxy (left parts are the client's own
 * claims and are not believed). A hop that is not an address ends the walk.
 */
function clientIpOf(req: CoreRequest, trusted: BlockList | null): string {
  const peer = normalizeIp(req.peerAddress ?? '127.0.0.1');
  if (!trusted || !ipIn(trusted, peer)) return peer;
  const forwarded = req.header('x-forwarded-for');
  if (!forwarded) return peer;
  const hops = forwarded.split(',');
  let ip = peer;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = normalizeIp(hops[i]!.trim());
    if (!isIP(hop)) break;
    ip = hop;
    if (!ipIn(trusted, hop)) break;
  }
  return ip;
}

/**
 * What the pipeline needs of a request, whoever received it: Hono (in-process calls, the
 * routes that are not API endpoints) or the node:http server's direct path (src/server/http.ts),
 * which builds no Web Request, stream or AbortSignal for it.
 */
export interface CoreRequest {
  readonly method: string;
  /** the path, without the query string */
  readonly path: string;
  /** the query string with its '?', or '' */
  readonly search: string;
  /** the peer's address (the socket's), before any trusted proxy is looked through */
  readonly peerAddress: string | undefined;
  /** a request header by its lower-case name */
  header(name: string): string | undefined;
  /** the body, up to `max` bytes (past that a 413) */
  body(max: number): Promise<Uint8Array>;
  /** the request as a Web Request, built only when a handler asks for it */
  web(): Request;
  /** the client went away before the answer was ready */
  gone(): boolean;
  /** the answer is ready before the whole body arrived (it then says Connection: close) */
  bodyLeftUnread(): boolean;
  /** the request id chosen before the pipeline ran (Hono's middleware), if any */
  readonly requestId?: string;
}

/** The pipeline's answer: a JSON text, or a Response a handler built itself (a file download). */
export interface CoreAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  response?: Response;
}

/** An API endpoint matched by `App.core.match`, with its path parameters. */
export interface CoreRoute {
  e: AnyEndpoint;
  h: Handler<AnyEndpoint>;
  params: Record<string, string>;
}

export type App = Hono<Env> & {
  /** the request pipeline every API endpoint goes through, for the node:http server's direct path */
  core: {
    /** the endpoint of a method and path (no percent-encoding, no empty segment), or undefined */
    match(method: string, path: string): CoreRoute | undefined;
    handle(req: CoreRequest, route: CoreRoute): Promise<CoreAnswer>;
  };
};

/** A small router over the contract's paths: a route with fewer {param} segments first. */
class Router {
  private readonly byMethod = new Map<string, Array<{ segs: string[]; names: (string | null)[]; e: AnyEndpoint; h: Handler<AnyEndpoint> }>>();

  add(e: AnyEndpoint, h: Handler<AnyEndpoint>): void {
    const segs = e.path.split('/');
    const names = segs.map((s) => (/^\{[a-z_]+\}$/i.test(s) ? s.slice(1, -1) : null));
    let list = this.byMethod.get(e.method);
    if (!list) this.byMethod.set(e.method, (list = []));
    list.push({ segs, names, e, h });
    list.sort((a, b) => a.names.filter(Boolean).length - b.names.filter(Boolean).length);
  }

  match(method: string, path: string): CoreRoute | undefined {
    const list = this.byMethod.get(method);
    if (!list || path.includes('%')) return undefined;
    const segs = path.split('/');
    outer: for (const r of list) {
      if (r.segs.length !== segs.length) continue;
      let params: Record<string, string> | undefined;
      for (let i = 0; i < segs.length; i++) {
        const name = r.names[i];
        const s = segs[i]!;
        if (name === null || name === undefined) {
          if (s !== r.segs[i]) continue outer;
        } else {
          if (s === '') continue outer;
          (params ??= {})[name] = s;
        }
      }
      return { e: r.e, h: r.h, params: params ?? {} };
    }
    return undefined;
  }
}

/**
 * The service: one Hono app built from the contract's endpoint table. Every endpoint goes
 * through the same pipeline: authenticate → rate limit → due work → parse params, query and
 * body strictly → Idempotency-Key → handler → envelope.
 */
export function createApp(deps: AppDeps): App {
  const app = new Hono<Env>();
  const limits = deps.rateLimit === null ? null : new ApiLimits(deps.rateLimit ?? DEFAULT_RATE_LIMITS);
  // Due work found nothing to move for a merchant at merchant-time `at`, with `writes` writes
  // served so far: the next request may skip it while neither has moved on (see dueSkip).
  const dueIdle = new Map<string, { at: number; writes: number }>();
  let writes = 0;
  const authCache = new AuthCache();
  const memo = deps.readMemo === false ? null : new ReadMemo();
  const router = new Router();
  let trustedList: string[] | undefined;
  let trusted: BlockList | null = null;
  const trustedProxies = (): BlockList | null => {
    if (deps.trustProxy !== trustedList) {
      trustedList = deps.trustProxy;
      trusted = trustedList?.length ? blockListOf(trustedList) : null;
    }
    return trusted;
  };

  // request id and request log of what is not an API endpoint (pages, probes, 404, 405);
  // API endpoints do both in `handle`, whichever server received them
  app.use('*', async (c, next) => {
    const requestId = requestIdOf(headerOf(c, 'x-request-id'));
    c.set('requestId', requestId);
    const started = performance.now();
    await next();
    if (c.get('logged')) return;
    c.res.headers.set('X-Request-Id', requestId);
    if (bodyLeftUnread(c)) c.res.headers.set('Connection', 'close');
    logRequest(requestId, c.req.method, c.req.path, clientGone(c) ? CLIENT_CLOSED_STATUS : c.res.status, started);
  });

  app.onError((err, c) => {
    // a cut-off request is not an internal error: no error entry, no stack (logged as 499 above)
    if (err instanceof ClientClosedError || clientGone(c)) return new Response(null, { status: CLIENT_CLOSED_STATUS });
    return errorResponse(toApiError(err, deps, c.get('requestId')));
  });
  app.notFound((c) => errorResponse(new ApiError('not_found', `No such route: ${c.req.method} ${c.req.path}`)));

  let openapi: Record<string, unknown> | undefined;
  app.get('/openapi.json', (c) => {
    openapi ??= buildOpenApi({ sandbox: deps.mode !== 'production' });
    return c.json({ ...openapi, servers: [{ url: deps.publicBaseUrl ?? new URL(c.req.url).origin }] });
  });
  app.get('/healthz', (c) => c.json({ success: true, message: 'ok', data: { status: 'ok' } }));
  app.get('/readyz', async (c) => {
    await deps.db.get('SELECT 1 AS ok');
    return c.json({ success: true, message: 'ready', data: { status: 'ready' } });
  });

  const table = handlers as Record<string, Handler<AnyEndpoint> | undefined>;
  const seen = new Set<string>();
  for (const e of endpoints as readonly AnyEndpoint[]) {
    const h = table[e.id];
    if (!h) throw new Error(`no handler for endpoint ${e.id}`);
    // Sandbox routes do not exist in production: a 404, not a 405 from the fallback below.
    if (e.sandbox && deps.mode === 'production') continue;
    seen.add(`${e.method} ${honoPath(e.path)}`);
    router.add(e, h);
    app.on(e.method, honoPath(e.path), async (c) => {
      c.set('logged', true);
      return toResponse(await handle(honoRequest(c), { e, h, params: c.req.param() as Record<string, string> }));
    });
  }
  for (const r of rawRoutes) r(app, deps);

  // A known path with another method is a 405, not a 404.
  const byPath = new Map<string, string[]>();
  for (const k of seen) {
    const [m, p] = k.split(' ') as [string, string];
    byPath.set(p, [...(byPath.get(p) ?? []), m]);
  }
  for (const [p, methods] of byPath) {
    app.all(p, (c) =>
      errorResponse(
        new ApiError('method_not_allowed', `${c.req.method} is not allowed on ${c.req.path}; use ${methods.join(', ')}`, undefined, {
          Allow: methods.join(', '),
        }),
      ),
    );
  }

  function logRequest(requestId: string, method: string, path: string, status: number, started: number): void {
    deps.log?.({ level: 'info', request_id: requestId, method, path, status, ms: Math.round((performance.now() - started) * 10) / 10 });
  }

  /**
   * The pipeline of every API endpoint, on either server: request id → authenticate → rate
   * limit → due work → params, query and body → Idempotency-Key → handler → envelope; every
   * error becomes its envelope here, and every request leaves one line in the request log.
   */
  async function handle(req: CoreRequest, route: CoreRoute): Promise<CoreAnswer> {
    const started = performance.now();
    const requestId = req.requestId ?? requestIdOf(req.header('x-request-id'));
    let out: CoreAnswer;
    try {
      out = await run(req, route, requestId);
    } catch (err) {
      if (err instanceof ClientClosedError || req.gone()) {
        // a cut-off request is not an internal error: no error entry, no stack (logged as 499)
        out = { status: CLIENT_CLOSED_STATUS, headers: {}, body: '' };
      } else {
        const e = toApiError(err, deps, requestId);
        out = { status: e.status, headers: { 'content-type': JSON_TYPE, ...e.headers }, body: errorBody(e) };
      }
    }
    const headers = out.response ? null : out.headers;
    if (headers) headers['X-Request-Id'] = requestId;
    else out.response!.headers.set('X-Request-Id', requestId);
    if (req.bodyLeftUnread()) {
      if (headers) headers.Connection = 'close';
      else out.response!.headers.set('Connection', 'close');
    }
    logRequest(requestId, req.method, req.path, req.gone() ? CLIENT_CLOSED_STATUS : out.status, started);
    return out;
  }

  async function run(req: CoreRequest, route: CoreRoute, requestId: string): Promise<CoreAnswer> {
    const { e, h: handler, params } = route;
    const clientIp = clientIpOf(req, trustedProxies());
    const client = clientOf(clientIp);
    let principal: Principal = NO_PRINCIPAL;
    // The store's change token, read once for the auth cache and, while this request has not
    // awaited since, for the read memo too: one synchronous run sees one database state (its
    // answer is that state's, and the request was in flight when it was read). Any await (a key
    // read from the store, due work) drops it: the memo then reads the token again.
    let token: string | undefined;
    if (e.auth !== 'none') {
      const authorization = req.header('authorization');
      try {
        token = deps.db.changeToken?.();
        const auth = authenticate(deps, e.auth, authorization, clientIp, authCache, token);
        if (auth instanceof Promise) {
          token = undefined;
          principal = await auth;
        } else principal = auth;
      } catch (err) {
        if (limits && err instanceof ApiError && err.status === 401) {
          throw limits.authFailed(err, client, err instanceof WrongSecretError ? err.publicKey : undefined, Date.now());
        }
        throw err;
      }
      limits?.afterAuth(principal, client, Date.now());
    }
    const search = req.search;
    const ctx = new PipelineContext(deps, principal, requestId, clientIp, client, req);
    if (principal.merchantId) {
      const at = ctx.now().getTime();
      if (!dueSkippable(principal.merchantId, at)) {
        token = undefined;
        await runDue(ctx, at);
      }
    }

    for (const k in params) {
      if ((k === 'id' || k.endsWith('_id')) && !UUID_RE.test(params[k]!)) throw new ApiError('not_found', `${resourceName(e)} not found`);
    }
    const rawQuery = queryObject(search);
    let query: unknown;
    if (e.query) query = parseWith(e.query, rawQuery, 'query');
    else if (Object.keys(rawQuery).length) {
      throw validationError('query', Object.keys(rawQuery).map((k) => ({ field: k, message: 'is not a known query parameter' })));
    }
    const q = (query ?? {}) as { page?: number; per_page?: number };
    const pageNo = q.page ?? PAGE_DEFAULT;
    const perPage = q.per_page ?? PER_PAGE_DEFAULT;
    const page = { page: pageNo, perPage, limit: perPage, offset: (pageNo - 1) * perPage };

    // a charge read against the database state of an answer already made: that answer (readMemo.ts)
    const memoKey =
      memo !== null && MEMO_ENDPOINTS.has(e.id) && search.length <= MAX_MEMO_SEARCH ? `${e.id}\n${principal.merchantId}\n${req.path}${search}` : undefined;
    const memoToken = memoKey === undefined ? undefined : (token ?? deps.db.changeToken?.());
    if (memoToken !== undefined) {
      const body = memo!.get(memoKey!, memoToken);
      if (body !== undefined) return { status: 200, headers: { 'content-type': JSON_TYPE }, body };
    }

    let raw: Uint8Array = EMPTY;
    if (!e.multipart && (e.method === 'POST' || e.method === 'PUT' || e.method === 'PATCH' || e.method === 'DELETE')) {
      // operations anyone may call: their client's budget first (before reading), and small bodies
      if (e.auth === 'none') takePublicBodyToken(deps, client);
      raw = await req.body(e.auth === 'secret' ? JSON_LIMIT : PUBLIC_JSON_LIMIT);
    }
    const idemHeader = e.method === 'POST' && !e.multipart && principal.merchantId ? req.header('idempotency-key') : undefined;
    if (idemHeader !== undefined && !IDEMPOTENCY_KEY_RE.test(idemHeader)) {
      throw new ApiError('validation_error', 'Idempotency-Key must be 1 to 255 printable ASCII characters', [
        { field: 'Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters' },
      ]);
    }
    // Idempotency-Keys belong to the secret key: only secret-key operations keep them. The
    // publishable-key operation (tokenize) is idempotent by itself (the same card gives the
    // same token) and its body is card data, of which nothing may be kept.
    const idemKey = e.auth === 'secret' ? idemHeader : undefined;
    const respond = async (db?: Db): Promise<{ value: CoreAnswer; keep: StoredResponse }> => {
      if (db) ctx.db = db;
      let body: unknown;
      if (e.body) body = parseWith(e.body, parseJsonBody(raw, req.header('content-type') ?? null) ?? {}, 'body');
      else if (raw.byteLength) {
        const parsed = parseJsonBody(raw, req.header('content-type') ?? null);
        if (parsed !== null && (typeof parsed !== 'object' || Object.keys(parsed as object).length)) {
          throw new ApiError('validation_error', 'This operation takes no request body');
        }
      }
      const result = await handler(ctx, { params, query: query as never, body: body as never, page });
      if (isWebResponse(result)) {
        const keep = { status: result.status, body: idemKey ? await result.clone().text() : '' };
        return { value: { status: result.status, headers: {}, body: '', response: result }, keep };
      }
      const status = ctx.status ?? e.status ?? (e.method === 'POST' ? 201 : 200);
      const message = ctx.message ?? e.message;
      const serialised = serialisedEnvelope(e.list ? (result as Page<unknown>) : result, message, e.list ? { page: pageNo, perPage } : undefined);
      if (serialised !== undefined) {
        // the same text JSON.stringify gives of the envelope below; the object only where it is needed
        if (deps.validateResponses) (e.list ? listEnvelope(e.response) : envelope(e.response)).parse(JSON.parse(serialised));
        return {
          value: { status, headers: { 'content-type': JSON_TYPE }, body: serialised },
          keep: { status, body: idemKey ? keptText(serialised) : serialised },
        };
      }
      let out: Record<string, unknown>;
      if (e.list) {
        const p = result as Page<unknown>;
        out = {
          success: true,
          message,
          data: p.items,
          pagination: { page: pageNo, perPage, total: p.total, totalPages: Math.ceil(p.total / perPage) },
        };
        if (deps.validateResponses) listEnvelope(e.response).parse(out);
      } else {
        out = { success: true, message, data: result };
        if (deps.validateResponses) envelope(e.response).parse(out);
      }
      const text = JSON.stringify(out);
      return { value: { status, headers: { 'content-type': JSON_TYPE }, body: text }, keep: { status, body: idemKey ? keptAnswer(out) : text } };
    };
    try {
      let res: CoreAnswer;
      if (idemKey) {
        const hash = requestHash(deps, e.method, req.path + search, raw);
        const outcome = CLAIM_IN_HANDLER_TX.has(e.id)
          ? await withIdempotencyInTx(deps, principal.merchantId, idemKey, hash, respond)
          : await withIdempotency(deps, principal.merchantId, idemKey, hash, () => respond());
        if (outcome.replayed) {
          return {
            status: outcome.response.status,
            headers: { 'content-type': JSON_TYPE, 'Idempotent-Replayed': 'true' },
            body: outcome.response.body,
          };
        }
        res = outcome.value;
      } else res = (await respond()).value;
      if (memoToken !== undefined && res.status === 200 && !res.response) memo!.set(memoKey!, memoToken, res.body);
      // a write may have queued events: let a running delivery worker look at once
      if (e.method !== 'GET') {
        writes++;
        deps.onEvent?.();
      }
      return res;
    } catch (err) {
      if (e.method !== 'GET') writes++;
      throw err;
    }
  }

  /**
   * The due work of the caller's merchant, before its request. Every job is one indexed
   * query when nothing is due; on the hot path that is most of a read's cost, so when a run
   * moved nothing, the next requests may skip it, as `deps.dueSkip` says: 'window' (the
   * default) within DUE_SKIP_MS of merchant time after it, so a time-based move — including one
   * a write just scheduled — can show up to DUE_SKIP_MS late on the request path (server mode
   * also sweeps every second); 'same-instant' only at the very same instant and only while this
   * app served no write, since a write may make something due at that instant; 'never' never.
   */
  function dueSkippable(merchantId: string, at: number): boolean {
    const policy = deps.dueSkip ?? 'window';
    if (policy === 'never') return false;
    const idle = dueIdle.get(merchantId);
    const windowed = policy === 'window';
    const window = windowed ? DUE_SKIP_MS : 1;
    return idle !== undefined && (windowed || idle.writes === writes) && at >= idle.at && at - idle.at < window;
  }

  /** Runs the due work of the caller's merchant at merchant time `at` (unless `dueSkippable` says it may be skipped). */
  async function runDue(ctx: RequestContext, at: number): Promise<void> {
    const policy = deps.dueSkip ?? 'window';
    if (policy === 'never') {
      await runDueJobs(ctx);
      return;
    }
    const windowed = policy === 'window';
    const before = writes;
    // a failed job (logged by runDueJobs) is not idle: the next request tries again
    const { moved, failed } = await runDueJobs(ctx);
    if (moved === 0 && !failed && (windowed || before === writes)) {
      if (dueIdle.size > 10_000) dueIdle.clear();
      dueIdle.set(ctx.merchantId, { at, writes });
    } else dueIdle.delete(ctx.merchantId);
  }

  return Object.assign(app, { core: { match: (method: string, path: string) => router.match(method, path), handle } });
}

const EMPTY = new Uint8Array(0);

/**
 * A request's context, as a class. Not an object literal with getters: V8 defines a literal's
 * accessors at run time on every evaluation, so each request's context got a hidden class of
 * its own, whose getters the map transition tree then kept reachable until the next full
 * collection. That cost ~10 µs of CPU per request, and ~1.5 KB per request survived the young
 * generation: scavenges of 4–8 ms every ~50 ms under load, the p99 of a GET
 * (docs/performance.md, "seventh session").
 */
class PipelineContext implements RequestContext {
  db: Db;
  readonly merchantId: string;
  readonly apiKeyId: string;
  readonly walletId: string | undefined;
  status: number | undefined = undefined;
  message: string | undefined = undefined;
  /** the merchant's clock (an own function, as in serviceContext: it works unbound) */
  readonly now: () => Date;

  constructor(
    readonly deps: AppDeps,
    principal: Principal,
    readonly requestId: string,
    readonly clientIp: string,
    readonly client: string,
    private readonly request: CoreRequest,
  ) {
    this.db = deps.db;
    this.merchantId = principal.merchantId;
    this.apiKeyId = principal.apiKeyId;
    this.walletId = principal.walletId;
    const offset = principal.clockOffsetMs;
    this.now = () => new Date(deps.clock.now().getTime() + offset);
  }

  /** the request as a Web Request (built when first asked for on the node:http path) */
  get req(): Request {
    return this.request.web();
  }

  get baseUrl(): string {
    return this.deps.publicBaseUrl ?? new URL(this.request.web().url).origin;
  }
}
/**
 * Endpoints whose handler writes only through `ctx.db`, in one transaction, does nothing
 * before it that a concurrent request with the same Idempotency-Key must not also do (reads,
 * validation), and after it only builds its answer: their key is claimed, and their answer
 * kept, inside that transaction (`withIdempotencyInTx`): one transaction and one group commit
 * per request instead of three.
 */
const CLAIM_IN_HANDLER_TX = new Set<string>(['charges.create']);
const NO_PRINCIPAL: Principal = { merchantId: '', apiKeyId: '', clockOffsetMs: 0, credential: 'none' };

function requestIdOf(given: string | undefined): string {
  return given && /^[A-Za-z0-9._-]{8,64}$/.test(given) ? given : crypto.randomUUID();
}

/**
 * The envelope's text when the handler answered records already serialised (`JsonText`: a
 * record, or a page of them), else undefined. Byte for byte what JSON.stringify gives of
 * `{ success, message, data, pagination }` (no message key when there is no message).
 */
function serialisedEnvelope(result: unknown, message: string | undefined, list: { page: number; perPage: number } | undefined): string | undefined {
  let data: string;
  let pagination = '';
  if (list) {
    const p = result as Page<unknown>;
    if (!p.items.length || !(p.items[0] instanceof JsonText)) return undefined;
    data = '[';
    for (let i = 0; i < p.items.length; i++) {
      const item = p.items[i];
      data += (i ? ',' : '') + (item instanceof JsonText ? item.text : JSON.stringify(item));
    }
    data += ']';
    pagination = `,"pagination":${JSON.stringify({ page: list.page, perPage: list.perPage, total: p.total, totalPages: Math.ceil(p.total / list.perPage) })}`;
  } else if (result instanceof JsonText) data = result.text;
  else return undefined;
  return `{"success":true,${message === undefined ? '' : `"message":${JSON.stringify(message)},`}"data":${data}${pagination}}`;
}

/** A Hono request as the pipeline sees it. */
function honoRequest(c: Context<Env>): CoreRequest {
  const incoming = incomingOf(c);
  return {
    method: c.req.method,
    path: c.req.path,
    search: searchOf(c),
    peerAddress: incoming?.socket?.remoteAddress,
    requestId: c.get('requestId'),
    header: (name) => headerOf(c, name),
    body: (max) => (incoming ? readIncomingCapped(incoming, max) : readCapped(c.req.raw, max)),
    web: () => c.req.raw,
    gone: () => clientGone(c),
    bodyLeftUnread: () => bodyLeftUnread(c),
  };
}

/**
 * A handler's answer that is a Web Response (a file download), told apart without touching the
 * global `Response`: its first use loads Node's fetch implementation (~20 ms), which an
 * embedded command answered in-process never needs.
 */
function isWebResponse(x: unknown): x is Response {
  return typeof x === 'object' && x !== null && (x as { [Symbol.toStringTag]?: unknown })[Symbol.toStringTag] === 'Response';
}

/** The pipeline's answer as a Web Response (for Hono). */
function toResponse(a: CoreAnswer): Response {
  return a.response ?? new Response(a.status === CLIENT_CLOSED_STATUS ? null : a.body, { status: a.status, headers: a.headers });
}
