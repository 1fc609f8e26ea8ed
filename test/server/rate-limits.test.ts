/**
 * Rate limits by who is calling: secret-key traffic has one budget per merchant (however many
 * keys it holds), publishable-key traffic its own budget per client (so anonymous checkout
 * visitors cannot starve the merchant), failed authentications are throttled per client, per
 * (client, key) and per key (429) without ever refusing a valid credential, an IPv6 client is
 * its /64, malformed public keys keep nothing, every limiter is bounded by memory, and a
 * merchant holds at most 20 active keys.
 */
import { randomBytes } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMITS, RateLimiter } from '../../src/server/rateLimit.js';
import { MAX_ACTIVE_API_KEYS } from '../../src/server/services/apiKeys.js';
import { basic, testEnv, type TestEnv } from '../helpers/server.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

let env: TestEnv;
afterEach(async () => env?.close());

const tokens = (e: TestEnv, ip: string, body: unknown = {}) =>
  e.rt.app.request('/v1/tokens', {
    method: 'POST',
    headers: { authorization: basic(e.merchant.public_key, ''), 'content-type': 'application/json', 'x-forwarded-for': ip },
    body: JSON.stringify(body),
  });
const get = (e: TestEnv, path: string, auth: string, ip = '192.0.2.10') => e.rt.app.request(path, { headers: { authorization: auth, 'x-forwarded-for': ip } });
/** the statuses of `n` GET /v1/merchant with `auth` from `ip`, one after the other */
const statusesOf = async (n: number, auth: string, ip: string) => {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await get(env, '/v1/merchant', auth, ip)).status);
  return out;
};

describe('publishable-key traffic has its own budget per client IP', () => {
  it("260 anonymous refused tokenizations do not starve the merchant's secret-key requests", async () => {
    env = await testEnv({ rateLimit: { perSecond: 1, burst: 20, publicPerIp: { perSecond: 0.001, burst: 10 } }, trustProxy: ['127.0.0.1'] });
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

describe('limits per merchant, a cap on keys, failed authentication throttled', () => {
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

  it('wrong secrets from one address: 401, then 429 for that address once its ceiling is spent, not for others; valid keys still pass', async () => {
    env = await testEnv({
      rateLimit: { perSecond: 100, burst: 200, failedAuthPerIp: { perSecond: 0.01, burst: 5 }, failedAuthPerKey: { perSecond: 0.01, burst: 50 } },
      trustProxy: ['127.0.0.1'],
    });
    const wrong = basic(env.merchant.public_key, 'sk_test_wrong');
    const statuses = await statusesOf(30, wrong, '203.0.113.99');
    expect(statuses.slice(0, 5)).toEqual(Array(5).fill(401));
    expect(statuses.slice(5)).toEqual(Array(25).fill(429));
    const limited = await get(env, '/v1/merchant', basic(`pk_test_${'1'.repeat(32)}`, 'sk_test_wrong'), '203.0.113.99');
    expect(limited.status).toBe(429);
    expect((await limited.json()).message).toMatch(/from your address/);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await get(env, '/v1/merchant', env.auth(), '203.0.113.99')).status).toBe(200);
    expect((await get(env, '/v1/merchant', wrong, '203.0.113.100')).status).toBe(401);
  });

  it('wrong secrets for one public key from many addresses: 429 once its budget is spent; the right secret still works', async () => {
    env = await testEnv({
      rateLimit: { perSecond: 100, burst: 200, failedAuthPerIp: { perSecond: 0.01, burst: 5 }, failedAuthPerKey: { perSecond: 0.01, burst: 8 } },
      trustProxy: ['127.0.0.1'],
    });
    const wrong = basic(env.merchant.public_key, 'sk_test_wrong');
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await get(env, '/v1/merchant', wrong, `198.51.100.${i + 1}`)).status);
    expect(statuses.slice(0, 8)).toEqual(Array(8).fill(401));
    expect(statuses.slice(8)).toEqual(Array(12).fill(429));
    expect((await get(env, '/v1/merchant', env.auth(), '198.51.100.200')).status).toBe(200);
  });
});

describe('failed authentications never refuse a valid credential', () => {
  it("20 wrong secrets from one address (a NAT, a proxy without --trust-proxy): another merchant's valid key from it still passes", async () => {
    env = await testEnv({ rateLimit: DEFAULT_RATE_LIMITS });
    const other = await env.newMerchant('Vizinha');
    const wrong = basic(env.merchant.public_key, 'sk_test_wrong');
    for (let i = 0; i < 20; i++) expect((await env.rt.app.request('/v1/merchant', { headers: { authorization: wrong } })).status).toBeOneOf([401, 429]);
    const r = await env.rt.app.request('/v1/merchant', { headers: { authorization: basic(other.public_key, other.secret_key) } });
    expect(r.status, await r.clone().text()).toBe(200);
    // and the key that was guessed at, with its right secret, from the same address
    expect((await env.rt.app.request('/v1/merchant', { headers: { authorization: env.auth() } })).status).toBe(200);
  });

  it('wrong secrets for one key from one client: 429 once that (client, key) budget is spent; the key from elsewhere, and its right secret, still work', async () => {
    env = await testEnv({ rateLimit: { ...DEFAULT_RATE_LIMITS, failedAuthPerIpKey: { perSecond: 0.001, burst: 10 }, failedAuthPerKey: { perSecond: 0.001, burst: 50 } }, trustProxy: ['127.0.0.1'] });
    const wrong = basic(env.merchant.public_key, 'sk_test_wrong');
    const statuses = await statusesOf(50, wrong, '203.0.113.99');
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses.slice(10)).toEqual(Array(40).fill(429));
    const limited = await get(env, '/v1/merchant', wrong, '203.0.113.99');
    expect((await limited.json()).message).toMatch(/for this API key from your address/);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // the refused ones spent nothing of the key's own budget: another client still gets its 401s
    for (let i = 0; i < 10; i++) expect((await get(env, '/v1/merchant', wrong, '203.0.113.100')).status).toBe(401);
    expect((await get(env, '/v1/merchant', env.auth(), '203.0.113.99')).status).toBe(200);
  });

  it('one client spraying many keys: 401 up to a generous per-client ceiling, then 429; its valid keys still pass, other clients are untouched', async () => {
    env = await testEnv({ rateLimit: { ...DEFAULT_RATE_LIMITS, failedAuthPerIp: { perSecond: 0.001, burst: 100 } }, trustProxy: ['127.0.0.1'] });
    const statuses: number[] = [];
    for (let i = 0; i < 120; i++) {
      const pk = `pk_test_${randomBytes(16).toString('hex')}`;
      statuses.push((await get(env, '/v1/merchant', basic(pk, 'sk_test_guess'), '198.51.100.7')).status);
    }
    expect(statuses.slice(0, 100)).toEqual(Array(100).fill(401));
    expect(statuses.slice(100)).toEqual(Array(20).fill(429));
    expect((await get(env, '/v1/merchant', env.auth(), '198.51.100.7')).status).toBe(200);
    expect((await get(env, '/v1/merchant', basic(`pk_test_${'0'.repeat(32)}`, 'sk_test_guess'), '198.51.100.8')).status).toBe(401);
  });
});

describe('IPv6 clients are counted by /64', () => {
  it('the publishable-key budget: addresses of one /64 share one, another /64 has its own', async () => {
    env = await testEnv({ rateLimit: { perSecond: 100, burst: 200, publicPerIp: { perSecond: 0.001, burst: 10 } }, trustProxy: ['127.0.0.1'] });
    const statuses: number[] = [];
    for (let i = 1; i <= 20; i++) statuses.push((await tokens(env, `2001:db8:7:1::${i.toString(16)}`)).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(400));
    expect(statuses.slice(10)).toEqual(Array(10).fill(429));
    // the same /64 written out in full is the same client
    expect((await tokens(env, '2001:0db8:0007:0001:ffff:ffff:ffff:ffff')).status).toBe(429);
    expect((await tokens(env, '2001:db8:7:2::1')).status).toBe(400);
  });

  it('the failed-authentication ceiling: a sweep of one /64 is one client', async () => {
    env = await testEnv({ rateLimit: { ...DEFAULT_RATE_LIMITS, failedAuthPerIp: { perSecond: 0.001, burst: 5 } }, trustProxy: ['127.0.0.1'] });
    const statuses: number[] = [];
    for (let i = 1; i <= 10; i++) {
      statuses.push((await get(env, '/v1/merchant', basic(`pk_test_${randomBytes(16).toString('hex')}`, 'sk_test_x'), `2001:db8:9:9:${i}::1`)).status);
    }
    expect(statuses).toEqual([...Array(5).fill(401), ...Array(5).fill(429)]);
    expect((await get(env, '/v1/merchant', basic(`pk_test_${randomBytes(16).toString('hex')}`, 'sk_test_x'), '2001:db8:9:a::1')).status).toBe(401);
  });
});

describe('malformed public keys keep nothing', () => {
  it('a public key that is not pk_test_/pk_live_ and 32 hex digits is a 401 naming the format', async () => {
    env = await testEnv({ rateLimit: DEFAULT_RATE_LIMITS });
    for (const pk of ['pk_test_nope', `pk_test_${'a'.repeat(12_000)}`, `pk_test_${'A'.repeat(32)}`, 'x'.repeat(40)]) {
      const r = await get(env, '/v1/merchant', basic(pk, 'sk_test_x'));
      expect(r.status).toBe(401);
      expect((await r.json()).message).toMatch(/pk_test_.*32 hexadecimal/);
    }
  });

  it('10,000 failed logins with 12 KB public keys from 500 addresses leave the heap where it was', async () => {
    env = await testEnv({ rateLimit: DEFAULT_RATE_LIMITS, trustProxy: ['127.0.0.1'] });
    const heap = () => {
      gc();
      gc();
      return process.memoryUsage().heapUsed;
    };
    const attempt = (i: number) => get(env, '/v1/merchant', basic(`pk_test_${i.toString(16).padStart(8, '0')}${'f'.repeat(12_000)}`, 'sk_test_x'), `198.18.${(i % 500) >> 8}.${(i % 500) & 255}`);
    for (let i = 0; i < 500; i++) await attempt(i); // each address's own (bounded) state exists
    const before = heap();
    for (let i = 500; i < 10_000; i++) expect((await attempt(i)).status).toBeOneOf([401, 429]);
    const grown = heap() - before;
    console.log(`failed logins with 12 KB public keys: 9,500 more from 500 addresses, heap ${(grown / 2 ** 20).toFixed(1)} MiB`);
    expect(grown).toBeLessThan(8 * 2 ** 20); // 9,500 kept keys would be over 110 MiB
  }, 120_000);
});

describe('a limiter is bounded by memory', () => {
  const heap = () => {
    gc();
    gc();
    return process.memoryUsage().heapUsed;
  };
  const MiB = 2 ** 20;
  const BOUND = 8 * MiB; // LIMITER_MAX_BYTES

  it('whatever the number and the length of its keys', () => {
    const now = Date.now();
    // below the bound: what one bucket of a 60-character key costs
    let limiter: RateLimiter | null = new RateLimiter({ perSecond: 0.001, burst: 5 });
    let before = heap();
    for (let i = 0; i < 5_000; i++) limiter.take(`2001:db8:${i.toString(16)}:1::/64 pk_test_${i.toString(16).padStart(32, '0')}`, now);
    const perBucket = (heap() - before) / 5_000;
    limiter = null;
    // far past it: 200,000 clients, then 20,000 keys of 4 KB (80 MB if all were kept)
    limiter = new RateLimiter({ perSecond: 0.001, burst: 5 });
    before = heap();
    for (let i = 0; i < 200_000; i++) limiter.take(`2001:db8:${(i >> 16).toString(16)}:${(i & 0xffff).toString(16)}::/64`, now);
    const clients = heap() - before;
    for (let i = 0; i < 20_000; i++) limiter.take(randomBytes(2048).toString('hex'), now);
    const long = heap() - before;
    console.log(
      `rate limiter: ${perBucket.toFixed(0)} B per bucket of a 60-character key; 200,000 clients ${(clients / MiB).toFixed(1)} MiB, then 20,000 keys of 4 KB ${(long / MiB).toFixed(1)} MiB (bound ${BOUND / MiB} MiB)`,
    );
    expect(clients).toBeLessThan(BOUND * 1.25);
    expect(long).toBeLessThan(BOUND * 1.25);
    // the bound's per-bucket estimate (BUCKET_BYTES + key length) is near what a bucket costs
    expect(perBucket).toBeGreaterThan(0.6 * (480 + 60));
    expect(perBucket).toBeLessThan(1.4 * (480 + 60));
    // the most recently used buckets are the ones kept: a client that just spent its budget is still refused
    for (let i = 0; i < 5; i++) expect(limiter.take('198.51.100.1', now)).toBe(0);
    for (let i = 0; i < 1_000; i++) limiter.take(`198.18.${i >> 8}.${i & 255}`, now);
    expect(limiter.take('198.51.100.1', now)).toBeGreaterThan(0);
  }, 60_000);
});
