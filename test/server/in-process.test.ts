import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedTransport } from '../../src/sdk/embeddedTransport.js';
import type { TransportRequest, TransportResponse } from '../../src/sdk/transport.js';
import { JSON_LIMIT } from '../../src/server/body.js';
import { inProcessHandler } from '../../src/server/inProcess.js';
import { chargeBody, tokenize } from '../helpers/money.js';
import { testEnv, type TestEnv } from '../helpers/server.js';

// The embedded service answers every request through the app's pipeline without Web Request and
// Response objects (src/server/inProcess.ts). Every answer must be the one app.fetch gives.
const ORIGIN = 'http://127.0.0.1:4010';
let env: TestEnv;
let viaFetch: EmbeddedTransport;
let direct: EmbeddedTransport;
let used: string[];
beforeAll(async () => {
  env = await testEnv();
  viaFetch = new EmbeddedTransport(env.rt.app.fetch, 'embedded', ORIGIN);
  const handler = inProcessHandler(env.rt.app, ORIGIN);
  direct = new EmbeddedTransport(
    (r) => {
      used.push('fetch');
      return env.rt.app.fetch(r);
    },
    'embedded',
    ORIGIN,
    (r) => {
      const a = handler(r);
      if (a) used.push('direct');
      return a;
    },
  );
});
afterAll(() => env?.close());

/** the answer without what differs between two calls by design (request id, ids, times) */
function comparable(r: TransportResponse): { status: number; headers: Record<string, string>; body: unknown } {
  const { 'x-request-id': _id, ...headers } = r.headers;
  const text = Buffer.from(r.body).toString('utf8');
  let body: unknown = text;
  try {
    body = JSON.parse(text, (k, v) => (['id', 'request_id', 'public_key', 'secret_key'].includes(k) || k.endsWith('_at') ? typeof v : v));
  } catch {
    /* not JSON */
  }
  return { status: r.status, headers, body };
}

async function both(req: TransportRequest): Promise<{ fetched: TransportResponse; answered: TransportResponse; path: string[] }> {
  used = [];
  const fetched = await viaFetch.send(req);
  const answered = await direct.send(req);
  return { fetched, answered, path: used };
}

describe('in-process answers equal app.fetch answers', () => {
  const auth = () => ({ authorization: env.auth() });

  it.each([
    ['a read', 'GET', '/v1/merchant'],
    ['a list with a query', 'GET', '/v1/api-keys?page=1&per_page=5'],
    ['a bad query value (400)', 'GET', '/v1/api-keys?per_page=5000'],
    ['an unknown id (404)', 'GET', '/v1/charges/0193a3c4-0000-7000-8000-000000000000'],
    ['a malformed id', 'GET', '/v1/charges/nope'],
  ])('%s: %s %s', async (_what, method, path) => {
    const { fetched, answered, path: went } = await both({ method, path, headers: auth() });
    expect(went).toEqual(['direct']);
    expect(comparable(answered)).toEqual(comparable(fetched));
    expect(answered.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('no credentials (401) and a given X-Request-Id kept', async () => {
    const { fetched, answered } = await both({ method: 'GET', path: '/v1/merchant', headers: { 'X-Request-Id': 'trace-1234' } });
    expect(answered.status).toBe(401);
    expect(answered.headers['x-request-id']).toBe('trace-1234');
    expect(answered).toEqual({ ...fetched, headers: { ...fetched.headers } });
  });

  it('a JSON body (201), a body that is not JSON, and a text body without a type', async () => {
    const body = JSON.stringify({ name: 'in-process' });
    const created = await both({ method: 'POST', path: '/v1/api-keys', headers: { ...auth(), 'content-type': 'application/json' }, body });
    expect(created.path).toEqual(['direct']);
    expect(created.answered.status).toBe(201);
    expect(comparable(created.answered)).toEqual(comparable(created.fetched));
    for (const headers of [{ ...auth(), 'content-type': 'application/json' }, auth()]) {
      const bad = await both({ method: 'POST', path: '/v1/api-keys', headers, body: '{"name":' });
      expect(bad.answered.status).toBeGreaterThanOrEqual(400);
      expect(comparable(bad.answered)).toEqual(comparable(bad.fetched));
    }
  });

  it('a body over the limit is a 413, declared or not', async () => {
    const big = new Uint8Array(JSON_LIMIT + 1).fill(32);
    const r = await both({ method: 'POST', path: '/v1/api-keys', headers: { ...auth(), 'content-type': 'application/json' }, body: big });
    expect(r.answered.status).toBe(413);
    expect(comparable(r.answered)).toEqual(comparable(r.fetched));
    const declared = await both({ method: 'POST', path: '/v1/api-keys', headers: { ...auth(), 'content-type': 'application/json', 'content-length': String(JSON_LIMIT + 1) }, body: '{}' });
    expect(declared.answered.status).toBe(413);
  });

  it('an Idempotency-Key replay is the same answer, marked replayed', async () => {
    const card = await tokenize(env);
    const body = JSON.stringify(chargeBody(1500, { payment_method: 'credit_card', payment_details: { token: card, installments: 1 } }));
    const headers = { ...auth(), 'content-type': 'application/json', 'idempotency-key': 'in-process-1' };
    used = [];
    const first = await direct.send({ method: 'POST', path: '/v1/charges', headers, body });
    const again = await viaFetch.send({ method: 'POST', path: '/v1/charges', headers, body });
    const third = await direct.send({ method: 'POST', path: '/v1/charges', headers, body });
    expect(used).toEqual(['direct', 'direct']);
    expect(first.status, Buffer.from(first.body).toString()).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(comparable(third)).toEqual(comparable(again));
    expect(Buffer.from(third.body).toString()).toBe(Buffer.from(first.body).toString());
  });

  it('pages, probes and unknown routes go through the same pipeline: the direct answer is the one app.fetch gives', async () => {
    for (const [method, path] of [
      ['GET', '/healthz'],
      ['GET', '/v1/nothing-here'],
      ['DELETE', '/v1/merchant'],
      ['GET', '/v1/charges/%30'],
    ] as const) {
      const r = await both({ method, path, headers: auth() });
      expect(r.path, `${method} ${path}`).toEqual(['direct']);
      expect(comparable(r.answered)).toEqual(comparable(r.fetched));
    }
  });
});
