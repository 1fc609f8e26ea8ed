import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testEnv, basic, type TestEnv } from '../helpers/server.js';
import { emitEvent } from '../../src/server/services/events.js';
import { claimDue, complete, fanOutAll, MAX_ENDPOINTS_PER_MERCHANT, PER_MERCHANT_IN_FLIGHT, SLOW_ENDPOINT_BACKOFF_MS } from '../../src/server/webhooks/delivery.js';
import type { NewMerchant } from '../../src/server/services/merchants.js';

/** One merchant's webhooks cannot hold up another's. */
let env: TestEnv;
beforeEach(async () => {
  env = await testEnv();
});
afterEach(async () => {
  await env.close();
});

async function endpointOf(m: NewMerchant, url: string): Promise<string> {
  const r = await env.call('POST', '/v1/postbacks/endpoints', { url, events: ['*'] }, { authorization: basic(m.public_key, m.secret_key) });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data.id;
}

const emit = (m: NewMerchant, n: number) =>
  env.rt.deps.db.tx((q) => emitEvent(q, env.rt.deps.ids, { merchantId: m.merchant_id, type: 'charge.captured', data: { n }, chargeId: null, at: env.clock.now() }));

describe('claiming is fair between merchants', () => {
  it('a merchant with many due deliveries gets at most its in-flight share; another merchant is claimed in the same round', async () => {
    const noisy = env.merchant;
    const quiet = await env.newMerchant('Vizinho');
    for (let i = 0; i < 10; i++) await endpointOf(noisy, `http://127.0.0.1:9/tarpit-${i}`);
    await endpointOf(quiet, 'http://127.0.0.1:9/quiet');
    await emit(noisy, 1);
    await emit(noisy, 2);
    env.clock.advance(1);
    await emit(quiet, 3);
    await fanOutAll(env.rt.deps);

    const first = await claimDue(env.rt.deps, 'w1', 8, 60_000);
    const byMerchant = (cs: typeof first, m: NewMerchant) => cs.filter((c) => c.merchantId === m.merchant_id);
    expect(byMerchant(first, quiet)).toHaveLength(1);
    expect(byMerchant(first, noisy)).toHaveLength(PER_MERCHANT_IN_FLIGHT);

    // while those are in flight (leased, by this worker or another), the noisy merchant gets nothing more
    const second = await claimDue(env.rt.deps, 'w2', 8, 60_000);
    expect(second).toEqual([]);
  });

  it('an endpoint that timed out is backed off: its other due deliveries wait, other endpoints of the merchant do not', async () => {
    const m = env.merchant;
    const slow = await endpointOf(m, 'http://127.0.0.1:9/slow');
    const fine = await endpointOf(m, 'http://127.0.0.1:9/fine');
    for (let i = 0; i < 3; i++) await emit(m, i);
    await fanOutAll(env.rt.deps);
    const claims = await claimDue(env.rt.deps, 'w1', 8, 60_000);
    const onSlow = claims.find((c) => c.endpointId === slow)!;
    expect(onSlow).toBeDefined();
    // release the other claims as delivered
    for (const c of claims) if (c !== onSlow) await complete(env.rt.deps, c, { status: 200, body: 'ok', error: null });
    await complete(env.rt.deps, onSlow, { status: null, body: null, error: 'timed out after 15000 ms', timedOut: true });
    const waiting = await env.rt.deps.db.all<{ endpoint_id: string; next_attempt_at: string }>(
      "SELECT endpoint_id, next_attempt_at FROM webhook_deliveries WHERE state = 'scheduled' AND endpoint_id = ?",
      [slow],
    );
    expect(waiting.length).toBeGreaterThan(0);
    for (const w of waiting) expect(Date.parse(w.next_attempt_at) - env.clock.now().getTime()).toBeGreaterThanOrEqual(SLOW_ENDPOINT_BACKOFF_MS);
    const rest = await claimDue(env.rt.deps, 'w1', 8, 60_000);
    expect(rest.every((c) => c.endpointId === fine)).toBe(true);
  });
});

describe('endpoints per merchant', () => {
  it(`a merchant holds at most ${16} endpoints (as Stripe); deleting one makes room`, async () => {
    expect(MAX_ENDPOINTS_PER_MERCHANT).toBe(16);
    const ids: string[] = [];
    for (let i = 0; i < 16; i++) ids.push(await endpointOf(env.merchant, `http://127.0.0.1:9/e${i}`));
    const over = await env.call('POST', '/v1/postbacks/endpoints', { url: 'http://127.0.0.1:9/e16', events: ['*'] });
    expect(over.status).toBe(422);
    expect(over.body.error).toBe('business_rule');
    expect(over.body.message).toContain('16');
    expect((await env.call('GET', '/v1/postbacks/endpoints?per_page=100')).body.data).toHaveLength(16);
    expect((await env.call('DELETE', `/v1/postbacks/endpoints/${ids[0]}`)).status).toBe(200);
    await endpointOf(env.merchant, 'http://127.0.0.1:9/again');
    // another merchant has its own 16
    await endpointOf(await env.newMerchant('Outra'), 'http://127.0.0.1:9/other');
  });
});
