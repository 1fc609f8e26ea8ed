import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { reopen, testEnv, type TestEnv } from '../helpers/server.js';
import { cardCharge } from '../helpers/money.js';
import { receiver, whHeaders, type Receiver } from '../helpers/receiver.js';
import { signedDeliveriesVerify } from '../helpers/signed-deliveries.js';
import { emitEvent } from '../../src/server/services/events.js';
import type { EventName } from '../../src/contract/events.js';
import { webhookPayload } from '../../src/contract/resources/webhooks.js';
import { deliverDue, DeliveryWorker, resolveDeliveryOptions } from '../../src/server/webhooks/worker.js';
import { DEFAULT_TIMEOUT_MS, MAX_ATTEMPTS, RETRY_SCHEDULE_MS, JITTER_FRACTION, scheduledAt } from '../../src/server/webhooks/delivery.js';
import { generateSecret, sign } from '../../src/server/webhooks/signature.js';
import type { Resolver } from '../../src/server/webhooks/netguard.js';

let env: TestEnv;
const receivers: Receiver[] = [];
beforeEach(async () => {
  env = await testEnv();
});
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
  await env.close();
});

async function recv(...args: Parameters<typeof receiver>): Promise<Receiver> {
  const r = await receiver(...args);
  receivers.push(r);
  return r;
}

async function endpoint(url: string, events: string[] = ['*'], headers?: Record<string, string>): Promise<{ id: string; secret: string }> {
  const r = await env.call('POST', '/v1/postbacks/endpoints', { url, events }, headers);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return { id: r.body.data.id, secret: r.body.data.secret };
}

function emit(type: EventName, data: Record<string, unknown>, o: { chargeId?: string; merchantId?: string; e?: TestEnv } = {}): Promise<string> {
  const e = o.e ?? env;
  return e.rt.deps.db.tx((q) =>
    emitEvent(q, e.rt.deps.ids, { merchantId: o.merchantId ?? e.merchant.merchant_id, type, data, chargeId: o.chargeId ?? null, at: e.clock.now() }),
  );
}

async function logs(query = '', headers?: Record<string, string>): Promise<any[]> {
  const r = await env.call('GET', `/v1/postbacks/delivery-logs?per_page=100${query ? '&' + query : ''}`, undefined, headers);
  expect(r.status).toBe(200);
  return r.body.data;
}

const charge = (id: string, status = 'captured') => ({
  id,
  merchant_id: env.merchant.merchant_id,
  amount: 1990,
  currency: 'BRL',
  status,
  payment_method: 'credit_card',
  product_type: 'digital',
  created_at: env.clock.now().toISOString(),
  updated_at: env.clock.now().toISOString(),
});

const run = (o: Parameters<typeof deliverDue>[1] = {}) => deliverDue(env.rt.deps, { deadlineMs: 100_000, ...o });

describe('signatures (the public standardwebhooks verifier is the judge)', () => {
  // 1,000 of them, and their figures: test/reliability/webhook-signatures.test.ts
  it('50 deliveries with random payloads all verify and carry {id, type, created_at, data}', async () => {
    await signedDeliveriesVerify(env, 50);
  });

  it('a tampered body, a wrong secret and a stale timestamp do not verify', async () => {
    const rc = await recv();
    const ep = await endpoint(rc.url);
    await emit('charge.captured', charge(crypto.randomUUID()));
    await run();
    const [r] = rc.requests;
    const h = whHeaders(r!);
    const wh = new Webhook(ep.secret);
    expect(() => wh.verify(r!.body, h)).not.toThrow();
    expect(() => wh.verify(r!.body.replace('1990', '1991'), h)).toThrow();
    expect(() => wh.verify(r!.body + ' ', h)).toThrow();
    expect(() => new Webhook(generateSecret()).verify(r!.body, h)).toThrow();
    // our own signer with a timestamp 10 minutes old: the signature is right, the time is not
    const stale = Math.floor(Date.now() / 1000) - 600;
    const staleHeaders = { ...h, 'webhook-timestamp': String(stale), 'webhook-signature': sign(ep.secret, h['webhook-id']!, stale, r!.body) };
    expect(() => wh.verify(r!.body, staleHeaders)).toThrow(/too old/i);
    const fresh = Math.floor(Date.now() / 1000);
    expect(() => wh.verify(r!.body, { ...h, 'webhook-timestamp': String(fresh), 'webhook-signature': sign(ep.secret, h['webhook-id']!, fresh, r!.body) })).not.toThrow();
  });
});

describe('retries', () => {
  it('a receiver answering 500 sees exactly max_attempts attempts at the scheduled gaps', async () => {
    const rc = await recv((_r, res) => {
      res.statusCode = 500;
      res.end('boom');
    });
    await endpoint(rc.url, ['charge.failed']);
    const origin = env.clock.now().getTime();
    await emit('charge.failed', charge(crypto.randomUUID(), 'failed'));
    const times: number[] = [];
    for (let k = 1; k <= MAX_ATTEMPTS; k++) {
      const out = await run();
      expect(out.attempted, `attempt ${k}`).toBe(1);
      times.push(env.clock.now().getTime());
      expect(rc.requests).toHaveLength(k);
      const [last] = await logs();
      expect(last).toMatchObject({ attempt: k, max_attempts: MAX_ATTEMPTS, status: 'failed', response_status_code: 500, response_body: 'boom' });
      if (k === MAX_ATTEMPTS) {
        expect(last.next_retry_at).toBeNull();
        break;
      }
      const next = Date.parse(last.next_retry_at);
      const want = origin + RETRY_SCHEDULE_MS[k]!;
      const gap = RETRY_SCHEDULE_MS[k]! - RETRY_SCHEDULE_MS[k - 1]!;
      expect(Math.abs(next - want)).toBeLessThanOrEqual(JITTER_FRACTION * gap);
      // not a moment early
      env.clock.set(new Date(next - 1));
      expect((await run()).attempted).toBe(0);
      env.clock.set(new Date(next));
    }
    expect(times).toHaveLength(MAX_ATTEMPTS);
    env.clock.advance(72 * 3_600_000);
    expect((await run()).attempted).toBe(0);
    expect(rc.requests).toHaveLength(MAX_ATTEMPTS);
    const all = await logs();
    expect(all.map((l) => l.attempt)).toEqual([10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
    expect(all.filter((l) => l.next_retry_at === null)).toHaveLength(1);
    // every attempt of one event carries the same webhook-id, each freshly signed
    expect(new Set(rc.requests.map((r) => r.headers['webhook-id'])).size).toBe(1);
  });

  it('jitter stays within ±10 % of each gap and keeps the attempts in order', () => {
    for (let k = 1; k < MAX_ATTEMPTS; k++) {
      const gap = RETRY_SCHEDULE_MS[k]! - RETRY_SCHEDULE_MS[k - 1]!;
      expect(scheduledAt(0, k, () => 0)).toBe(RETRY_SCHEDULE_MS[k]! - 0.1 * gap);
      expect(scheduledAt(0, k, () => 0.999999)).toBeLessThanOrEqual(RETRY_SCHEDULE_MS[k]! + 0.1 * gap);
      expect(scheduledAt(0, k, () => 0)).toBeGreaterThan(scheduledAt(0, k - 1, () => 0.999999));
    }
    expect(scheduledAt(1000, 0, () => 0.5)).toBe(1000);
    expect(() => scheduledAt(0, MAX_ATTEMPTS)).toThrow(RangeError);
  });

  it('a receiver that answers after the time limit is cut off and the attempt fails', async () => {
    const rc = await recv((_r, res) => {
      setTimeout(() => res.end('late'), 3000).unref();
    });
    await endpoint(rc.url);
    await emit('charge.captured', charge(crypto.randomUUID()));
    const t0 = performance.now();
    const out = await run({ timeoutMs: 300 });
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(out).toMatchObject({ attempted: 1, delivered: 0, failed: 1 });
    const [l] = await logs();
    expect(l).toMatchObject({ status: 'failed', response_status_code: null, error_message: 'timed out after 300 ms', attempt: 1 });
    expect(l.next_retry_at).not.toBeNull();
  });

  it('uses 15 s as the time limit unless told otherwise, and a slow 2xx within it is delivered', async () => {
    expect(DEFAULT_TIMEOUT_MS).toBe(15_000);
    expect(resolveDeliveryOptions({}).timeoutMs).toBe(15_000);
    expect(new DeliveryWorker(env.rt.deps).timeoutMs).toBe(15_000);
    const rc = await recv((_r, res) => {
      setTimeout(() => res.end('ok'), 1200).unref();
    });
    await endpoint(rc.url);
    await emit('charge.captured', charge(crypto.randomUUID()));
    expect((await run()).delivered).toBe(1);
  });

  it('a 301 is not followed: the attempt fails and the target of the redirect is never called', async () => {
    const target = await recv();
    const rc = await recv((_r, res) => {
      res.writeHead(301, { location: target.url });
      res.end();
    });
    await endpoint(rc.url);
    await emit('charge.captured', charge(crypto.randomUUID()));
    await run();
    expect(rc.requests).toHaveLength(1);
    expect(target.requests).toHaveLength(0);
    const [l] = await logs();
    expect(l).toMatchObject({ status: 'failed', response_status_code: 301 });
    expect(l.error_message).toContain('not followed');
    expect(l.next_retry_at).not.toBeNull();
  });

  it('a 410 disables the endpoint after one attempt: no retry, no further events', async () => {
    const rc = await recv((_r, res) => {
      res.statusCode = 410;
      res.end('gone');
    });
    const ep = await endpoint(rc.url);
    await emit('charge.captured', charge(crypto.randomUUID()));
    await run();
    expect(rc.requests).toHaveLength(1);
    const [l] = await logs();
    expect(l).toMatchObject({ status: 'failed', response_status_code: 410, attempt: 1, next_retry_at: null });
    expect((await env.call('GET', `/v1/postbacks/endpoints/${ep.id}`)).body.data.status).toBe('disabled');
    await emit('charge.refunded', charge(crypto.randomUUID(), 'refunded'));
    env.clock.advance(48 * 3_600_000);
    expect((await run()).attempted).toBe(0);
    expect(rc.requests).toHaveLength(1);
    expect(await logs()).toHaveLength(1);
  });

  it('a 2xx other than 200 is delivered, and a delivered event is never sent again', async () => {
    const rc = await recv((_r, res) => {
      res.statusCode = 204;
      res.end();
    });
    await endpoint(rc.url);
    await emit('charge.captured', charge(crypto.randomUUID()));
    const at = env.clock.now().toISOString();
    expect((await run()).delivered).toBe(1);
    env.clock.advance(48 * 3_600_000);
    expect((await run()).attempted).toBe(0);
    const [l] = await logs();
    expect(l).toMatchObject({ status: 'delivered', response_status_code: 204, next_retry_at: null, error_message: null, delivered_at: at, created_at: at });
    expect(rc.requests).toHaveLength(1);
  });

  it('a connection refused is a failed attempt that is retried', async () => {
    const rc = await recv();
    const url = rc.url;
    await rc.close();
    receivers.splice(receivers.indexOf(rc), 1);
    await endpoint(url);
    await emit('charge.captured', charge(crypto.randomUUID()));
    await run();
    const [l] = await logs();
    expect(l).toMatchObject({ status: 'failed', error_message: 'connection refused', response_status_code: null });
    expect(l.next_retry_at).not.toBeNull();
  });

  it('logs at most 2 KiB of the response body, cut on a character boundary', async () => {
    const rc = await recv((_r, res) => {
      res.statusCode = 500;
      res.end('é'.repeat(3000) + 'TAIL');
    });
    await endpoint(rc.url);
    await emit('charge.captured', charge(crypto.randomUUID()));
    await run();
    const [l] = await logs();
    expect(Buffer.byteLength(l.response_body)).toBeLessThanOrEqual(2048);
    expect(Buffer.byteLength(l.response_body)).toBeGreaterThan(2040);
    expect(l.response_body).toMatch(/^é+$/);
  });

  it('disabling an endpoint stops its scheduled retries and clears next_retry_at', async () => {
    const rc = await recv((_r, res) => {
      res.statusCode = 503;
      res.end();
    });
    const ep = await endpoint(rc.url);
    await emit('charge.captured', charge(crypto.randomUUID()));
    await run();
    expect((await logs())[0].next_retry_at).not.toBeNull();
    await env.call('PATCH', `/v1/postbacks/endpoints/${ep.id}`, { status: 'disabled' });
    expect((await logs())[0].next_retry_at).toBeNull();
    await env.call('PATCH', `/v1/postbacks/endpoints/${ep.id}`, { status: 'active' });
    env.clock.advance(48 * 3_600_000);
    expect((await run()).attempted).toBe(0);
    expect(rc.requests).toHaveLength(1);
  });

  it("retries come due on the merchant's sandbox clock", async () => {
    const rc = await recv((_r, res) => {
      res.statusCode = 500;
      res.end();
    });
    await endpoint(rc.url);
    await emit('charge.captured', charge(crypto.randomUUID()));
    await run();
    expect((await run()).attempted).toBe(0);
    await env.rt.deps.db.run('UPDATE merchants SET clock_offset_ms = ? WHERE id = ?', [3_600_000, env.merchant.merchant_id]);
    // one hour on: the attempts scheduled at 5 s, 5 min and 30 min are due, the one at 2 h is not
    const out = await run();
    expect(out.attempted).toBe(3);
    expect(rc.requests).toHaveLength(4);
    const [last] = await logs();
    expect(last.attempt).toBe(4);
    expect(Date.parse(last.next_retry_at) - env.clock.now().getTime()).toBeGreaterThan(3_600_000);
  });
});

describe('fan-out and the delivery log', () => {
  it("an event for a charge appears in the log of every subscribed endpoint of its merchant and in no other merchant's", async () => {
    const [r1, r2, r3, r4, rb] = await Promise.all([recv(), recv(), recv(), recv(), recv()]);
    const all = await endpoint(r1!.url, ['*']);
    const captured = await endpoint(r2!.url, ['charge.captured', 'charge.failed']);
    const other = await endpoint(r3!.url, ['withdrawal.pending']);
    const off = await endpoint(r4!.url, ['charge.captured']);
    await env.call('PATCH', `/v1/postbacks/endpoints/${off.id}`, { status: 'disabled' });
    const mb = await env.newMerchant('Loja B');
    const hb = { authorization: env.auth(mb) };
    await endpoint(rb!.url, ['*'], hb);

    const chargeId = crypto.randomUUID();
    const eventId = await emit('charge.captured', charge(chargeId), { chargeId });
    const bEvent = await emit('charge.pending', { id: crypto.randomUUID() }, { merchantId: mb.merchant_id });
    await run();

    const mine = await logs(`charge_id=${chargeId}`);
    expect(mine.map((l) => l.webhook_endpoint_id).sort()).toEqual([all.id, captured.id].sort());
    for (const l of mine) {
      expect(l).toMatchObject({ charge_id: chargeId, event_id: eventId, event_name: 'charge.captured', status: 'delivered', attempt: 1, max_attempts: 10 });
    }
    expect(mine.find((l) => l.webhook_endpoint_id === all.id).postback_url).toBe(r1!.url);
    expect(r3!.requests).toHaveLength(0);
    expect(r4!.requests).toHaveLength(0);
    expect(await logs()).toHaveLength(2);
    expect(await logs(`webhook_endpoint_id=${other.id}`)).toHaveLength(0);
    // merchant B sees only its own event; A's charge is nowhere in B's log
    const bLogs = await logs('', hb);
    expect(bLogs.map((l) => l.event_id)).toEqual([bEvent]);
    expect(await logs(`charge_id=${chargeId}`, hb)).toHaveLength(0);
    expect(rb!.requests.map((r) => r.headers['webhook-id'])).toEqual([bEvent]);
    // and B cannot redeliver A's log record
    expect((await env.call('POST', `/v1/postbacks/delivery-logs/${mine[0].id}/retry`, undefined, hb)).status).toBe(404);
  });

  it('filters the log by status and event name and pages it newest first', async () => {
    const ok = await recv();
    const bad = await recv((_r, res) => {
      res.statusCode = 500;
      res.end();
    });
    await endpoint(ok.url, ['charge.captured']);
    await endpoint(bad.url, ['charge.failed']);
    for (let i = 0; i < 3; i++) {
      await emit('charge.captured', charge(crypto.randomUUID()));
      await emit('charge.failed', charge(crypto.randomUUID(), 'failed'));
      env.clock.advance(1000);
      await run();
    }
    expect((await logs('status=delivered')).every((l) => l.event_name === 'charge.captured')).toBe(true);
    expect(await logs('status=failed&event_name=charge.failed')).toHaveLength(3);
    expect(await logs('status=failed&event_name=charge.captured')).toHaveLength(0);
    const p = await env.call('GET', '/v1/postbacks/delivery-logs?per_page=4&page=2');
    expect(p.body.pagination).toEqual({ page: 2, perPage: 4, total: 6, totalPages: 2 });
    const first = (await env.call('GET', '/v1/postbacks/delivery-logs?per_page=6')).body.data;
    expect(first.map((l: { created_at: string }) => l.created_at)).toEqual([...first.map((l: { created_at: string }) => l.created_at)].sort().reverse());
  });

  it('fan-out is idempotent: running it twice, or concurrently, makes one delivery per (event, endpoint)', async () => {
    const rc = await recv();
    await endpoint(rc.url);
    await emit('charge.captured', charge(crypto.randomUUID()));
    await Promise.all([run(), run(), run()]);
    expect(rc.requests).toHaveLength(1);
    const n = await env.rt.deps.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM webhook_deliveries');
    expect(n!.n).toBe(1);
  });

  it('never puts the secret in a log line, a log record or an error', async () => {
    const lines: string[] = [];
    env = await reopen(env, { log: (e) => lines.push(JSON.stringify(e)) });
    const rc = await recv((_r, res) => {
      res.statusCode = 500;
      res.end('no');
    });
    const ep = await endpoint(rc.url);
    await emit('charge.captured', charge(crypto.randomUUID()));
    await run();
    const key = ep.secret.slice('whsec_'.length);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.join('\n')).not.toContain(key);
    const rows = await env.rt.deps.db.all('SELECT * FROM webhook_delivery_logs');
    expect(JSON.stringify(rows)).not.toContain(key);
    expect(JSON.stringify(await logs())).not.toContain(key);
  });
});

describe('manual redelivery', () => {
  it('records a new pending attempt that the next run delivers with the same webhook-id', async () => {
    const rc = await recv();
    await endpoint(rc.url);
    const eventId = await emit('charge.captured', charge(crypto.randomUUID()));
    await run();
    const [first] = await logs();
    env.clock.advance(60_000);
    const r = await env.call('POST', `/v1/postbacks/delivery-logs/${first.id}/retry`);
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ status: 'pending', attempt: 2, max_attempts: 2, event_id: eventId, next_retry_at: null, response_status_code: null });
    // asking again while it is pending returns the same pending attempt
    const again = await env.call('POST', `/v1/postbacks/delivery-logs/${first.id}/retry`);
    expect(again.status).toBe(200);
    expect(again.body.data.id).toBe(r.body.data.id);
    expect((await run()).delivered).toBe(1);
    expect(rc.requests.map((q) => q.headers['webhook-id'])).toEqual([eventId, eventId]);
    const after = await logs();
    expect(after.map((l) => [l.attempt, l.status])).toEqual([
      [2, 'delivered'],
      [1, 'delivered'],
    ]);
    expect(after[0].id).toBe(r.body.data.id);
    // only that one attempt: nothing else follows
    env.clock.advance(48 * 3_600_000);
    expect((await run()).attempted).toBe(0);
  });

  it('brings a retrying delivery forward to now', async () => {
    const rc = await recv((_r, res) => {
      res.statusCode = 500;
      res.end();
    });
    await endpoint(rc.url);
    await emit('charge.captured', charge(crypto.randomUUID()));
    await run();
    const [first] = await logs();
    const r = await env.call('POST', `/v1/postbacks/delivery-logs/${first.id}/retry`);
    expect(r.body.data).toMatchObject({ attempt: 2, max_attempts: 10, status: 'pending' });
    rc.behave((_r, res) => void res.end('ok'));
    expect((await run()).delivered).toBe(1);
    expect(rc.requests).toHaveLength(2);
  });

  it('is refused with 409 while the endpoint is disabled, and 404 for an unknown record', async () => {
    const rc = await recv();
    const ep = await endpoint(rc.url);
    await emit('charge.captured', charge(crypto.randomUUID()));
    await run();
    const [first] = await logs();
    await env.call('PATCH', `/v1/postbacks/endpoints/${ep.id}`, { status: 'disabled' });
    const r = await env.call('POST', `/v1/postbacks/delivery-logs/${first.id}/retry`);
    expect(r.status).toBe(409);
    expect(r.body.error).toBe('invalid_state');
    expect(r.body.message).toContain('disabled');
    await env.call('DELETE', `/v1/postbacks/endpoints/${ep.id}`);
    expect((await env.call('POST', `/v1/postbacks/delivery-logs/${first.id}/retry`)).status).toBe(409);
    expect((await env.call('POST', `/v1/postbacks/delivery-logs/${crypto.randomUUID()}/retry`)).status).toBe(404);
    expect(rc.requests).toHaveLength(1);
  });
});

describe('address policy at send time', () => {
  let prod: TestEnv;
  beforeEach(async () => {
    prod = await testEnv({ mode: 'production' });
  });
  afterEach(async () => {
    await prod.close();
  });

  /** an endpoint row as if its name had resolved to a public address at registration */
  async function rowEndpoint(e: TestEnv, url: string): Promise<void> {
    const ts = e.clock.now().toISOString();
    await e.rt.deps.db.run(
      `INSERT INTO webhook_endpoints (id, merchant_id, url, secret_enc, events, status, created_at, updated_at) VALUES (?, ?, ?, ?, '["*"]', 'active', ?, ?)`,
      [crypto.randomUUID(), e.merchant.merchant_id, url, e.rt.deps.keyring.encrypt(generateSecret()), ts, ts],
    );
  }
  const rebinding: Resolver = (_host, _opts, cb) => cb(null, [{ address: '127.0.0.1', family: 4 }]);

  it('DNS rebinding: a name that now resolves to loopback is refused at connect time in production', async () => {
    const rc = await recv();
    await rowEndpoint(prod, `http://hooks.rebind.test:${rc.port}/hooks`);
    await emit('charge.captured', { id: crypto.randomUUID() }, { e: prod });
    const out = await deliverDue(prod.rt.deps, { resolver: rebinding, deadlineMs: 10_000 });
    expect(out.failed).toBe(1);
    expect(rc.requests).toHaveLength(0);
    const [l] = (await prod.call('GET', '/v1/postbacks/delivery-logs')).body.data;
    expect(l.error_message).toBe('hooks.rebind.test resolves to 127.0.0.1, a loopback address; webhooks may not be sent there');
  });

  it('the same name is delivered in sandbox mode (so the resolver really is the one used to connect)', async () => {
    const rc = await recv();
    await rowEndpoint(env, `http://hooks.rebind.test:${rc.port}/hooks`);
    await emit('charge.captured', { id: crypto.randomUUID() });
    const out = await deliverDue(env.rt.deps, { resolver: rebinding, deadlineMs: 10_000 });
    expect(out.delivered).toBe(1);
    expect(rc.requests).toHaveLength(1);
    expect(rc.requests[0]!.headers.host).toBe(`hooks.rebind.test:${rc.port}`);
  });

  it('an IP-literal loopback URL stored earlier is refused at send time in production', async () => {
    const rc = await recv();
    await rowEndpoint(prod, rc.url);
    await emit('charge.captured', { id: crypto.randomUUID() }, { e: prod });
    await deliverDue(prod.rt.deps, { deadlineMs: 10_000 });
    expect(rc.requests).toHaveLength(0);
    const [l] = (await prod.call('GET', '/v1/postbacks/delivery-logs')).body.data;
    expect(l.error_message).toContain('loopback');
  });
});

describe('the outbox without listeners', () => {
  it('an event of a merchant with no active endpoint is written fanned out; with one it waits for the fan-out', async () => {
    const undispatched = async (id: string) =>
      (await env.rt.deps.db.get<{ d: string | null }>('SELECT dispatched_at AS d FROM events WHERE id = ?', [id]))!.d === null;
    const quiet = await emit('charge.captured', charge(crypto.randomUUID()));
    expect(await undispatched(quiet)).toBe(false);

    const r = await recv();
    const ep = await endpoint(r.url);
    const heard = await emit('charge.captured', charge(crypto.randomUUID()));
    expect(await undispatched(heard)).toBe(true);
    await deliverDue(env.rt.deps, { deadlineMs: 5_000 });
    expect(await undispatched(heard)).toBe(false);
    // only the event written while the endpoint was active is delivered to it
    const d = await env.rt.deps.db.all<{ event_id: string }>('SELECT event_id FROM webhook_deliveries WHERE endpoint_id = ?', [ep.id]);
    expect(d.map((x) => x.event_id)).toEqual([heard]);

    // a disabled endpoint listens no more
    await env.rt.deps.db.run("UPDATE webhook_endpoints SET status = 'disabled' WHERE id = ?", [ep.id]);
    expect(await undispatched(await emit('charge.captured', charge(crypto.randomUUID())))).toBe(false);
  });

  it("a card charge's two events (charge.pending and its decision) are both fanned out, or both wait, and their deliveries are made in that order", async () => {
    const states = async (chargeId: string) =>
      (await env.rt.deps.db.all<{ type: string; d: string | null }>('SELECT type, dispatched_at AS d FROM events WHERE charge_id = ? ORDER BY id', [chargeId])).map(
        (e) => `${e.type} ${e.d === null ? 'waits' : 'fanned out'}`,
      );
    const quiet = (await cardCharge(env, 1000)).body.data;
    expect(await states(quiet.id)).toEqual(['charge.pending fanned out', 'charge.captured fanned out']);

    const r = await recv();
    await endpoint(r.url);
    const heard = (await cardCharge(env, 1000, 1, {}, '4000000000000002')).body.data;
    expect(heard.status).toBe('failed');
    expect(await states(heard.id)).toEqual(['charge.pending waits', 'charge.failed waits']);
    await deliverDue(env.rt.deps, { deadlineMs: 5_000 });
    expect(await states(heard.id)).toEqual(['charge.pending fanned out', 'charge.failed fanned out']);
    // both sent (at once: their arrival order is not promised), their deliveries made in the events' order
    expect(r.requests.map((q) => JSON.parse(q.body).type).sort()).toEqual(['charge.failed', 'charge.pending']);
    // each body is the contract's delivery payload
    for (const q of r.requests) webhookPayload.parse(JSON.parse(q.body));
    const made = await env.rt.deps.db.all<{ type: string }>(
      'SELECT e.type FROM webhook_deliveries d JOIN events e ON e.id = d.event_id WHERE e.charge_id = ? ORDER BY d.id',
      [heard.id],
    );
    expect(made.map((d) => d.type)).toEqual(['charge.pending', 'charge.failed']);
  });
});
