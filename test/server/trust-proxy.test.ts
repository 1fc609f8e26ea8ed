/**
 * --trust-proxy: X-Forwarded-For names the client only when the request comes from a listed
 * proxy (off by default); the client is the right-most address that is not a trusted proxy.
 * allowed_ips and the per-IP limits see that address.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseTrustProxy } from '../../src/cli/commands/serverStart/run.js';
import { basic, testEnv, type TestEnv, type TestSettings } from '../helpers/server.js';

let env: TestEnv;
let key: { public_key: string; secret_key: string };
/** The env, with `settings`, and its key allowed from 203.0.113.7 only. */
async function open(settings: TestSettings = {}): Promise<void> {
  env = await testEnv(settings);
  const r = await env.call('POST', '/v1/api-keys', { name: 'office', allowed_ips: ['203.0.113.7'] });
  expect(r.status).toBe(201);
  key = r.body.data;
}
/** The env built again behind the proxies `trustProxy`. */
async function behind(trustProxy: string[]): Promise<void> {
  await env.close();
  await open({ trustProxy });
}
beforeEach(() => open());
afterEach(async () => env.close());

const asKey = (xff?: string) =>
  env.rt.app.request('/v1/merchant', { headers: { authorization: basic(key.public_key, key.secret_key), ...(xff ? { 'x-forwarded-for': xff } : {}) } });

describe('X-Forwarded-For', () => {
  it('is ignored by default: the peer address is the client', async () => {
    expect((await asKey('203.0.113.7')).status).toBe(403);
  });

  it('from a trusted proxy names the client: the right-most untrusted hop', async () => {
    await behind(['127.0.0.1']);
    expect((await asKey('203.0.113.7')).status).toBe(200);
    expect((await asKey('198.51.100.1, 203.0.113.7')).status).toBe(200); // a client-supplied left part is not believed
    expect((await asKey('203.0.113.7, 198.51.100.1')).status).toBe(403);
    expect((await asKey('not-an-ip')).status).toBe(403); // garbage: the proxy itself is the client
    await behind(['127.0.0.1', '198.51.100.0/24']);
    expect((await asKey('203.0.113.7, 198.51.100.1')).status).toBe(200);
    await behind(['10.0.0.1']);
    expect((await asKey('203.0.113.7')).status).toBe(403); // the peer is not a listed proxy
  });

  it('reads a hop with a port, or an IPv6 hop in brackets, as its address (proxies that append the port)', async () => {
    await behind(['127.0.0.1']);
    expect((await asKey('203.0.113.7:51234')).status).toBe(200);
    expect((await asKey('198.51.100.1:80, 203.0.113.7:443')).status).toBe(200);
    expect((await asKey('203.0.113.7:51234, 198.51.100.1:80')).status).toBe(403);
    const v6 = await env.call('POST', '/v1/api-keys', { name: 'v6 office', allowed_ips: ['2001:db8::7'] });
    const asV6 = (xff: string) =>
      env.rt.app.request('/v1/merchant', { headers: { authorization: basic(v6.body.data.public_key, v6.body.data.secret_key), 'x-forwarded-for': xff } });
    expect((await asV6('[2001:db8::7]:443')).status).toBe(200);
    expect((await asV6('[2001:db8::7]')).status).toBe(200);
    expect((await asV6('2001:db8::7')).status).toBe(200);
    expect((await asV6('[2001:db8::7]:99999')).status).toBe(403); // not a port: the hop is garbage
    expect((await asV6('2001:db8::7:443')).status).toBe(403); // no brackets: no port, another address (…:7:443)
  });
});

describe('--trust-proxy', () => {
  it('takes addresses and CIDR ranges; anything else is a usage error naming the entry', () => {
    expect(parseTrustProxy('10.0.0.1, 10.1.0.0/16,::1')).toEqual(['10.0.0.1', '10.1.0.0/16', '::1']);
    expect(parseTrustProxy('')).toEqual([]);
    expect(() => parseTrustProxy('10.0.0.1,proxy.internal')).toThrow(/--trust-proxy.*'proxy.internal'/);
    expect(() => parseTrustProxy('10.0.0.0/33')).toThrow(/--trust-proxy.*'10.0.0.0\/33'/);
  });
});
