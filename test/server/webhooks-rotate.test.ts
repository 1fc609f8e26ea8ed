/**
 * Webhook secret rotation: POST /v1/postbacks/endpoints/{id}/rotate-secret
 * returns a new secret once; during the overlap window every delivery's `webhook-signature`
 * carries both signatures (new first, space-separated), so receivers verifying with either
 * secret accept it; after the window only the new one is sent. Real HTTP receiver on loopback.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { receiver, whHeaders, type Receiver } from '../helpers/receiver.js';
import { emitEvent } from '../../src/server/services/events.js';
import { deliverDue } from '../../src/server/webhooks/worker.js';
import { sign } from '../../src/server/webhooks/signature.js';

let env: TestEnv;
let rc: Receiver;
beforeEach(async () => {
  env = await testEnv();
  rc = await receiver();
});
afterEach(async () => {
  await rc.close();
  await env.close();
});

const emit = () =>
  env.rt.deps.db.tx((q) => emitEvent(q, env.rt.deps.ids, { merchantId: env.merchant.merchant_id, type: 'payment_link.created', data: { id: 'x' }, chargeId: null, at: env.clock.now() }));
const deliver = () => deliverDue(env.rt.deps, { deadlineMs: 100_000 });

async function created() {
  const r = await env.call('POST', '/v1/postbacks/endpoints', { url: rc.url, events: ['*'] });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data as { id: string; secret: string };
}

function signatures(i: number): string[] {
  return String(rc.requests[i]!.headers['webhook-signature']).split(' ');
}

describe('POST /v1/postbacks/endpoints/{id}/rotate-secret', () => {
  it('sends both signatures during the overlap and only the new one after it; either secret verifies in the overlap', async () => {
    const ep = await created();
    const r = await env.call('POST', `/v1/postbacks/endpoints/${ep.id}/rotate-secret`, { overlap_seconds: 3600 });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const fresh = r.body.data.secret as string;
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(ep.secret);
    expect(r.body.data.previous_secret_expires_at).toBe(new Date(env.clock.now().getTime() + 3600_000).toISOString());
    // the secret is shown once: a GET has has_secret, not the secret
    const got = await env.call('GET', `/v1/postbacks/endpoints/${ep.id}`);
    expect(got.body.data.secret).toBeUndefined();

    await emit();
    await deliver();
    expect(rc.requests).toHaveLength(1);
    const req = rc.requests[0]!;
    const h = whHeaders(req);
    const sigs = signatures(0);
    expect(sigs).toEqual([sign(fresh, h['webhook-id'], Number(h['webhook-timestamp']), req.body), sign(ep.secret, h['webhook-id'], Number(h['webhook-timestamp']), req.body)]);
    // the public Standard Webhooks verifier accepts it with the old secret and with the new one
    expect(() => new Webhook(ep.secret.slice('whsec_'.length)).verify(req.body, h)).not.toThrow();
    expect(() => new Webhook(fresh.slice('whsec_'.length)).verify(req.body, h)).not.toThrow();

    env.clock.advance(3600_000 + 1000);
    await emit();
    await deliver();
    expect(rc.requests).toHaveLength(2);
    const req2 = rc.requests[1]!;
    const h2 = whHeaders(req2);
    expect(signatures(1)).toEqual([sign(fresh, h2['webhook-id'], Number(h2['webhook-timestamp']), req2.body)]);
    expect(() => new Webhook(ep.secret.slice('whsec_'.length)).verify(req2.body, h2)).toThrow();
    expect(() => new Webhook(fresh.slice('whsec_'.length)).verify(req2.body, h2)).not.toThrow();
  });

  it('defaults to a 24 h overlap; overlap_seconds 0 ends the old secret at once; out-of-range values are a 400 naming the field', async () => {
    const ep = await created();
    const d = await env.call('POST', `/v1/postbacks/endpoints/${ep.id}/rotate-secret`);
    expect(d.status, JSON.stringify(d.body)).toBe(200);
    expect(d.body.data.previous_secret_expires_at).toBe(new Date(env.clock.now().getTime() + 86_400_000).toISOString());
    for (const overlap_seconds of [-1, 1.5, 7 * 86_400 + 1, 'x']) {
      const bad = await env.call('POST', `/v1/postbacks/endpoints/${ep.id}/rotate-secret`, { overlap_seconds });
      expect(bad.status).toBe(400);
      expect(bad.body.details[0].field).toBe('overlap_seconds');
    }
    const now = await env.call('POST', `/v1/postbacks/endpoints/${ep.id}/rotate-secret`, { overlap_seconds: 0 });
    expect(now.status).toBe(200);
    await emit();
    await deliver();
    const req = rc.requests[0]!;
    const h = whHeaders(req);
    expect(signatures(0)).toEqual([sign(now.body.data.secret, h['webhook-id'], Number(h['webhook-timestamp']), req.body)]);
  });

  it("another merchant's endpoint is a 404 and keeps its secret", async () => {
    const ep = await created();
    const other = await env.newMerchant('Outra');
    const r = await env.call('POST', `/v1/postbacks/endpoints/${ep.id}/rotate-secret`, {}, { authorization: env.auth(other) });
    expect(r.status).toBe(404);
    await emit();
    await deliver();
    const req = rc.requests[0]!;
    const h = whHeaders(req);
    expect(signatures(0)).toEqual([sign(ep.secret, h['webhook-id'], Number(h['webhook-timestamp']), req.body)]);
  });

  it('with an Idempotency-Key the replay answers without the secret, and no whsec_ is kept in the idempotency table', async () => {
    const ep = await created();
    const key = { 'idempotency-key': 'rotate-1' };
    const first = await env.call('POST', `/v1/postbacks/endpoints/${ep.id}/rotate-secret`, {}, key);
    expect(first.status).toBe(200);
    expect(first.body.data.secret).toMatch(/^whsec_/);
    const replay = await env.call('POST', `/v1/postbacks/endpoints/${ep.id}/rotate-secret`, {}, key);
    expect(replay.status).toBe(200);
    expect(replay.body.data.secret).toBeUndefined();
    expect(replay.body.data.id).toBe(ep.id);
    const rows = await env.rt.deps.db.all<{ response_body: string | null }>('SELECT response_body FROM idempotency_keys');
    for (const r of rows) expect(r.response_body ?? '').not.toContain('whsec_');
  });
});
