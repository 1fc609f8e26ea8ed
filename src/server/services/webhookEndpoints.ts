/**
 * Webhook endpoints of a merchant (register, change, disable, delete: the endpoint lifecycle,
 * and the deliveries a disabled endpoint leaves are cancelled) and the delivery log (list,
 * redeliver). Delivery itself is src/server/webhooks/.
 */
import type { WebhookDeliveryLog, WebhookEndpoint } from '../../contract/resources/webhooks.js';
import { DEFAULT_ROTATION_OVERLAP_S } from '../../contract/events.js';
import type { Queryable, } from '../../store/db.js';
import { transition } from '../../store/transition.js';
import { cancelEndpointDeliveries, MAX_ENDPOINTS_PER_MERCHANT } from '../webhooks/delivery.js';
import { checkTarget } from '../webhooks/netguard.js';
import { generateSecret } from '../webhooks/signature.js';
import type { BodyFor, Page, PageRequest, QueryFor, ServiceContext } from './context.js';
import { ApiError, invalid, notFound } from '../errors.js';
import { listPage } from '../lists.js';
import { lockMerchant } from './merchants.js';

interface EndpointRow {
  id: string;
  url: string;
  events: string;
  status: 'active' | 'disabled';
  created_at: string;
  updated_at: string;
}

const EP_COLS = 'id, url, events, status, created_at, updated_at';

function toEndpoint(r: EndpointRow): WebhookEndpoint {
  return {
    id: r.id,
    url: r.url,
    has_secret: true,
    events: JSON.parse(r.events) as string[],
    status: r.status,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

interface LogRow {
  id: string;
  webhook_endpoint_id: string;
  event_id: string;
  charge_id: string | null;
  event_name: string;
  postback_url: string;
  status: 'pending' | 'delivered' | 'failed';
  attempt: number;
  max_attempts: number;
  response_status_code: number | null;
  response_body: string | null;
  error_message: string | null;
  next_retry_at: string | null;
  delivered_at: string | null;
  created_at: string;
}

const LOG_COLS =
  'id, webhook_endpoint_id, event_id, charge_id, event_name, postback_url, status, attempt, max_attempts, response_status_code, response_body, error_message, next_retry_at, delivered_at, created_at';

function toLog(r: LogRow): WebhookDeliveryLog {
  return {
    ...r,
    attempt: Number(r.attempt),
    max_attempts: Number(r.max_attempts),
    response_status_code: r.response_status_code === null ? null : Number(r.response_status_code),
  };
}

/** In production, a URL whose host is or resolves to a loopback/private/link-local/metadata address is refused. */
async function assertSafeUrl(ctx: ServiceContext, url: string): Promise<void> {
  const blocked = await checkTarget(new URL(url), ctx.deps.mode);
  if (blocked) throw invalid('url', blocked.message);
}

async function liveEndpoint(ctx: ServiceContext, id: string, lock: boolean, q: Queryable = ctx.db): Promise<EndpointRow> {
  const row = await q.get<EndpointRow>(
    `SELECT ${EP_COLS} FROM webhook_endpoints WHERE id = ? AND merchant_id = ? AND deleted_at IS NULL${lock ? q.dialect.forUpdate : ''}`,
    [id, ctx.merchantId],
  );
  if (!row) throw notFound('Webhook endpoint');
  return row;
}

/** Registers an endpoint; its signing secret is returned only here. */
export async function createEndpoint(ctx: ServiceContext, body: BodyFor<'webhookEndpoints.create'>): Promise<Omit<WebhookEndpoint, 'has_secret'> & { secret: string }> {
  await assertSafeUrl(ctx, body.url);
  const secret = generateSecret();
  const id = ctx.deps.ids();
  const ts = ctx.now().toISOString();
  await ctx.db.tx(async (q) => {
    // the merchant's row, locked, serializes creations: the cap holds under concurrency
    await lockMerchant(q, ctx.merchantId);
    const held = await q.get<{ n: number }>('SELECT COUNT(*) AS n FROM webhook_endpoints WHERE merchant_id = ? AND deleted_at IS NULL', [ctx.merchantId]);
    if (Number(held?.n) >= MAX_ENDPOINTS_PER_MERCHANT) {
      throw new ApiError(
        'business_rule',
        `A merchant may hold at most ${MAX_ENDPOINTS_PER_MERCHANT} webhook endpoints; delete one first (DELETE /v1/postbacks/endpoints/{id}) or subscribe an existing one to more events`,
      );
    }
    await q.run(
      `INSERT INTO webhook_endpoints (id, merchant_id, url, secret_enc, events, status, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, 'active', ?, ?)`,
      [id, ctx.merchantId, body.url, ctx.deps.keyring.encrypt(secret), JSON.stringify(body.events), ts, ts],
    );
  });
  const { has_secret: _omit, ...rec } = toEndpoint(await liveEndpoint(ctx, id, false));
  return { ...rec, secret };
}

export function listEndpoints(ctx: ServiceContext, query: QueryFor<'webhookEndpoints.list'>, page: PageRequest): Promise<Page<WebhookEndpoint>> {
  return listPage(ctx.db, {
    from: 'webhook_endpoints',
    select: EP_COLS,
    filters: [['merchant_id = ?', ctx.merchantId], ['deleted_at IS NULL'], ['status = ?', query.status]],
    page,
    map: toEndpoint,
  });
}

export async function getEndpoint(ctx: ServiceContext, id: string): Promise<WebhookEndpoint> {
  return toEndpoint(await liveEndpoint(ctx, id, false));
}

/**
 * Replaces the endpoint's signing secret (Standard Webhooks rotation). The replaced secret is
 * kept, encrypted, until `previous_secret_expires_at` (merchant clock; default 24 h): until then
 * every delivery's `webhook-signature` carries both signatures, the new one first. A second
 * rotation within the window keeps only the secret it replaces. The new secret is returned only
 * here (an Idempotency-Key replay answers without it, src/server/idempotency.ts SHOWN_ONCE).
 */
export async function rotateSecret(
  ctx: ServiceContext,
  id: string,
  body: BodyFor<'webhookEndpoints.rotateSecret'>,
): Promise<Omit<WebhookEndpoint, 'has_secret'> & { secret: string; previous_secret_expires_at: string }> {
  const secret = generateSecret();
  const now = ctx.now();
  const until = new Date(now.getTime() + (body.overlap_seconds ?? DEFAULT_ROTATION_OVERLAP_S) * 1000).toISOString();
  const row = await ctx.db.tx(async (q) => {
    await liveEndpoint(ctx, id, true, q);
    const cur = await q.get<{ secret_enc: string }>('SELECT secret_enc FROM webhook_endpoints WHERE id = ?', [id]);
    await q.run(
      'UPDATE webhook_endpoints SET secret_enc = ?, previous_secret_enc = ?, previous_secret_expires_at = ?, updated_at = ? WHERE id = ?',
      [ctx.deps.keyring.encrypt(secret), cur!.secret_enc, until, now.toISOString(), id],
    );
    return liveEndpoint(ctx, id, false, q);
  });
  const { has_secret: _omit, ...rec } = toEndpoint(row);
  return { ...rec, secret, previous_secret_expires_at: until };
}

/** Changes url, events or status; disabling cancels the deliveries still scheduled. */
export async function updateEndpoint(ctx: ServiceContext, id: string, body: BodyFor<'webhookEndpoints.update'>): Promise<WebhookEndpoint> {
  if (body.url !== undefined) await assertSafeUrl(ctx, body.url);
  return ctx.db.tx(async (q) => {
    const row = await liveEndpoint(ctx, id, true, q);
    const ts = ctx.now().toISOString();
    const next = { ...row };
    if (body.url !== undefined) next.url = body.url;
    if (body.events !== undefined) next.events = JSON.stringify(body.events);
    next.updated_at = ts;
    const status = body.status ?? row.status;
    const set = { url: next.url, events: next.events, disabled_reason: status === 'disabled' ? 'disabled by PATCH' : null, updated_at: ts };
    if (status !== row.status) {
      await transition(q, 'webhook_endpoint', row.id, row.status, status, set);
      next.status = status;
      if (status === 'disabled') await cancelEndpointDeliveries(q, row.id, ts, 'the endpoint was disabled');
    } else {
      await q.run('UPDATE webhook_endpoints SET url = ?, events = ?, disabled_reason = ?, updated_at = ? WHERE id = ?', [set.url, set.events, set.disabled_reason, ts, row.id]);
    }
    return toEndpoint(next);
  });
}

/** Deletes (disables for good) an endpoint and cancels its scheduled deliveries. */
export function deleteEndpoint(ctx: ServiceContext, id: string): Promise<WebhookEndpoint> {
  return ctx.db.tx(async (q) => {
    const row = await liveEndpoint(ctx, id, true, q);
    const ts = ctx.now().toISOString();
    const set = { disabled_reason: 'deleted', deleted_at: ts, updated_at: ts };
    if (row.status !== 'disabled') await transition(q, 'webhook_endpoint', row.id, row.status, 'disabled', set);
    else await q.run('UPDATE webhook_endpoints SET disabled_reason = ?, deleted_at = ?, updated_at = ? WHERE id = ?', [set.disabled_reason, ts, ts, row.id]);
    await cancelEndpointDeliveries(q, row.id, ts, 'the endpoint was deleted');
    return toEndpoint({ ...row, status: 'disabled', updated_at: ts });
  });
}

export function listDeliveryLogs(ctx: ServiceContext, query: QueryFor<'webhookDeliveryLogs.list'>, page: PageRequest): Promise<Page<WebhookDeliveryLog>> {
  return listPage(ctx.db, {
    from: 'webhook_delivery_logs',
    select: LOG_COLS,
    filters: [
      ['merchant_id = ?', ctx.merchantId],
      ['status = ?', query.status],
      ['event_name = ?', query.event_name],
      ['webhook_endpoint_id = ?', query.webhook_endpoint_id],
      ['charge_id = ?', query.charge_id],
      ['event_id = ?', query.event_id],
    ],
    page,
    map: toLog,
  });
}

/**
 * Schedules one more attempt of the delivery behind a log entry, as a new pending log entry.
 * `created: false` when a redelivery was already pending (that entry is returned).
 */
export async function redeliver(ctx: ServiceContext, logId: string): Promise<{ record: WebhookDeliveryLog; created: boolean }> {
  const out = await ctx.db.tx(async (q) => {
    const log = await q.get<{ delivery_id: string }>('SELECT delivery_id FROM webhook_delivery_logs WHERE id = ? AND merchant_id = ?', [logId, ctx.merchantId]);
    if (!log) throw notFound('Delivery log');
    const d = await q.get<{
      id: string;
      endpoint_id: string;
      event_id: string;
      event_type: string;
      charge_id: string | null;
      state: string;
      attempts: number;
      max_attempts: number;
      lease_owner: string | null;
      lease_until: string | null;
      pending_log_id: string | null;
    }>(`SELECT * FROM webhook_deliveries WHERE id = ?${q.dialect.forUpdate}`, [log.delivery_id]);
    if (!d) throw notFound('Delivery log');
    if (d.pending_log_id) return { id: d.pending_log_id, created: false };
    const ep = await q.get<{ url: string; status: string; deleted_at: string | null }>('SELECT url, status, deleted_at FROM webhook_endpoints WHERE id = ?', [
      d.endpoint_id,
    ]);
    if (!ep || ep.deleted_at) throw new ApiError('invalid_state', 'The webhook endpoint of this delivery was deleted; it cannot be redelivered');
    if (ep.status !== 'active') {
      throw new ApiError('invalid_state', "The webhook endpoint of this delivery is disabled; enable it (PATCH status 'active') before redelivering");
    }
    // the lease is the delivery worker's, on the server clock
    if (d.lease_owner && d.lease_until && d.lease_until > ctx.deps.clock.now().toISOString()) {
      throw new ApiError('conflict', 'An attempt of this delivery is in progress; retry when it has finished');
    }
    const ts = ctx.now().toISOString();
    const attempt = Number(d.attempts) + 1;
    // a finished delivery gets exactly one more attempt; one still retrying keeps its schedule
    const maxAttempts = d.state === 'scheduled' ? Math.max(Number(d.max_attempts), attempt) : attempt;
    const id = ctx.deps.ids();
    await q.run(
      `INSERT INTO webhook_delivery_logs (id, merchant_id, delivery_id, webhook_endpoint_id, event_id, charge_id, event_name, postback_url,
         status, attempt, max_attempts, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?)`,
      [id, ctx.merchantId, d.id, d.endpoint_id, d.event_id, d.charge_id, d.event_type, ep.url, attempt, maxAttempts, ts],
    );
    await q.run('UPDATE webhook_delivery_logs SET next_retry_at = ? WHERE delivery_id = ? AND next_retry_at IS NOT NULL', [ts, d.id]);
    const schedule = { next_attempt_at: ts, max_attempts: maxAttempts, pending_log_id: id, updated_at: ts };
    // a finished delivery is scheduled again; one still scheduled gets its next attempt now
    if (d.state !== 'scheduled') await transition(q, 'webhook_delivery', d.id, d.state, 'scheduled', schedule);
    else await q.run('UPDATE webhook_deliveries SET next_attempt_at = ?, max_attempts = ?, pending_log_id = ?, updated_at = ? WHERE id = ?', [ts, maxAttempts, id, ts, d.id]);
    return { id, created: true };
  });
  const row = await ctx.db.get<LogRow>(`SELECT ${LOG_COLS} FROM webhook_delivery_logs WHERE id = ?`, [out.id]);
  return { record: toLog(row!), created: out.created };
}
