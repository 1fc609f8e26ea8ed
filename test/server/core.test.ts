import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { basic, reopen, testEnv, type TestEnv } from '../helpers/server.js';
import { dueWork, runDueWork } from '../../src/server/due.js';
import { DUE_SKIP_MS, WindowDuePolicy } from '../../src/server/pipeline/due.js';
import { AlwaysDue, CountingDue, SameInstantDue } from '../helpers/due.js';

let env: TestEnv;
beforeEach(async () => {
  env = await testEnv();
});
afterEach(async () => {
  await env.close();
});

describe('envelope, auth and errors', () => {
  it('answers with the envelope and an X-Request-Id', async () => {
    const r = await env.call('GET', '/v1/merchant');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, message: 'Merchant retrieved', data: { id: env.merchant.merchant_id, wallet_id: env.merchant.wallet_id } });
    expect(r.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('401 without credentials, with a challenge', async () => {
    const res = await env.rt.app.request('/v1/merchant');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('Basic');
    expect(await res.json()).toMatchObject({ success: false, error: 'unauthorized' });
  });

  it('401 for a wrong secret, 403 for a public key alone on a secret operation', async () => {
    const wrong = await env.rt.app.request('/v1/merchant', { headers: { authorization: basic(env.merchant.public_key, 'sk_test_nope') } });
    expect(wrong.status).toBe(401);
    const pub = await env.rt.app.request('/v1/merchant', { headers: { authorization: basic(env.merchant.public_key, '') } });
    expect(pub.status).toBe(403);
    expect((await pub.json()).error).toBe('forbidden');
  });

  it('404 with the envelope for an unknown route, 405 for a wrong method', async () => {
    const r = await env.call('GET', '/v1/nothing-here');
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ success: false, error: 'not_found' });
    const m = await env.call('PATCH', '/v1/api-keys', {});
    expect(m.status).toBe(405);
    expect(m.body.error).toBe('method_not_allowed');
  });

  it('400 invalid_json for a broken body and 415 for a non-JSON body', async () => {
    const r = await env.call('POST', '/v1/api-keys', '{"name": ');
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('invalid_json');
    const t = await env.call('POST', '/v1/api-keys', 'name=x', { 'content-type': 'text/plain' });
    expect(t.status).toBe(415);
  });

  it('400 naming unknown body fields and unknown query parameters', async () => {
    const r = await env.call('POST', '/v1/api-keys', { name: 'x', colour: 'blue' });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('validation_error');
    expect(r.body.details).toEqual([{ field: 'colour', message: 'is not a known field' }]);
    const q = await env.call('GET', '/v1/api-keys?sort=name');
    expect(q.status).toBe(400);
    expect(q.body.details).toEqual([{ field: 'sort', message: 'is not a known field' }]);
  });

  it('enforces the page limits of the seed', async () => {
    for (const bad of ['page=0', 'per_page=0', 'per_page=101', 'page=abc', 'per_page=1.5']) {
      const r = await env.call('GET', `/v1/api-keys?${bad}`);
      expect(r.status, bad).toBe(400);
      expect(r.body.error).toBe('validation_error');
    }
    const ok = await env.call('GET', '/v1/api-keys?page=1&per_page=100');
    expect(ok.status).toBe(200);
    expect(ok.body.pagination).toEqual({ page: 1, perPage: 100, total: 1, totalPages: 1 });
  });

  it('a failing due job is logged and does not fail the request', async () => {
    const logged: Record<string, unknown>[] = [];
    env = await reopen(env, { log: (e) => logged.push(e) });
    const broken = async () => {
      throw new Error('boom');
    };
    dueWork.push(broken);
    try {
      const r = await env.call('GET', '/v1/merchant');
      expect(r.status).toBe(200);
      expect(logged.some((e) => e.level === 'error' && String(e.message).includes('due work failed: boom'))).toBe(true);
    } finally {
      dueWork.splice(dueWork.indexOf(broken), 1);
    }
  });

  it('the due-work sweep logs a failing job and still runs the others', async () => {
    const logged: Record<string, unknown>[] = [];
    env = await reopen(env, { log: (e) => logged.push(e) });
    let after = 0;
    const broken = async () => {
      throw new Error('sweep boom');
    };
    const counting = async () => {
      after++;
      return 0;
    };
    dueWork.unshift(broken);
    dueWork.push(counting);
    try {
      await expect(runDueWork(env.rt.deps)).resolves.toBe(0);
      expect(after).toBeGreaterThan(0);
      expect(logged.some((e) => String(e.message).includes('due work failed: sweep boom'))).toBe(true);
    } finally {
      dueWork.splice(dueWork.indexOf(broken), 1);
      dueWork.splice(dueWork.indexOf(counting), 1);
    }
  });

  it('the due-work skip is a policy given to the runtime: tests run the production window by default', async () => {
    expect(env.rt.deps.due).toBeInstanceOf(WindowDuePolicy);
    // the production window, whatever the clock: an idle run lets the requests within
    // DUE_SKIP_MS of merchant time skip it, writes or not
    const windowed = new CountingDue(new WindowDuePolicy());
    await env.close();
    env = await testEnv({ due: windowed });
    await env.call('GET', '/v1/merchant');
    expect(windowed.runs).toBe(1);
    await env.call('POST', '/v1/api-keys', { name: 'k' });
    env.clock.advance(DUE_SKIP_MS - 1);
    await env.call('GET', '/v1/merchant');
    expect(windowed.runs).toBe(1);
    env.clock.advance(1);
    await env.call('GET', '/v1/merchant');
    expect(windowed.runs).toBe(2);
    // a test's own policy (same instant only): a write, or a millisecond, and the next request runs it again
    const sameInstant = new CountingDue(new SameInstantDue());
    await env.close();
    env = await testEnv({ due: sameInstant });
    await env.call('GET', '/v1/merchant');
    await env.call('GET', '/v1/merchant');
    expect(sameInstant.runs).toBe(1);
    await env.call('POST', '/v1/api-keys', { name: 'k2' });
    const afterWrite = sameInstant.runs;
    await env.call('GET', '/v1/merchant');
    expect(sameInstant.runs).toBe(afterWrite + 1);
    env.clock.advance(1);
    await env.call('GET', '/v1/merchant');
    expect(sameInstant.runs).toBe(afterWrite + 2);
    // before every request
    const always = new CountingDue(new AlwaysDue());
    await env.close();
    env = await testEnv({ due: always });
    await env.call('GET', '/v1/merchant');
    await env.call('GET', '/v1/merchant');
    expect(always.runs).toBe(2);
  });

  it('serves the OpenAPI document generated from the contract', async () => {
    const res = await env.rt.app.request('/openapi.json');
    expect(res.status).toBe(200);
    const doc = await res.json();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.paths['/v1/api-keys'].post.requestBody.content['application/json'].schema.properties.name).toBeTruthy();
    expect(doc.paths['/v1/tokens'].post.operationId).toBe('tokens.create');
  });
});

describe('api keys', () => {
  it('returns the secret once, and the new pair authenticates', async () => {
    const c = await env.call('POST', '/v1/api-keys', { name: 'ci' });
    expect(c.status).toBe(201);
    expect(c.body.data.secret_key).toMatch(/^sk_test_/);
    const list = await env.call('GET', '/v1/api-keys');
    expect(list.body.data).toHaveLength(2);
    for (const k of list.body.data) expect(k).not.toHaveProperty('secret_key');
    const res = await env.rt.app.request('/v1/merchant', { headers: { authorization: basic(c.body.data.public_key, c.body.data.secret_key) } });
    expect(res.status).toBe(200);
  });

  it('stores only a keyed hash of the secret', async () => {
    const c = await env.call('POST', '/v1/api-keys', { name: 'ci' });
    const rows = await env.rt.deps.db.all<{ secret_hash: string }>('SELECT secret_hash FROM api_keys');
    for (const r of rows) expect(r.secret_hash).not.toContain(c.body.data.secret_key);
    expect(rows.map((r) => r.secret_hash)).toContain(env.rt.deps.keyring.hashSecret(c.body.data.secret_key));
  });

  it('a revoked key is refused with 403; the last active key cannot be revoked', async () => {
    const c = await env.call('POST', '/v1/api-keys', { name: 'temp' });
    const r = await env.call('DELETE', `/v1/api-keys/${c.body.data.id}`);
    expect(r.status).toBe(200);
    expect(r.body.data.is_active).toBe(false);
    const res = await env.rt.app.request('/v1/merchant', { headers: { authorization: basic(c.body.data.public_key, c.body.data.secret_key) } });
    expect(res.status).toBe(403);
    const keys = await env.call('GET', '/v1/api-keys?is_active=true');
    const last = await env.call('DELETE', `/v1/api-keys/${keys.body.data[0].id}`);
    expect(last.status).toBe(409);
  });

  it('allowed_ips: 403 from elsewhere; invalid entries are a 400', async () => {
    const c = await env.call('POST', '/v1/api-keys', { name: 'office', allowed_ips: ['203.0.113.0/24'] });
    expect(c.status).toBe(201);
    const res = await env.rt.app.request('/v1/merchant', { headers: { authorization: basic(c.body.data.public_key, c.body.data.secret_key) } });
    expect(res.status).toBe(403);
    const bad = await env.call('POST', '/v1/api-keys', { name: 'x', allowed_ips: ['300.1.1.1', '10.0.0.0/33'] });
    expect(bad.status).toBe(400);
    expect(bad.body.details.map((d: any) => d.field)).toEqual(['allowed_ips[0]', 'allowed_ips[1]']);
  });

  it("another merchant's key id is a 404", async () => {
    const other = await env.newMerchant('Outra');
    const keys = await env.call('GET', '/v1/api-keys');
    const res = await env.rt.app.request(`/v1/api-keys/${keys.body.data[0].id}`, { method: 'DELETE', headers: { authorization: basic(other.public_key, other.secret_key) } });
    expect(res.status).toBe(404);
  });
});

describe('idempotency and rate limit', () => {
  it('replays the first response for the same key and body; 409 for another body', async () => {
    const a = await env.call('POST', '/v1/api-keys', { name: 'once' }, { 'idempotency-key': 'k-1' });
    const b = await env.call('POST', '/v1/api-keys', { name: 'once' }, { 'idempotency-key': 'k-1' });
    expect(b.status).toBe(201);
    // the replay is the same answer without the secret shown once
    const { secret_key, ...rest } = a.body.data;
    expect(secret_key).toMatch(/^sk_/);
    expect(b.body).toEqual({ ...a.body, data: rest });
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    const c = await env.call('POST', '/v1/api-keys', { name: 'other' }, { 'idempotency-key': 'k-1' });
    expect(c.status).toBe(409);
    expect(c.body.error).toBe('idempotency_conflict');
    const list = await env.call('GET', '/v1/api-keys');
    expect(list.body.pagination.total).toBe(2);
  });

  it('a request refused by validation stores nothing: fixed, it runs under the same key', async () => {
    const bad = await env.call('POST', '/v1/api-keys', { name: '' }, { 'idempotency-key': 'fix-me' });
    expect(bad.status).toBe(400);
    const good = await env.call('POST', '/v1/api-keys', { name: 'fixed' }, { 'idempotency-key': 'fix-me' });
    expect(good.status).toBe(201);
    expect(good.headers.get('idempotent-replayed')).toBeNull();
    const again = await env.call('POST', '/v1/api-keys', { name: 'fixed' }, { 'idempotency-key': 'fix-me' });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data.id).toBe(good.body.data.id);
  });

  it('a refusal of a request that ran (404) is stored and replayed', async () => {
    const path = '/v1/sandbox/charges/00000000-0000-4000-8000-000000000000/pay';
    const a = await env.call('POST', path, undefined, { 'idempotency-key': 'biz' });
    expect(a.status).toBe(404);
    const b = await env.call('POST', path, undefined, { 'idempotency-key': 'biz' });
    expect(b.status).toBe(404);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
  });

  it('concurrent identical requests have one effect', async () => {
    const results = await Promise.all(
      Array.from({ length: 50 }, () => env.call('POST', '/v1/api-keys', { name: 'burst' }, { 'idempotency-key': 'same' })),
    );
    expect(new Set(results.map((r) => r.status))).toEqual(new Set([201]));
    expect(new Set(results.map((r) => r.body.data.id)).size).toBe(1);
    const list = await env.call('GET', '/v1/api-keys?per_page=100');
    expect(list.body.pagination.total).toBe(2);
  });

  it('keys expire after 24 h', async () => {
    await env.call('POST', '/v1/api-keys', { name: 'a' }, { 'idempotency-key': 'day' });
    env.clock.advance(24 * 3600 * 1000 + 1);
    const again = await env.call('POST', '/v1/api-keys', { name: 'b' }, { 'idempotency-key': 'day' });
    expect(again.status).toBe(201);
    expect(again.body.data.name).toBe('b');
  });

  it('429 with Retry-After past the burst', async () => {
    const limited = await testEnv({ rateLimit: { perSecond: 1, burst: 3 } });
    try {
      const statuses: number[] = [];
      let retry: string | null = null;
      for (let i = 0; i < 5; i++) {
        const r = await limited.call('GET', '/v1/merchant');
        statuses.push(r.status);
        if (r.status === 429) retry = r.headers.get('retry-after');
      }
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      expect(Number(retry)).toBeGreaterThanOrEqual(1);
    } finally {
      await limited.close();
    }
  });
});
