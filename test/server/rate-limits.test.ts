/**
 * Rate limits by who is calling (issue 18 items 3 and 6): secret-key traffic has one budget per
 * merchant (however many keys it holds), publishable-key traffic its own budget per client IP
 * (so anonymous checkout visitors cannot starve the merchant), failed authentications are
 * throttled per client IP and per public key (429), and a merchant holds at most 20 active keys.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_ACTIVE_API_KEYS } from '../../src/server/routes/apiKeys.js';
import { basic, testEnv, type TestEnv } from '../helpers/server.js';

let env: TestEnv;
afterEach(async () => env?.close());

const tokens = (e: TestEnv, ip: string, body: unknown = {}) =>
  e.rt.app.request('/v1/tokens', {
    method: 'POST',
    headers: { authorization: basic(e.merchant.public_key, ''), 'content-type': 'application/json', 'x-forwarded-for': ip },
    body: JSON.stringify(body),
  });
const get = (e: TestEnv, path: string, auth: string, ip = '192.0.2.10') => e.rt.app.request(path, { headers: { authorization: auth, 'x-forwarded-for': ip } });

describe('issue 18.3: publishable-key traffic has its own budget per client IP', () => {
  it("260 anonymous refused tokenizations do not starve the merchant's secret-key requests", async () => {
    env = await testEnv({ rateLimit: { perSecond: 1, burst: 20, publicPerIp: { perSecond: 0.001, burst: 10 } } });
    env.rt.deps.trustProxy = ['127.0.0.1'];
    const statuses: number[] = [];
    for (let i = 0; i < 260; i++) statuses.push((await tokens(env, '198.51.100.66')).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(400));
    expect(statuses.slice(10)).toEqual(Array(250).fill(429));
    const r = await get(env, '/v1/charges', env.auth());
    expect(r.status).toBe(200);
    // another visitor has a budget of its own
    expect((await tokens(env, '198.51.100.67')).status).toBe(400);
    const limited = await tokens(env, '198.51.100.66');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});

describe('issue 18.6: limits per merchant, a cap on keys, failed authentication throttled', () => {
  it('secret-key requests of all of a merchant’s keys share one budget', async () => {
    env = await testEnv({ rateLimit: { perSecond: 1, burst: 10 } });
    const started = Date.now();
    const keys = [env.merchant];
    for (let i = 0; i < 5; i++) {
      const k = await env.call('POST', '/v1/api-keys', { name: `k${i}` });
      expect(k.status).toBe(201);
      keys.push(k.body.data);
    }
    let ok = 0;
    for (let round = 0; round < 10; round++) {
      for (const k of keys) if ((await get(env, '/v1/merchant', basic(k.public_key, k.secret_key))).status === 200) ok++;
    }
    const elapsed = (Date.now() - started) / 1000;
    // the burst (10, of which the 5 creations took 5) plus what refilled meanwhile (1/s), not 6 × 10
    expect(ok).toBeLessThanOrEqual(10 - 5 + Math.ceil(elapsed) + 1);
    // another merchant is not affected
    const other = await env.newMerchant('Outra');
    expect((await get(env, '/v1/merchant', basic(other.public_key, other.secret_key))).status).toBe(200);
  });

  it(`a merchant holds at most ${MAX_ACTIVE_API_KEYS} active keys`, async () => {
    env = await testEnv();
    for (let i = 1; i < MAX_ACTIVE_API_KEYS; i++) expect((await env.call('POST', '/v1/api-keys', { name: `k${i}` })).status).toBe(201);
    const over = await env.call('POST', '/v1/api-keys', { name: 'one too many' });
    expect(over.status).toBe(422);
    expect(over.body.error).toBe('business_rule');
    expect(over.body.message).toContain(String(MAX_ACTIVE_API_KEYS));
    const list = await env.call('GET', '/v1/api-keys?per_page=100');
    expect(list.body.pagination.total).toBe(MAX_ACTIVE_API_KEYS);
    // revoking one makes room
    expect((await env.call('DELETE', `/v1/api-keys/${list.body.data[0].id}`)).status).toBe(200);
    expect((await env.call('POST', '/v1/api-keys', { name: 'replacement' })).status).toBe(201);
  });

  it('wrong secrets from one address: 401, then 429 for that address (any credentials), not for others', async () => {
    env = await testEnv({
      rateLimit: { perSecond: 100, burst: 200, failedAuthPerIp: { perSecond: 0.01, burst: 5 }, failedAuthPerKey: { perSecond: 0.01, burst: 50 } },
    });
    env.rt.deps.trustProxy = ['127.0.0.1'];
    const wrong = basic(env.merchant.public_key, 'sk_test_wrong');
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push((await get(env, '/v1/merchant', wrong, '203.0.113.99')).status);
    expect(statuses.slice(0, 5)).toEqual(Array(5).fill(401));
    expect(statuses.slice(5)).toEqual(Array(25).fill(429));
    const locked = await get(env, '/v1/merchant', env.auth(), '203.0.113.99');
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await get(env, '/v1/merchant', env.auth(), '203.0.113.100')).status).toBe(200);
  });

  it('wrong secrets for one public key from many addresses: 429 once its budget is spent; the right secret still works', async () => {
    env = await testEnv({
      rateLimit: { perSecond: 100, burst: 200, failedAuthPerIp: { perSecond: 0.01, burst: 5 }, failedAuthPerKey: { perSecond: 0.01, burst: 8 } },
    });
    env.rt.deps.trustProxy = ['127.0.0.1'];
    const wrong = basic(env.merchant.public_key, 'sk_test_wrong');
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await get(env, '/v1/merchant', wrong, `198.51.100.${i + 1}`)).status);
    expect(statuses.slice(0, 8)).toEqual(Array(8).fill(401));
    expect(statuses.slice(8)).toEqual(Array(12).fill(429));
    expect((await get(env, '/v1/merchant', env.auth(), '198.51.100.200')).status).toBe(200);
  });
});
