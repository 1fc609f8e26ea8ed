/**
 * Deep JSON and large bodies on the unauthenticated and publishable-key
 * operations. Nesting is limited before parsing (a valid but deep document is refused with
 * 400 invalid_json naming the limit, without being parsed), public operations take small
 * bodies, and the checkout's per-IP budget is spent before the body is read.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JSON_LIMIT, MAX_JSON_DEPTH, PUBLIC_JSON_LIMIT } from '../../src/server/body.js';
import { basic, reopen, testEnv, type TestEnv } from '../helpers/server.js';

let env: TestEnv;
beforeEach(async () => {
  env = await testEnv();
});
afterEach(async () => env.close());

const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
const pay = (body: string, headers: Record<string, string> = {}) =>
  env.rt.app.request('/checkout/0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f/pay', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });

describe('JSON nesting depth', () => {
  it(`a document nested deeper than ${MAX_JSON_DEPTH} levels is refused before parsing, on every operation`, async () => {
    env = await reopen(env, { checkoutRateLimit: null });
    const r = await pay(deep(5000));
    expect(r.status).toBe(400);
    const b = await r.json();
    expect(b.error).toBe('invalid_json');
    expect(b.message).toContain(`nested deeper than ${MAX_JSON_DEPTH}`);
    // a secret-key operation too, with the depth inside an otherwise valid body
    const charge = await env.call('POST', '/v1/charges', `{"metadata":{"a":${deep(MAX_JSON_DEPTH)}}}`);
    expect(charge.status).toBe(400);
    expect(charge.body.error).toBe('invalid_json');
    // brackets inside strings are not nesting
    const inString = await env.call('POST', '/v1/api-keys', JSON.stringify({ name: '['.repeat(60) }));
    expect(inString.status).toBe(201);
    const ok = await env.call('POST', '/v1/api-keys', JSON.stringify({ name: '[{"x\\"[' }));
    expect(ok.status).toBe(201);
  });
});

describe('body limits', () => {
  it(`public operations take at most ${PUBLIC_JSON_LIMIT} bytes (413), secret-key ones ${JSON_LIMIT}`, async () => {
    env = await reopen(env, { checkoutRateLimit: null });
    const big = JSON.stringify({ pad: 'x'.repeat(PUBLIC_JSON_LIMIT) });
    const checkout = await pay(big);
    expect(checkout.status).toBe(413);
    expect((await checkout.json()).message).toContain(String(PUBLIC_JSON_LIMIT));
    const tokens = await env.rt.app.request('/v1/tokens', {
      method: 'POST',
      headers: { authorization: basic(env.merchant.public_key, ''), 'content-type': 'application/json' },
      body: big,
    });
    expect(tokens.status).toBe(413);
    const secret = await env.call('POST', '/v1/api-keys', big);
    expect(secret.status).toBe(400); // read and refused by its schema, not by size
  });
});

describe('the checkout rate limit runs before the body is read', () => {
  it('past the per-IP budget a pay request is 429 whatever its body', async () => {
    env = await reopen(env, {
      checkoutRateLimit: {
        payPerIp: { perSecond: 0.01, burst: 2 },
        payPerLink: { perSecond: 100, burst: 100 },
        pollPerIp: { perSecond: 100, burst: 100 },
      },
    });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await pay('{not json')).status);
    expect(statuses).toEqual([400, 400, 429, 429]);
  });
});
