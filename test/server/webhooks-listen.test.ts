import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { receiver, whHeaders, type Receiver } from '../helpers/receiver.js';
import { listen, type RunningServer } from '../../src/server/http.js';
import { emitEvent } from '../../src/server/services/events.js';
import { deliverDue } from '../../src/server/webhooks/worker.js';
import { startListener, type ListenEvent, type WebhookListener } from '../../src/cli/webhookListener.js';
import { HttpTransport, MpayClient } from '../../src/sdk/index.js';

let env: TestEnv;
let server: RunningServer;
let client: MpayClient;
const cleanup: (() => Promise<unknown>)[] = [];

beforeEach(async () => {
  env = await testEnv();
  server = await listen(env.rt, '127.0.0.1', 0);
  // the SDK client over HTTP, as the CLI passes it
  client = new MpayClient({ transport: new HttpTransport(server.url), publicKey: env.merchant.public_key, secretKey: env.merchant.secret_key });
});
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c().catch(() => undefined);
  await server.close();
  await env.close();
});

async function app(status = 202): Promise<Receiver> {
  const r = await receiver((_q, res) => {
    res.statusCode = status;
    res.end('app says hi');
  });
  cleanup.push(() => r.close());
  return r;
}

async function start(o: Partial<Parameters<typeof startListener>[0]> = {}): Promise<WebhookListener> {
  const l = await startListener({ client, ...o });
  cleanup.push(() => l.close());
  return l;
}

function emit(type: 'charge.captured' | 'charge.failed' | 'withdrawal.pending', data: Record<string, unknown>): Promise<string> {
  return env.rt.deps.db.tx((q) => emitEvent(q, env.rt.deps.ids, { merchantId: env.merchant.merchant_id, type, data, at: env.clock.now() }));
}

async function take(it: AsyncIterator<ListenEvent>, n: number): Promise<ListenEvent[]> {
  const out: ListenEvent[] = [];
  while (out.length < n) {
    const r = await it.next();
    if (r.done) break;
    out.push(r.value);
  }
  return out;
}

describe('webhooks listen library', () => {
  it('registers a temporary endpoint, verifies each event, forwards it with its headers and reports the app status', async () => {
    const myApp = await app(202);
    const l = await start({ events: ['charge.captured'], forwardTo: myApp.url });
    expect(l.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(l.secret).toMatch(/^whsec_/);
    const ep = await env.call('GET', `/v1/postbacks/endpoints/${l.endpointId}`);
    expect(ep.body.data).toMatchObject({ url: l.url, events: ['charge.captured'], status: 'active' });

    const it = l[Symbol.asyncIterator]();
    const seen: string[] = [];
    l.on('received', (e) => seen.push(`received ${e.verified}`));
    l.on('forwarded', (e) => seen.push(`forwarded ${e.status}`));
    const chargeId = crypto.randomUUID();
    const eventId = await emit('charge.captured', { id: chargeId, amount: 1990, status: 'captured' });
    await emit('withdrawal.pending', { id: crypto.randomUUID() }); // not subscribed
    const out = await deliverDue(env.rt.deps, { deadlineMs: 10_000 });
    expect(out.delivered).toBe(1);

    const [received, forwarded] = await take(it, 2);
    expect(received).toMatchObject({ type: 'received', verified: true, webhookId: eventId, event: { id: eventId, type: 'charge.captured', data: { id: chargeId, amount: 1990 } } });
    expect(forwarded).toMatchObject({ type: 'forwarded', eventId, status: 202 });
    expect(seen).toEqual(['received true', 'forwarded 202']);

    // the app got the same bytes and headers, and can verify them itself with the secret
    expect(myApp.requests).toHaveLength(1);
    const fwd = myApp.requests[0]!;
    expect(fwd.body).toBe((received as { body: string }).body);
    expect(new Webhook(l.secret).verify(fwd.body, whHeaders(fwd))).toMatchObject({ id: eventId });
    // the service logged the app's answer relayed by the listener
    const [log] = (await env.call('GET', `/v1/postbacks/delivery-logs?webhook_endpoint_id=${l.endpointId}`)).body.data;
    expect(log).toMatchObject({ status: 'delivered', response_status_code: 202, response_body: 'app says hi' });
  });

  it('reports an unsigned or forged message as not verified, answers 400 and does not forward it', async () => {
    const myApp = await app();
    const l = await start({ forwardTo: myApp.url });
    const it = l[Symbol.asyncIterator]();
    const body = JSON.stringify({ id: crypto.randomUUID(), type: 'charge.captured', created_at: new Date().toISOString(), data: {} });
    const res = await fetch(l.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'webhook-id': 'x', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,AAAA' },
      body,
    });
    expect(res.status).toBe(400);
    const [ev] = await take(it, 1);
    expect(ev).toMatchObject({ type: 'received', verified: false });
    expect((ev as { error?: string }).error).toBeTruthy();
    expect(myApp.requests).toHaveLength(0);
    expect((await fetch(l.url)).status).toBe(405);
  });

  it("relays the app's failure so the service retries, and reports an unreachable app", async () => {
    const failing = await app(500);
    const l = await start({ forwardTo: failing.url });
    const it = l[Symbol.asyncIterator]();
    await emit('charge.failed', { id: crypto.randomUUID() });
    await deliverDue(env.rt.deps, { deadlineMs: 10_000 });
    const evs = await take(it, 2);
    expect(evs[1]).toMatchObject({ type: 'forwarded', status: 500 });
    const [log] = (await env.call('GET', '/v1/postbacks/delivery-logs')).body.data;
    expect(log).toMatchObject({ status: 'failed', response_status_code: 500 });
    expect(log.next_retry_at).not.toBeNull();

    await failing.close();
    env.clock.advance(10_000);
    await deliverDue(env.rt.deps, { deadlineMs: 10_000 });
    const more = await take(it, 2);
    expect(more[0]).toMatchObject({ type: 'received', verified: true });
    expect(more[1]).toMatchObject({ type: 'forwarded', status: null, error: 'connection refused' });
    const [log2] = (await env.call('GET', '/v1/postbacks/delivery-logs')).body.data;
    expect(log2).toMatchObject({ attempt: 2, response_status_code: 502 });
  });

  it('answers 200 when there is nothing to forward to', async () => {
    const l = await start();
    const it = l[Symbol.asyncIterator]();
    await emit('charge.captured', { id: crypto.randomUUID() });
    expect((await deliverDue(env.rt.deps, { deadlineMs: 10_000 })).delivered).toBe(1);
    expect((await take(it, 1))[0]).toMatchObject({ type: 'received', verified: true });
  });

  it('close() deletes the endpoint, stops the receiver and ends the iteration', async () => {
    const l = await startListener({ client });
    const it = l[Symbol.asyncIterator]();
    const pending = it.next();
    let closed = false;
    l.on('close', () => (closed = true));
    await l.close();
    await l.close(); // idempotent
    expect(await pending).toEqual({ value: undefined, done: true });
    expect(closed).toBe(true);
    expect((await env.call('GET', `/v1/postbacks/endpoints/${l.endpointId}`)).status).toBe(404);
    await expect(fetch(l.url, { method: 'POST', body: '{}' })).rejects.toThrow();
  });

  it('fails to start with the service message when registration is refused, leaving no port open', async () => {
    await expect(startListener({ client, events: ['charge.paid'] })).rejects.toThrow(/charge\.paid/);
    expect((await env.call('GET', '/v1/postbacks/endpoints')).body.pagination.total).toBe(0);
  });
});
