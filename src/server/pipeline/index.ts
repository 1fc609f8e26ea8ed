/**
 * The one request pipeline of the service, for every request however it arrived (the node:http
 * server, a Web Request, the SDK's in-process transport), endpoints and pages alike. Its stages,
 * each in its own module:
 *
 *   route          router.ts         the endpoint or page of the method and path; else 404 / 405
 *   client         client.ts         the caller's address, through trusted proxies
 *   authenticate   authenticate.ts   the key (and its failures' limits)
 *   limit          limits.ts         the merchant's or the client's budget
 *   due work       due.ts            time-based moves of the merchant, before its request
 *   parse          parse.ts          path ids, query and body against the contract
 *   idempotency    idempotency.ts    the Idempotency-Key (or a key of the body): replay, conflict, keep
 *   handle                           the endpoint's handler (src/server/routes)
 *   shape          shape.ts          the envelope (and its check against the contract in tests)
 *   log            log.ts            one line per request; errors mapped and logged once
 */
import type { AnyEndpoint } from '../../contract/index.js';
import type { OperationRoute } from '../../contract/endpoint.js';
import { RESOURCE_LOADERS, type ResourceName } from '../../contract/loaders.js';
// the contract's routes without their schemas (generated from it at build time): the pipeline
// builds a resource's schemas when it first serves one of its endpoints (src/contract/loaders.ts)
import operations from '#generated/operations.json' with { type: 'json' };
import { runDueJobs } from '../due.js';
import type { AppDeps, Handler, HandlerInput, OwnedOperation, Principal } from '../context.js';
import { ApiError, CLIENT_CLOSED_STATUS, ClientClosedError } from '../errors.js';
import { ReadMemo, MAX_MEMO_SEARCH } from '../readMemo.js';
import { handlers, pages, type PageHandler } from '../routes/index.js';
import { Authenticator } from './authenticate.js';
import { ClientAddresses } from './client.js';
import type { DuePolicy } from './due.js';
import { errorAnswer } from './errors.js';
import { idempotencyKeyOf, runIdempotent, runOwned } from './idempotency.js';
import { Limits } from './limits.js';
import { logRequest, requestIdOf } from './log.js';
import { checkParams, pageOf, parseBody, parseQuery, readBody } from './parse.js';
import { PipelineContext } from './context.js';
import { decodePath, Router } from './router.js';
import { jsonAnswer, type Answer, type CoreRequest } from './request.js';
import { shape } from './shape.js';

/** An operation of the contract as the router knows it: its id and route, not its schemas. */
type RouteEntry = OperationRoute & { id: string };

type ApiHandler = Handler<AnyEndpoint> | OwnedOperation<AnyEndpoint>;
type Route = { kind: 'api'; entry: RouteEntry; h: ApiHandler } | { kind: 'page'; h: PageHandler };

const UTF8 = new TextEncoder();
const NO_PRINCIPAL: Principal = { merchantId: '', apiKeyId: '', clockOffsetMs: 0, credential: 'none' };

export type Pipeline = (req: CoreRequest) => Promise<Answer>;

export function createPipeline(deps: AppDeps, due: DuePolicy): Pipeline {
  const router = new Router<Route>();
  const table = handlers as Record<string, ApiHandler | undefined>;
  for (const [id, route] of Object.entries(operations)) {
    const h = table[id];
    if (!h) throw new Error(`no handler for endpoint ${id}`);
    // sandbox routes do not exist in production: a 404, not a 405
    if (route.sandbox && deps.mode === 'production') continue;
    router.add(route.method, route.path, { kind: 'api', entry: { id, ...route }, h }, true);
  }
  // Each resource's endpoints with their schemas, made when one of them is first served; a
  // served endpoint is then found without waiting.
  const endpointsById = new Map<string, AnyEndpoint>();
  const resourcesLoading = new Map<ResourceName, Promise<void>>();
  const endpointOf = async (r: RouteEntry): Promise<AnyEndpoint> => {
    let loading = resourcesLoading.get(r.resource);
    if (!loading) {
      loading = RESOURCE_LOADERS[r.resource]().then((list) => {
        for (const x of list as readonly AnyEndpoint[]) endpointsById.set(x.id, x);
      });
      resourcesLoading.set(r.resource, loading);
    }
    await loading;
    return endpointsById.get(r.id)!;
  };
  for (const p of pages) router.add(p.method, p.path, { kind: 'page', h: p.handle });

  const clients = new ClientAddresses(deps.trustProxy);
  const limits = new Limits(deps);
  const auth = new Authenticator(deps, limits);
  const memo = deps.readMemo === false ? null : new ReadMemo();

  return async function handle(req: CoreRequest): Promise<Answer> {
    const started = performance.now();
    const requestId = requestIdOf(req.header('x-request-id'));
    const path = decodePath(req.path);
    let out: Answer;
    try {
      const match = router.match(req.method, path);
      if (!match) {
        const allow = router.allowed(path);
        throw allow
          ? new ApiError('method_not_allowed', `${req.method} is not allowed on ${path}; use ${allow.join(', ')}`, undefined, { allow })
          : new ApiError('not_found', `No such route: ${req.method} ${path}`);
      }
      const route = match.value;
      out =
        route.kind === 'page'
          ? await route.h({ deps, params: match.params, head: req.method === 'HEAD', origin: () => req.origin() })
          : await api(req, endpointsById.get(route.entry.id) ?? (await endpointOf(route.entry)), route.h, match.params, requestId);
    } catch (err) {
      // a cut-off request is not an internal error: no error entry, no stack (logged as 499)
      out =
        err instanceof ClientClosedError || req.gone() ? { status: CLIENT_CLOSED_STATUS, headers: {}, body: null } : errorAnswer(err, deps, requestId);
    }
    out.headers['X-Request-Id'] = requestId;
    if (req.method === 'HEAD') out.body = null;
    logRequest(deps, requestId, req.method, path, req.gone() ? CLIENT_CLOSED_STATUS : out.status, started);
    return out;
  };

  async function api(req: CoreRequest, e: AnyEndpoint, handler: ApiHandler, params: Record<string, string>, requestId: string): Promise<Answer> {
    const { clientIp, client } = clients.of(req);
    let principal: Principal = NO_PRINCIPAL;
    // The store's change token, read once for the key cache and, while this request has not
    // awaited since, for the read memo too: one synchronous run sees one database state (its
    // answer is that state's, and the request was in flight when it was read). Any await (a key
    // read from the store, due work) drops it: the memo then reads the token again.
    let token: string | undefined;
    if (e.auth !== 'none') {
      const authed = auth.authenticate(e.auth, req.header('authorization'), clientIp, client);
      if (authed instanceof Promise) principal = (await authed).principal;
      else ({ principal, token } = authed);
      limits.afterAuth(principal, client);
    }
    const ctx = new PipelineContext(deps, principal, requestId, clientIp, client, req, limits);
    if (principal.merchantId) {
      const at = ctx.now().getTime();
      if (!due.skip(principal.merchantId, at)) {
        token = undefined;
        const { moved, failed } = await runDueJobs(ctx);
        due.ran(principal.merchantId, at, moved === 0 && !failed);
      }
    }

    checkParams(e, params);
    const query = parseQuery(e, req.search);
    const page = pageOf(query);

    // a read of the stored rows against the database state of an answer already made: that answer (readMemo.ts)
    const memoKey = memo !== null && e.memo && req.search.length <= MAX_MEMO_SEARCH ? `${e.id}\n${principal.merchantId}\n${req.path}${req.search}` : undefined;
    const memoToken = memoKey === undefined ? undefined : (token ?? deps.db.changeToken?.());
    if (memoToken !== undefined) {
      const body = memo!.get(memoKey!, memoToken);
      if (body !== undefined) return jsonAnswer(200, body);
    }

    // operations anyone may call: the client's budget first, before the body is read
    if (e.auth === 'none' && e.method !== 'GET') limits.publicBody(client);
    const raw = await readBody(e, req);
    // the handler's input: the query and body as this endpoint's schemas parsed them
    const inputOf = (body: unknown): HandlerInput<AnyEndpoint> => ({ params, query: query as never, body: body as never, page });
    if (typeof handler !== 'function' || typeof e.idempotency === 'object') {
      if (typeof handler === 'function' || typeof e.idempotency !== 'object') throw new Error(`endpoint ${e.id}: a key of the body and an OwnedOperation handler go together`);
      // an operation keyed by a field of its body (runOwned): its own idempotency and limit steps
      const body = parseBody(e, raw, req.header('content-type'));
      try {
        return await runOwned(deps, e, handler, ctx, limits, inputOf(body));
      } finally {
        due.wrote();
        deps.onEvent?.();
      }
    }
    const idemKey = idempotencyKeyOf(e, req, principal);
    const respond = async (db = deps.db) => {
      ctx.db = db;
      const body = parseBody(e, raw, req.header('content-type'));
      const result = await handler(ctx, inputOf(body));
      return shape(deps, e, ctx, result, page, idemKey !== undefined);
    };
    try {
      const res = idemKey === undefined ? (await respond()).value : await runIdempotent(deps, e, principal.merchantId, idemKey, req, raw, respond);
      if (memoToken !== undefined && res.status === 200 && typeof res.body === 'string') {
        // kept, and answered now, as its bytes: an array of its own, not a slice of Buffer's
        // shared pool (a kept slice would hold the pool's whole 8 kB)
        res.body = UTF8.encode(res.body);
        memo!.set(memoKey!, memoToken, res.body);
      }
      return res;
    } finally {
      // a write may have queued events: a running delivery worker looks at once
      if (e.method !== 'GET') {
        due.wrote();
        deps.onEvent?.();
      }
    }
  }
}

