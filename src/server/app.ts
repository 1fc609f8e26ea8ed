import { Hono, type Context } from 'hono';
import { endpoints, honoPath, type AnyEndpoint, PAGE_DEFAULT, PER_PAGE_DEFAULT, envelope, listEnvelope } from '../contract/index.js';
import { InvalidTransitionError } from '../domain/lifecycle.js';
import { AuthCache, authenticate, blockListOf, ipIn, normalizeIp, parseBasic } from './auth.js';
import { isIP, type BlockList } from 'node:net';
import { JSON_LIMIT, PUBLIC_JSON_LIMIT, parseJsonBody, readCapped, readIncomingCapped } from './body.js';
import type { IncomingMessage } from 'node:http';
import type { AppEnv as Env, AppDeps, Handler, Page, Principal, RequestContext } from './context.js';
import { ApiError, CLIENT_CLOSED_STATUS, ClientClosedError } from './errors.js';
import { StoreUnavailable } from '../store/db.js';
import { errorBody, keptAnswer, requestHash, withIdempotency, type StoredResponse } from './idempotency.js';
import { ApiLimits, DEFAULT_RATE_LIMITS, takePublicBodyToken } from './rateLimit.js';
import { handlers, rawRoutes } from './routes/index.js';
import { runDueJobs } from './due.js';
import { parseWith, validationError } from './validate.js';
import { buildOpenApi } from '../contract/openapi.js';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const IDEMPOTENCY_KEY_RE = /^[\x21-\x7e]{1,255}$/;
const JSON_TYPE = 'application/json; charset=utf-8';
/** How long (merchant time) a request may skip the due work after a run that moved nothing. */
export const DUE_SKIP_MS = 100;


export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': JSON_TYPE, ...headers } });
}

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

/** Responses built by `run` that already carry X-Request-Id (their headers stay a plain object). */
const tagged = new WeakSet<Response>();

/**
 * The client is gone: its socket closed (or, in-process, its request was aborted) before the
 * answer was ready. Whatever the handler made of the cut-off request is logged as 499.
 */
function clientGone(c: Context): boolean {
  const incoming = incomingOf(c);
  if (incoming) return incoming.socket?.destroyed === true || (incoming.destroyed && !incoming.complete);
  return c.req.raw.signal?.aborted === true;
}

/**
 * The request body has not all arrived although the answer is ready (a refusal before or while
 * reading it). The server would discard the rest only up to a point and then break the socket
 * under a keep-alive client, so the answer says `Connection: close` instead.
 */
function bodyLeftUnread(c: Context): boolean {
  const incoming = incomingOf(c);
  return incoming !== undefined && !incoming.complete && c.req.method !== 'GET' && c.req.method !== 'HEAD';
}

/**
 * The client's address: the peer's, or, when the peer is a trusted proxy (--trust-proxy), the
 * right-most X-Forwarded-For hop that is not a trusted proxy (left parts are the client's own
 * claims and are not believed). A hop that is not an address ends the walk.
 */
function clientIpOf(c: Context, trusted: BlockList | null): string {
  const peer = normalizeIp(incomingOf(c)?.socket?.remoteAddress ?? '127.0.0.1');
  if (!trusted || !ipIn(trusted, peer)) return peer;
  const xff = headerOf(c, 'x-forwarded-for');
  if (!xff) return peer;
  const hops = xff.split(',');
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
 * The service: one Hono app built from the contract's endpoint table. Every endpoint goes
 * through the same pipeline: authenticate → rate limit → due work → parse params, query and
 * body strictly → Idempotency-Key → handler → envelope.
 */
export function createApp(deps: AppDeps): Hono<Env> {
  const app = new Hono<Env>();
  const limits = deps.rateLimit === null ? null : new ApiLimits(deps.rateLimit ?? DEFAULT_RATE_LIMITS);
  // Due work found nothing to move for a merchant at merchant-time `at`, with `writes` writes
  // served so far: the next request may skip it while neither has moved on (see dueSkip).
  const dueIdle = new Map<string, { at: number; writes: number }>();
  let writes = 0;
  const authCache = new AuthCache();
  let trustedList: string[] | undefined;
  let trusted: BlockList | null = null;
  const trustedProxies = (): BlockList | null => {
    if (deps.trustProxy !== trustedList) {
      trustedList = deps.trustProxy;
      trusted = trustedList?.length ? blockListOf(trustedList) : null;
    }
    return trusted;
  };

  app.use('*', async (c, next) => {
    const incoming = headerOf(c, 'x-request-id');
    const requestId = incoming && /^[A-Za-z0-9._-]{8,64}$/.test(incoming) ? incoming : crypto.randomUUID();
    c.set('requestId', requestId);
    const started = performance.now();
    await next();
    if (!tagged.has(c.res)) c.res.headers.set('X-Request-Id', requestId);
    if (bodyLeftUnread(c)) c.res.headers.set('Connection', 'close');
    deps.log?.({
      level: 'info',
      request_id: requestId,
      method: c.req.method,
      path: c.req.path,
      status: clientGone(c) ? CLIENT_CLOSED_STATUS : c.res.status,
      ms: Math.round((performance.now() - started) * 10) / 10,
    });
  });

  app.onError((err, c) => {
    // a cut-off request is not an internal error: no error entry, no stack (logged as 499 above)
    if (err instanceof ClientClosedError || clientGone(c)) return new Response(null, { status: CLIENT_CLOSED_STATUS });
    return errorResponse(toApiError(err, deps, c.get('requestId')));
  });
  app.notFound((c) => errorResponse(new ApiError('not_found', `No such route: ${c.req.method} ${c.req.path}`)));

  app.get('/openapi.json', (c) => c.json(buildOpenApi(deps.publicBaseUrl ?? new URL(c.req.url).origin, { sandbox: deps.mode !== 'production' })));
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
    app.on(e.method, honoPath(e.path), (c) => run(c, e, h));
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

  async function run(c: Context<Env>, e: AnyEndpoint, handler: Handler<AnyEndpoint>): Promise<Response> {
    const requestId = c.get('requestId');
    const clientIp = clientIpOf(c, trustedProxies());
    let principal: Principal = { merchantId: '', apiKeyId: '', clockOffsetMs: 0, credential: 'none' };
    if (e.auth !== 'none') {
      const authorization = headerOf(c, 'authorization');
      limits?.beforeAuth(clientIp, Date.now());
      try {
        principal = await authenticate(deps, e.auth, authorization, clientIp, authCache);
      } catch (err) {
        if (limits && err instanceof ApiError && err.status === 401) throw limits.authFailed(err, clientIp, parseBasic(authorization)?.user || undefined, Date.now());
        throw err;
      }
      limits?.afterAuth(principal, clientIp, Date.now());
    }
    const search = searchOf(c);
    const ctx: RequestContext = {
      deps,
      db: deps.db,
      merchantId: principal.merchantId,
      apiKeyId: principal.apiKeyId,
      requestId,
      req: c.req.raw,
      hono: c,
      clientIp,
      get baseUrl() {
        return deps.publicBaseUrl ?? new URL(c.req.url).origin;
      },
      now: () => new Date(deps.clock.now().getTime() + principal.clockOffsetMs),
    };
    if (principal.merchantId) await runDue(ctx);

    const params = c.req.param() as Record<string, string>;
    for (const [k, v] of Object.entries(params)) {
      if ((k === 'id' || k.endsWith('_id')) && !UUID_RE.test(v)) throw new ApiError('not_found', `${resourceName(e)} not found`);
    }
    const rawQuery = queryObject(search);
    let query: unknown ;
    if (e.query) query = parseWith(e.query, rawQuery, 'query');
    else if (Object.keys(rawQuery).length) {
      throw validationError('query', Object.keys(rawQuery).map((k) => ({ field: k, message: 'is not a known query parameter' })));
    }
    const q = (query ?? {}) as { page?: number; per_page?: number };
    const pageNo = q.page ?? PAGE_DEFAULT;
    const perPage = q.per_page ?? PER_PAGE_DEFAULT;
    const page = { page: pageNo, perPage, limit: perPage, offset: (pageNo - 1) * perPage };

    let raw: Uint8Array = new Uint8Array(0);
    if (!e.multipart && (e.method === 'POST' || e.method === 'PUT' || e.method === 'PATCH' || e.method === 'DELETE')) {
      const incoming = incomingOf(c);
      // operations anyone may call: their per-IP budget first (before reading), and small bodies
      if (e.auth === 'none') takePublicBodyToken(deps, clientIp);
      const limit = e.auth === 'secret' ? JSON_LIMIT : PUBLIC_JSON_LIMIT;
      raw = incoming ? await readIncomingCapped(incoming, limit) : await readCapped(c.req.raw, limit);
    }
    const idemHeader = e.method === 'POST' && !e.multipart && principal.merchantId ? headerOf(c, 'idempotency-key') : undefined;
    if (idemHeader !== undefined && !IDEMPOTENCY_KEY_RE.test(idemHeader)) {
      throw new ApiError('validation_error', 'Idempotency-Key must be 1 to 255 printable ASCII characters', [
        { field: 'Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters' },
      ]);
    }
    // Idempotency-Keys belong to the secret key: only secret-key operations keep them. The
    // publishable-key operation (tokenize) is idempotent by itself (the same card gives the
    // same token) and its body is card data, of which nothing may be kept.
    const idemKey = e.auth === 'secret' ? idemHeader : undefined;
    const respond = async (): Promise<{ value: Response; keep: StoredResponse }> => {
      let body: unknown;
      if (e.body) body = parseWith(e.body, parseJsonBody(raw, headerOf(c, 'content-type') ?? null) ?? {}, 'body');
      else if (raw.byteLength) {
        const parsed = parseJsonBody(raw, headerOf(c, 'content-type') ?? null);
        if (parsed !== null && (typeof parsed !== 'object' || Object.keys(parsed as object).length)) {
          throw new ApiError('validation_error', 'This operation takes no request body');
        }
      }
      const result = await handler(ctx, { params, query: query as never, body: body as never, page });
      if (result instanceof Response) return { value: result, keep: { status: result.status, body: idemKey ? await result.clone().text() : '' } };
      const status = ctx.status ?? e.status ?? (e.method === 'POST' ? 201 : 200);
      const message = ctx.message ?? e.message;
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
      const res = new Response(text, { status, headers: { 'content-type': JSON_TYPE, 'X-Request-Id': requestId } });
      tagged.add(res);
      return { value: res, keep: { status, body: idemKey ? keptAnswer(out) : text } };
    };
    try {
      let res: Response;
      if (idemKey) {
        const outcome = await withIdempotency(deps, principal.merchantId, idemKey, requestHash(deps, e.method, c.req.path + search, raw), respond);
        if (outcome.replayed) {
          return new Response(outcome.response.body, {
            status: outcome.response.status,
            headers: { 'content-type': JSON_TYPE, 'Idempotent-Replayed': 'true' },
          });
        }
        res = outcome.value;
      } else res = (await respond()).value;
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
  async function runDue(ctx: RequestContext): Promise<void> {
    const at = ctx.now().getTime();
    const idle = dueIdle.get(ctx.merchantId);
    const policy = deps.dueSkip ?? 'window';
    if (policy === 'never') {
      await runDueJobs(ctx);
      return;
    }
    const windowed = policy === 'window';
    const window = windowed ? DUE_SKIP_MS : 1;
    if (idle && (windowed || idle.writes === writes) && at >= idle.at && at - idle.at < window) return;
    const before = writes;
    // a failed job (logged by runDueJobs) is not idle: the next request tries again
    const { moved, failed } = await runDueJobs(ctx);
    if (moved === 0 && !failed && (windowed || before === writes)) {
      if (dueIdle.size > 10_000) dueIdle.clear();
      dueIdle.set(ctx.merchantId, { at, writes });
    } else dueIdle.delete(ctx.merchantId);
  }

  return app;
}
