/**
 * Webhook delivery: fan-out of outbox events to endpoints, atomic claiming of due deliveries,
 * the signed HTTP attempt (outside any transaction) and its outcome.
 *
 * Model: one `webhook_deliveries` row per (event, endpoint) (UNIQUE, so fan-out is idempotent)
 * holds the schedule and a lease; one `webhook_delivery_logs` row per attempt is what merchants
 * see. A delivery is claimed by a conditional UPDATE of its lease inside a write transaction,
 * the HTTP call runs with no transaction open, and the outcome is written in a second
 * transaction that checks the lease is still ours. A delivered delivery is never claimed again.
 *
 * Time: the schedule lives on the merchant's clock (the server clock `deps.clock` plus the
 * merchant's sandbox offset, which is 0 outside the sandbox), like the events' created_at, so
 * moving the sandbox clock makes retries come due. Leases use the server clock. The
 * `webhook-timestamp` header uses the real wall clock, because receivers check it against theirs.
 */
import type { Agent } from 'undici';
import type { ServiceDeps } from '../services/context.js';
import type { Queryable } from '../../store/db.js';
import { transition } from '../../store/transition.js';
import { guardedLookup, literalBlocked, systemResolver, type Resolver } from './netguard.js';
import { webhookHeaders } from './signature.js';

/** Offsets from the first attempt (the event's fan-out) of each of the 10 attempts. */
export const RETRY_SCHEDULE_MS: readonly number[] = [
  0,
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  14 * 3_600_000,
  20 * 3_600_000,
  24 * 3_600_000,
];
export const MAX_ATTEMPTS = RETRY_SCHEDULE_MS.length;
/** Each retry moves by up to ±10 % of its gap from the previous one, so retries of many
 *  deliveries do not arrive at once, and the order of attempts is kept. */
export const JITTER_FRACTION = 0.1;
/** A 2xx must arrive within this time. */
export const DEFAULT_TIMEOUT_MS = 15_000;
/** Response bodies are logged up to this many bytes (cut on a UTF-8 character boundary). */
export const RESPONSE_BODY_LIMIT = 2048;
import { WEBHOOK_USER_AGENT } from '../../contract/events.js';

export interface DeliveryOptions {
  /** per-attempt limit for the whole exchange; default 15 s */
  timeoutMs?: number;
  /** source of jitter in [0, 1); default Math.random */
  random?: () => number;
  /** wall clock for the webhook-timestamp header (ms); default Date.now */
  wallClock?: () => number;
  /** name resolution used at connect time (tests simulate DNS rebinding with it) */
  resolver?: Resolver;
  /** attempts in flight at once; default 8 */
  concurrency?: number;
  /** how long a claim is held before another worker may take the delivery over */
  leaseMs?: number;
  /** attempts of one merchant in flight at once, across every worker; default PER_MERCHANT_IN_FLIGHT */
  perMerchant?: number;
}

/**
 * Fairness between merchants. A merchant's attempts in flight (leased, by any
 * worker) are capped, so endpoints that hang hold at most this many of the workers' slots and
 * every other merchant's deliveries are claimed in the same round.
 */
export const PER_MERCHANT_IN_FLIGHT = 4;
/** An endpoint whose attempt timed out: its other due deliveries wait this long (ms, merchant time). */
export const SLOW_ENDPOINT_BACKOFF_MS = 60_000;
/** Endpoints a merchant may hold (as Stripe). */
export const MAX_ENDPOINTS_PER_MERCHANT = 16;
/** Due deliveries of one merchant looked at per claim round. */
const CLAIM_WINDOW = 50;

/** When attempt number `attemptNo + 1` (index `attemptNo` of the schedule) is due. */
export function scheduledAt(originMs: number, attemptIndex: number, random: () => number = Math.random): number {
  const at = RETRY_SCHEDULE_MS[attemptIndex];
  if (at === undefined) throw new RangeError(`no attempt ${attemptIndex + 1} in the schedule`);
  if (attemptIndex === 0) return originMs + at;
  const gap = at - RETRY_SCHEDULE_MS[attemptIndex - 1]!;
  return Math.round(originMs + at + (random() * 2 - 1) * JITTER_FRACTION * gap);
}

const iso = (ms: number) => new Date(ms).toISOString();

async function merchantOffsets(q: Queryable, deps: ServiceDeps): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (deps.mode === 'production') return out;
  const rows = await q.all<{ id: string; clock_offset_ms: number }>('SELECT id, clock_offset_ms FROM merchants WHERE clock_offset_ms > 0');
  for (const r of rows) out.set(r.id, Number(r.clock_offset_ms));
  return out;
}

async function merchantOffset(q: Queryable, deps: ServiceDeps, merchantId: string): Promise<number> {
  if (deps.mode === 'production') return 0;
  const r = await q.get<{ o: number }>('SELECT clock_offset_ms AS o FROM merchants WHERE id = ?', [merchantId]);
  return Math.max(0, Number(r?.o ?? 0));
}

function subscribed(events: string[], type: string): boolean {
  return events.includes('*') || events.includes(type);
}

/**
 * Turns outbox events not yet dispatched into one delivery per active subscribed endpoint of
 * the event's merchant. Idempotent: UNIQUE (event_id, endpoint_id) + ON CONFLICT DO NOTHING,
 * and the dispatch mark is written in the same transaction.
 */
export async function fanOut(deps: ServiceDeps, limit = 500): Promise<number> {
  // a plain read first, so an idle poll never takes the write lock
  if (!(await deps.db.get('SELECT id FROM events WHERE dispatched_at IS NULL LIMIT 1'))) return 0;
  return deps.db.tx(async (q) => {
    const events = await q.all<{ id: string; merchant_id: string; type: string; charge_id: string | null }>(
      `SELECT id, merchant_id, type, charge_id FROM events WHERE dispatched_at IS NULL ORDER BY created_at, id LIMIT ?${q.dialect.skipLocked}`,
      [limit],
    );
    if (!events.length) return 0;
    const serverNow = deps.clock.now().getTime();
    const offsets = await merchantOffsets(q, deps);
    const endpointsOf = new Map<string, { id: string; events: string[] }[]>();
    for (const e of events) {
      let eps = endpointsOf.get(e.merchant_id);
      if (!eps) {
        const rows = await q.all<{ id: string; events: string }>(
          "SELECT id, events FROM webhook_endpoints WHERE merchant_id = ? AND status = 'active' AND deleted_at IS NULL",
          [e.merchant_id],
        );
        eps = rows.map((r) => ({ id: r.id, events: JSON.parse(r.events) as string[] }));
        endpointsOf.set(e.merchant_id, eps);
      }
      const origin = iso(serverNow + (offsets.get(e.merchant_id) ?? 0));
      for (const ep of eps) {
        if (!subscribed(ep.events, e.type)) continue;
        await q.run(
          `INSERT INTO webhook_deliveries (id, merchant_id, event_id, endpoint_id, event_type, charge_id, state, attempts, max_attempts,
             origin_at, next_attempt_at, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, 'scheduled', 0, ?, ?, ?, ?, ?)
           ON CONFLICT (event_id, endpoint_id) DO NOTHING`,
          [deps.ids(), e.merchant_id, e.id, ep.id, e.type, e.charge_id, MAX_ATTEMPTS, origin, origin, origin, origin],
        );
      }
      await q.run('UPDATE events SET dispatched_at = ? WHERE id = ? AND dispatched_at IS NULL', [iso(serverNow), e.id]);
    }
    return events.length;
  });
}

/** Fans out every undispatched event, batch by batch, until none is left or `until` passes. */
export async function fanOutAll(deps: ServiceDeps, until = Infinity, batch = 500): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await fanOut(deps, batch);
    total += n;
    if (n < batch || performance.now() >= until) return total;
  }
}

/** A plain read: is any delivery possibly due (on the furthest-ahead merchant clock)? */
async function anythingDue(deps: ServiceDeps): Promise<boolean> {
  let ahead = 0;
  if (deps.mode !== 'production') {
    const m = await deps.db.get<{ o: number | null }>('SELECT MAX(clock_offset_ms) AS o FROM merchants');
    ahead = Math.max(0, Number(m?.o ?? 0));
  }
  const now = deps.clock.now().getTime();
  const due = await deps.db.get(
    "SELECT id FROM webhook_deliveries WHERE state = 'scheduled' AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until <= ?) LIMIT 1",
    [iso(now + ahead), iso(now)],
  );
  return !!due;
}

/** A claimed attempt: everything needed to send it, with no transaction open. */
export interface Claim {
  deliveryId: string;
  logId: string;
  owner: string;
  merchantId: string;
  endpointId: string;
  url: string;
  secret: string;
  /** the secret a rotation replaced, while its overlap lasts: deliveries carry both signatures */
  previousSecret?: string;
  eventId: string;
  eventType: string;
  eventCreatedAt: string;
  data: string;
  attempt: number;
  maxAttempts: number;
  originMs: number;
}

interface DeliveryRow {
  id: string;
  merchant_id: string;
  event_id: string;
  endpoint_id: string;
  event_type: string;
  charge_id: string | null;
  state: string;
  attempts: number;
  max_attempts: number;
  origin_at: string;
  next_attempt_at: string | null;
  lease_owner: string | null;
  lease_until: string | null;
  lease_log_id: string | null;
  pending_log_id: string | null;
}

/** The lease columns of a delivery no worker holds. */
const RELEASED = { lease_owner: null, lease_until: null, lease_log_id: null } as const;

const INTERRUPTED = 'the attempt was interrupted (the delivering process stopped before it finished)';

/**
 * Claims up to `limit` due deliveries for `owner`: in one write transaction, each candidate's
 * lease is taken with a conditional UPDATE (only if still scheduled and not leased), its
 * attempt counted and its log record written as pending. Two workers never hold one delivery.
 */
export async function claimDue(deps: ServiceDeps, owner: string, limit: number, leaseMs: number, perMerchant = PER_MERCHANT_IN_FLIGHT): Promise<Claim[]> {
  if (limit <= 0) return [];
  if (!(await anythingDue(deps))) return [];
  const rows = await deps.db.tx(async (q) => {
    const serverNow = deps.clock.now().getTime();
    const nowIso = iso(serverNow);
    // dialect.skipLocked is the whole locking clause (' FOR UPDATE SKIP LOCKED' on PostgreSQL)
    const lockTail = q.dialect.skipLocked;
    const offsets = await merchantOffsets(q, deps);
    // attempts in flight now, by any worker, per merchant
    const busy = new Map<string, number>();
    for (const r of await q.all<{ merchant_id: string; n: number }>(
      "SELECT merchant_id, COUNT(*) AS n FROM webhook_deliveries WHERE state = 'scheduled' AND lease_until > ? GROUP BY merchant_id",
      [nowIso],
    )) {
      busy.set(r.merchant_id, Number(r.n));
    }
    // merchants with something due, the longest-waiting first (a merchant whose sandbox clock is
    // ahead has its own "now", so those are asked too); each then gets at most its share
    const merchants = (
      await q.all<{ merchant_id: string }>(
        `SELECT merchant_id, MIN(next_attempt_at) AS first FROM webhook_deliveries
          WHERE state = 'scheduled' AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until <= ?)
          GROUP BY merchant_id ORDER BY first, merchant_id LIMIT ?`,
        [nowIso, nowIso, Math.max(limit * 4, 100)],
      )
    ).map((r) => r.merchant_id);
    for (const m of offsets.keys()) if (!merchants.includes(m)) merchants.push(m);
    const ids: string[] = [];
    for (const merchantId of merchants) {
      if (ids.length >= limit) break;
      const share = Math.min(perMerchant - (busy.get(merchantId) ?? 0), limit - ids.length);
      if (share <= 0) continue;
      const more = await q.all<{ id: string }>(
        `SELECT id FROM webhook_deliveries
          WHERE merchant_id = ? AND state = 'scheduled' AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until <= ?)
          ORDER BY next_attempt_at, id LIMIT ?${lockTail}`,
        [merchantId, iso(serverNow + (offsets.get(merchantId) ?? 0)), nowIso, Math.min(share, CLAIM_WINDOW)],
      );
      for (const r of more) ids.push(r.id);
    }
    const claimed: { d: DeliveryRow; logId: string; url: string; secretEnc: string; previousEnc: string | null; data: string; eventCreatedAt: string; attempt: number; maxAttempts: number }[] = [];
    for (const id of ids) {
      const d = await q.get<DeliveryRow>(`SELECT * FROM webhook_deliveries WHERE id = ?${q.dialect.forUpdate}`, [id]);
      if (d?.state !== 'scheduled') continue;
      const mNow = iso(serverNow + (offsets.get(d.merchant_id) ?? 0));
      if (d.lease_log_id) {
        // a previous claim whose process died: that attempt counted and failed
        await q.run("UPDATE webhook_delivery_logs SET status = 'failed', error_message = ? WHERE id = ? AND status = 'pending'", [
          INTERRUPTED,
          d.lease_log_id,
        ]);
      }
      const ep = await q.get<{ url: string; secret_enc: string; previous_secret_enc: string | null; previous_secret_expires_at: string | null; status: string; deleted_at: string | null }>(
        'SELECT url, secret_enc, previous_secret_enc, previous_secret_expires_at, status, deleted_at FROM webhook_endpoints WHERE id = ?',
        [d.endpoint_id],
      );
      if (ep?.status !== 'active' || ep.deleted_at) {
        await cancelDelivery(q, d, mNow, 'the endpoint is disabled or deleted');
        continue;
      }
      if (d.attempts >= d.max_attempts) {
        await transition(q, 'webhook_delivery', d.id, d.state, 'failed', { next_attempt_at: null, ...RELEASED, updated_at: mNow });
        continue;
      }
      const attempt = d.attempts + 1;
      const logId = d.pending_log_id ?? deps.ids();
      const took = await q.run(
        `UPDATE webhook_deliveries SET attempts = ?, lease_owner = ?, lease_until = ?, lease_log_id = ?, pending_log_id = NULL, updated_at = ?
          WHERE id = ? AND state = 'scheduled' AND attempts = ? AND (lease_until IS NULL OR lease_until <= ?)`,
        [attempt, owner, iso(serverNow + leaseMs), logId, mNow, d.id, d.attempts, nowIso],
      );
      if (took.changes !== 1) continue;
      if (d.pending_log_id) {
        await q.run('UPDATE webhook_delivery_logs SET postback_url = ?, attempt = ?, max_attempts = ? WHERE id = ?', [
          ep.url,
          attempt,
          d.max_attempts,
          logId,
        ]);
      } else {
        await q.run(
          `INSERT INTO webhook_delivery_logs (id, merchant_id, delivery_id, webhook_endpoint_id, event_id, charge_id, event_name, postback_url,
             status, attempt, max_attempts, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?)`,
          [logId, d.merchant_id, d.id, d.endpoint_id, d.event_id, d.charge_id, d.event_type, ep.url, attempt, d.max_attempts, mNow],
        );
      }
      const ev = await q.get<{ data: string; created_at: string }>('SELECT data, created_at FROM events WHERE id = ?', [d.event_id]);
      // during a rotation's overlap (merchant clock) the replaced secret signs too
      const previousEnc = ep.previous_secret_enc && ep.previous_secret_expires_at && ep.previous_secret_expires_at > mNow ? ep.previous_secret_enc : null;
      claimed.push({ d, logId, url: ep.url, secretEnc: ep.secret_enc, previousEnc, data: ev?.data ?? '{}', eventCreatedAt: ev?.created_at ?? d.origin_at, attempt, maxAttempts: d.max_attempts });
    }
    return claimed;
  });
  return rows.map((c) => ({
    deliveryId: c.d.id,
    logId: c.logId,
    owner,
    merchantId: c.d.merchant_id,
    endpointId: c.d.endpoint_id,
    url: c.url,
    secret: deps.keyring.decrypt(c.secretEnc),
    ...(c.previousEnc ? { previousSecret: deps.keyring.decrypt(c.previousEnc) } : {}),
    eventId: c.d.event_id,
    eventType: c.d.event_type,
    eventCreatedAt: c.eventCreatedAt,
    data: c.data,
    attempt: c.attempt,
    maxAttempts: c.maxAttempts,
    originMs: Date.parse(c.d.origin_at),
  }));
}

async function cancelDelivery(q: Queryable, d: { id: string; state: string; pending_log_id: string | null }, nowIso: string, reason: string): Promise<void> {
  await transition(q, 'webhook_delivery', d.id, d.state, 'cancelled', { next_attempt_at: null, pending_log_id: null, updated_at: nowIso });
  await q.run('UPDATE webhook_delivery_logs SET next_retry_at = NULL WHERE delivery_id = ? AND next_retry_at IS NOT NULL', [d.id]);
  if (d.pending_log_id) {
    await q.run("UPDATE webhook_delivery_logs SET status = 'failed', error_message = ? WHERE id = ? AND status = 'pending'", [
      `not attempted: ${reason}`,
      d.pending_log_id,
    ]);
  }
}

/**
 * Stops the scheduled deliveries of an endpoint that is being disabled or deleted (in the
 * caller's transaction). Attempts in flight finish and are not retried.
 */
export async function cancelEndpointDeliveries(q: Queryable, endpointId: string, nowIso: string, reason: string): Promise<void> {
  const rows = await q.all<{ id: string; state: string; pending_log_id: string | null }>(
    `SELECT id, state, pending_log_id FROM webhook_deliveries WHERE endpoint_id = ? AND state = 'scheduled' AND lease_owner IS NULL${q.dialect.forUpdate}`,
    [endpointId],
  );
  for (const d of rows) await cancelDelivery(q, d, nowIso, reason);
}

/** What one HTTP attempt produced. */
export interface SendResult {
  status: number | null;
  body: string | null;
  error: string | null;
  /** no answer within the time limit (the endpoint is then backed off) */
  timedOut?: boolean;
}

function truncateUtf8(buf: Buffer, limit: number): string {
  if (buf.length <= limit) return buf.toString('utf8');
  let n = limit;
  while (n > 0 && ((buf[n] ?? 0) & 0xc0) === 0x80) n--;
  return buf.subarray(0, n).toString('utf8');
}

function describeError(err: unknown, timeoutMs: number, timedOut: boolean): string {
  if (timedOut) return `timed out after ${timeoutMs} ms`;
  let e: unknown = err;
  for (let i = 0; i < 5 && e; i++) {
    const x = e as { code?: string; message?: string; cause?: unknown; name?: string };
    if (x.code === 'EADDRBLOCKED') return x.message ?? 'address refused';
    if (x.code === 'ECONNREFUSED') return 'connection refused';
    if (x.code === 'ECONNRESET' || x.code === 'UND_ERR_SOCKET') return 'connection reset by the receiver';
    if (x.code === 'ENOTFOUND' || x.code === 'EAI_AGAIN') return 'could not resolve the host name';
    if (x.code === 'UND_ERR_CONNECT_TIMEOUT' || x.code === 'UND_ERR_HEADERS_TIMEOUT' || x.code === 'UND_ERR_BODY_TIMEOUT') {
      return `timed out after ${timeoutMs} ms`;
    }
    if (x.code && /^(ERR_TLS|CERT_|UNABLE_TO|DEPTH_ZERO|SELF_SIGNED)/.test(x.code)) return `TLS error: ${x.code}`;
    if (!x.cause) return (x.code ? `${x.code}: ` : '') + (x.message ?? 'request failed');
    e = x.cause;
  }
  return 'request failed';
}

/**
 * The HTTP side: POSTs with an undici Agent whose sockets resolve names through the
 * address guard, no redirect following, a hard time limit on the whole exchange, and at
 * most RESPONSE_BODY_LIMIT bytes of the response read.
 */
export class Sender {
  private agent: Agent | undefined;
  private undici: typeof import('undici') | undefined;
  constructor(
    private readonly mode: ServiceDeps['mode'],
    private readonly resolver: Resolver = systemResolver,
  ) {}

  /** undici loads on the first delivery, not with the server: most commands never send one. */
  private async http(): Promise<{ agent: Agent; request: (typeof import('undici'))['request'] }> {
    if (!this.undici) {
      const m = await import('undici');
      this.undici = (m.Agent ? m : (m as unknown as { default: typeof m }).default) as typeof m;
    }
    this.agent ??= new this.undici.Agent({
      connect: { lookup: guardedLookup(this.mode, this.resolver) as never },
      keepAliveTimeout: 4_000,
      connections: 16,
    });
    return { agent: this.agent, request: this.undici.request };
  }

  async post(url: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<SendResult> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return { status: null, body: null, error: 'invalid URL' };
    }
    const blocked = literalBlocked(parsed, this.mode);
    if (blocked) return { status: null, body: null, error: blocked.message };
    const ac = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ac.abort();
    }, timeoutMs);
    try {
      const { agent, request } = await this.http();
      const res = await request(parsed, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': WEBHOOK_USER_AGENT, ...headers },
        body,
        dispatcher: agent,
        signal: ac.signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const chunks: Buffer[] = [];
      let size = 0;
      try {
        for await (const chunk of res.body) {
          const b = chunk as Buffer;
          chunks.push(b);
          size += b.length;
          if (size > RESPONSE_BODY_LIMIT) break;
        }
      } catch {
        // a body cut short still leaves the status code, which decides the outcome
      }
      if (!res.body.destroyed) res.body.destroy();
      const text = truncateUtf8(Buffer.concat(chunks), RESPONSE_BODY_LIMIT);
      let error: string | null = null;
      if (res.statusCode >= 300 && res.statusCode < 400) {
        const loc = res.headers.location;
        error = `redirect (${res.statusCode}) not followed${loc ? `: Location ${String(loc).slice(0, 200)}` : ''}`;
      } else if (res.statusCode < 200 || res.statusCode >= 300) {
        error = `the receiver answered ${res.statusCode}`;
      }
      return { status: res.statusCode, body: text, error };
    } catch (err) {
      const error = describeError(err, timeoutMs, timedOut);
      return { status: null, body: null, error, timedOut: error.startsWith('timed out') };
    } finally {
      clearTimeout(timer);
    }
  }

  close(): Promise<void> {
    return this.agent ? this.agent.close() : Promise.resolve();
  }
}

export type Outcome = 'delivered' | 'retry' | 'failed' | 'disabled' | 'lost';

/** Builds the signed request of a claim and sends it. No transaction is open here. */
export async function send(claim: Claim, sender: Sender, timeoutMs: number, wallClock: () => number = Date.now): Promise<SendResult> {
  const body = `{"id":${JSON.stringify(claim.eventId)},"type":${JSON.stringify(claim.eventType)},"created_at":${JSON.stringify(
    claim.eventCreatedAt,
  )},"data":${claim.data}}`;
  const headers = webhookHeaders(claim.previousSecret ? [claim.secret, claim.previousSecret] : [claim.secret], claim.eventId, Math.floor(wallClock() / 1000), body);
  return sender.post(claim.url, headers, body, timeoutMs);
}

/** Writes the outcome of an attempt, if our lease still holds. */
export async function complete(deps: ServiceDeps, claim: Claim, r: SendResult, random: () => number = Math.random): Promise<Outcome> {
  return deps.db.tx(async (q) => {
    const d = await q.get<DeliveryRow>(`SELECT * FROM webhook_deliveries WHERE id = ?${q.dialect.forUpdate}`, [claim.deliveryId]);
    if (!d || d.lease_owner !== claim.owner || d.lease_log_id !== claim.logId) return 'lost';
    const mNowMs = deps.clock.now().getTime() + (await merchantOffset(q, deps, d.merchant_id));
    const mNow = iso(mNowMs);
    const ok = r.status !== null && r.status >= 200 && r.status < 300;
    const gone = r.status === 410;
    const ep = await q.get<{ status: string; deleted_at: string | null }>(`SELECT status, deleted_at FROM webhook_endpoints WHERE id = ?${q.dialect.forUpdate}`, [
      d.endpoint_id,
    ]);
    const endpointLive = !!ep && ep.status === 'active' && !ep.deleted_at;
    const logUpdate = `UPDATE webhook_delivery_logs SET status = ?, response_status_code = ?, response_body = ?, error_message = ?,
        next_retry_at = ?, delivered_at = ? WHERE id = ?`;
    if (ok) {
      await q.run(logUpdate, ['delivered', r.status, r.body, null, null, mNow, claim.logId]);
      await transition(q, 'webhook_delivery', d.id, d.state, 'delivered', { next_attempt_at: null, delivered_at: mNow, ...RELEASED, updated_at: mNow });
      return 'delivered';
    }
    if (gone) {
      await q.run(logUpdate, ['failed', r.status, r.body, 'the receiver answered 410 Gone: the endpoint was disabled', null, null, claim.logId]);
      await transition(q, 'webhook_delivery', d.id, d.state, 'failed', { next_attempt_at: null, ...RELEASED, updated_at: mNow });
      if (ep && ep.status === 'active') {
        await transition(q, 'webhook_endpoint', d.endpoint_id, ep.status, 'disabled', { disabled_reason: 'the receiver answered 410 Gone', updated_at: mNow });
        await cancelEndpointDeliveries(q, d.endpoint_id, mNow, 'the endpoint was disabled after a 410 Gone');
      }
      return 'disabled';
    }
    if (r.timedOut && endpointLive) await backOffEndpoint(q, d.endpoint_id, d.id, mNowMs);
    if (d.attempts < d.max_attempts && d.attempts < MAX_ATTEMPTS && endpointLive) {
      // a timed-out attempt is retried no sooner than the endpoint's back-off
      const next = iso(Math.max(scheduledAt(Date.parse(d.origin_at), d.attempts, random), mNowMs, r.timedOut ? mNowMs + SLOW_ENDPOINT_BACKOFF_MS : 0));
      await q.run(logUpdate, ['failed', r.status, r.body, r.error, next, null, claim.logId]);
      await q.run('UPDATE webhook_deliveries SET next_attempt_at = ?, lease_owner = NULL, lease_until = NULL, lease_log_id = NULL, updated_at = ? WHERE id = ?', [
        next,
        mNow,
        d.id,
      ]);
      return 'retry';
    }
    await q.run(logUpdate, ['failed', r.status, r.body, r.error, null, null, claim.logId]);
    await transition(q, 'webhook_delivery', d.id, d.state, endpointLive ? 'failed' : 'cancelled', { next_attempt_at: null, ...RELEASED, updated_at: mNow });
    return 'failed';
  });
}

/**
 * A slow endpoint (an attempt timed out) is backed off: its other deliveries that would come due
 * within SLOW_ENDPOINT_BACKOFF_MS wait until then (no attempt is counted), so one hanging
 * receiver does not take a worker slot for every event queued for it.
 */
async function backOffEndpoint(q: Queryable, endpointId: string, exceptId: string, mNowMs: number): Promise<void> {
  const until = iso(mNowMs + SLOW_ENDPOINT_BACKOFF_MS);
  const rows = await q.all<{ id: string }>(
    `SELECT id FROM webhook_deliveries WHERE endpoint_id = ? AND state = 'scheduled' AND lease_owner IS NULL AND id <> ? AND next_attempt_at < ?${q.dialect.forUpdate}`,
    [endpointId, exceptId, until],
  );
  for (const r of rows) {
    await q.run("UPDATE webhook_deliveries SET next_attempt_at = ? WHERE id = ? AND state = 'scheduled' AND lease_owner IS NULL", [until, r.id]);
    await q.run('UPDATE webhook_delivery_logs SET next_retry_at = ? WHERE delivery_id = ? AND next_retry_at IS NOT NULL AND next_retry_at < ?', [until, r.id, until]);
  }
}

/** Deliveries due now (for reporting what is left after a bounded run). */
export async function countDue(deps: ServiceDeps): Promise<number> {
  const nowIso = deps.clock.now().toISOString();
  const r = await deps.db.get<{ n: number }>(
    "SELECT COUNT(*) AS n FROM webhook_deliveries WHERE state = 'scheduled' AND next_attempt_at <= ?",
    [nowIso],
  );
  const undispatched = await deps.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM events WHERE dispatched_at IS NULL');
  return Number(r?.n ?? 0) + Number(undispatched?.n ?? 0);
}
