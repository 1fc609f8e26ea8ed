import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listen, type RunningServer } from '../../src/server/http.js';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { backend } from '../helpers/backend.js';
import { chargeBody } from '../helpers/money.js';

/**
 * The node:http server sends API endpoints straight into the app's pipeline (no Web Request or
 * Response made for them) and everything else through Hono. Over a real loopback socket, both
 * must answer what the app answers in-process: the same envelopes and statuses, the request id,
 * one request-log line per request, authentication checked at every request, rate limits.
 */
let env: TestEnv;
let server: RunningServer;
let lines: Record<string, unknown>[];

async function start(rateLimit: { perSecond: number; burst: number } | null = null): Promise<void> {
  lines = [];
  env = await testEnv({ rateLimit, log: (entry) => lines.push(entry) });
  server = await listen(env.rt, '127.0.0.1', 0);
}
afterEach(async () => {
  await server.close();
  await env.close();
});

async function http(method: string, path: string, opts: { body?: unknown; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { authorization: env.auth(), ...opts.headers };
  if (opts.body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(server.url + path, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : undefined };
}

describe('API endpoints served by node:http directly', () => {
  beforeEach(() => start());

  it('answer what the app answers in-process: envelope, status, content type, request id, one log line each', async () => {
    const created = await http('POST', '/v1/charges', { body: chargeBody(1990, { payment_method: 'pix' }) });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    const direct = await http('GET', `/v1/charges/${id}`, { headers: { 'x-request-id': 'req-0123456789' } });
    const inProcess = await env.call('GET', `/v1/charges/${id}`);
    expect(direct.status).toBe(200);
    expect(direct.body).toEqual(inProcess.body);
    expect(direct.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(direct.headers.get('content-length')).toBe(String(Buffer.byteLength(direct.text)));
    expect(direct.headers.get('x-request-id')).toBe('req-0123456789');
    const list = await http('GET', '/v1/charges?per_page=5');
    expect(list.body.pagination).toEqual({ page: 1, perPage: 5, total: 1, totalPages: 1 });
    expect(list.body.data[0].id).toBe(id);
    // two over HTTP (POST, GET), one in-process, then the list: one line each, the given request id kept
    expect(lines.map((l) => [l.method, l.path, l.status])).toEqual([
      ['POST', '/v1/charges', 201],
      ['GET', `/v1/charges/${id}`, 200],
      ['GET', `/v1/charges/${id}`, 200],
      ['GET', '/v1/charges', 200],
    ]);
    expect(lines[1]!.request_id).toBe('req-0123456789');
    expect(typeof lines[0]!.ms).toBe('number');
  });

  it('errors keep their envelopes, statuses and headers; the rest goes through Hono, logged alike', async () => {
    const noAuth = await http('GET', '/v1/charges', { headers: { authorization: '' } });
    expect(noAuth.status).toBe(401);
    expect(noAuth.headers.get('www-authenticate')).toMatch(/^Basic/);
    expect(noAuth.body).toMatchObject({ success: false, error: 'unauthorized' });
    expect(noAuth.headers.get('x-request-id')).toBeTruthy();
    const badId = await http('GET', '/v1/charges/not-a-uuid');
    expect(badId.status).toBe(404);
    expect(badId.body.error).toBe('not_found');
    const badQuery = await http('GET', '/v1/charges?nope=1');
    expect(badQuery.status).toBe(400);
    expect(badQuery.body.details).toEqual([{ field: 'nope', message: 'is not a known field' }]);
    const badJson = await fetch(server.url + '/v1/charges', { method: 'POST', headers: { authorization: env.auth(), 'content-type': 'application/json' }, body: '{' });
    expect(badJson.status).toBe(400);
    expect((await badJson.json()).error).toBe('invalid_json');
    const wrongMethod = await http('DELETE', '/v1/charges');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST, GET');
    const noRoute = await http('GET', '/v1/nothing-here');
    expect(noRoute.status).toBe(404);
    const trailing = await http('GET', '/v1/charges/');
    expect(trailing.status).toBe(404);
    const health = await http('GET', '/healthz');
    expect(health.body.data.status).toBe('ok');
    expect(health.headers.get('x-request-id')).toBeTruthy();
    expect(lines.map((l) => l.status)).toEqual([401, 404, 400, 400, 405, 404, 404, 200]);
  });

  it('an Idempotency-Key replays over HTTP as in-process', async () => {
    const body = chargeBody(2500, { payment_method: 'pix' });
    const first = await http('POST', '/v1/charges', { body, headers: { 'idempotency-key': 'direct-1' } });
    const again = await http('POST', '/v1/charges', { body, headers: { 'idempotency-key': 'direct-1' } });
    expect(again.status).toBe(first.status);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const other = await http('POST', '/v1/charges', { body: { ...body, amount: 2600 }, headers: { 'idempotency-key': 'direct-1' } });
    expect(other.status).toBe(409);
  });
});

describe('rate limits on the direct path', () => {
  beforeEach(() => start({ perSecond: 1, burst: 2 }));

  it('a key past its burst is refused with 429 and Retry-After', async () => {
    expect((await http('GET', '/v1/charges')).status).toBe(200);
    expect((await http('GET', '/v1/charges')).status).toBe(200);
    const third = await http('GET', '/v1/charges');
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBe('1');
  });
});

describe.runIf(backend === 'sqlite')('authentication at every request on the direct path (SQLite)', () => {
  beforeEach(() => start());

  it('a key deactivated by another process is refused at its next request', async () => {
    expect((await http('GET', '/v1/merchant')).status).toBe(200);
    expect((await http('GET', '/v1/merchant')).status).toBe(200);
    const other = new Database(join(env.dir, 'mpay.db'));
    other.prepare('UPDATE api_keys SET is_active = 0 WHERE public_key = ?').run(env.merchant.public_key);
    other.close();
    expect((await http('GET', '/v1/merchant')).status).toBe(403);
  });
});
