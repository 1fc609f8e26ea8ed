import { expect } from 'vitest';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import type { TestEnv } from './server.js';
import { receiver, whHeaders } from './receiver.js';
import { emitEvent } from '../../src/server/services/events.js';
import { deliverDue } from '../../src/server/webhooks/worker.js';

/**
 * `n` webhook deliveries of random payloads (fast-check, one seed: a smaller `n` sends the first
 * of the same payloads) to one endpoint, 16 at a time, each judged by the public
 * standardwebhooks verifier: every one verifies with the endpoint's secret and carries
 * {id, type, created_at, data}, its data the event's stored record unchanged. The server suite
 * sends 50 on each backend; test/reliability/webhook-signatures.test.ts sends 1,000.
 * Resolves with the time the delivery run took.
 */
export async function signedDeliveriesVerify(env: TestEnv, n: number): Promise<{ deliverMs: number }> {
  const rc = await receiver();
  try {
    const created = await env.call('POST', '/v1/postbacks/endpoints', { url: rc.url, events: ['*'] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const payloads = fc.sample(
      fc.dictionary(fc.string({ unit: 'binary', maxLength: 12 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 }),
      { numRuns: n, seed: 424242 },
    );
    const ids: string[] = [];
    for (const [i, p] of payloads.entries()) {
      const data = { ...p, id: crypto.randomUUID(), n: i };
      ids.push(await env.rt.deps.db.tx((q) => emitEvent(q, env.rt.deps.ids, { merchantId: env.merchant.merchant_id, type: 'charge.captured', data, chargeId: null, at: env.clock.now() })));
    }
    const t0 = performance.now();
    const out = await deliverDue(env.rt.deps, { deadlineMs: 100_000, concurrency: 16 });
    const deliverMs = performance.now() - t0;
    expect(out).toMatchObject({ attempted: n, delivered: n, failed: 0, remaining: 0 });
    expect(rc.requests).toHaveLength(n);
    const wh = new Webhook(created.body.data.secret);
    const byId = new Map<string, unknown>();
    for (const r of rc.requests) {
      expect(r.method).toBe('POST');
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      const msg = wh.verify(r.body, whHeaders(r)) as { id: string; type: string; created_at: string; data: Record<string, unknown> };
      expect(Object.keys(msg)).toEqual(['id', 'type', 'created_at', 'data']);
      expect(msg.id).toBe(r.headers['webhook-id']);
      expect(msg.type).toBe('charge.captured');
      byId.set(msg.id, msg.data);
    }
    expect(new Set(byId.keys())).toEqual(new Set(ids));
    // the data is the event's resource record, unchanged
    const stored = await env.rt.deps.db.all<{ id: string; data: string }>('SELECT id, data FROM events');
    for (const s of stored) expect(byId.get(s.id)).toEqual(JSON.parse(s.data));
    const delivered = await env.call('GET', '/v1/postbacks/delivery-logs?status=delivered&per_page=1');
    expect(delivered.body.pagination.total).toBe(n);
    return { deliverMs };
  } finally {
    await rc.close();
  }
}
