import { request } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listen, type RunningServer } from '../../src/server/http.js';
import { JSON_LIMIT } from '../../src/server/body.js';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { chargeBody } from '../helpers/money.js';

/** JSON bodies read straight from Node's incoming message, over a real loopback socket. */
let env: TestEnv;
let server: RunningServer;
beforeEach(async () => {
  env = await testEnv();
  server = await listen(env.rt, '127.0.0.1', 0);
});
afterEach(async () => {
  await server.close();
  await env.close();
});

function post(path: string, chunks: Buffer[], headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(server.url + path, { method: 'POST', headers: { authorization: env.auth(), 'content-type': 'application/json', ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    for (const c of chunks) req.write(c);
    req.end();
  });
}

describe('JSON request bodies over HTTP', () => {
  it('a body sent in many small chunks (no Content-Length) is read whole', async () => {
    const text = Buffer.from(JSON.stringify(chargeBody(1500, { payment_method: 'pix' })));
    const chunks = Array.from({ length: Math.ceil(text.length / 7) }, (_, i) => text.subarray(i * 7, i * 7 + 7));
    const r = await post('/v1/charges', chunks, { 'transfer-encoding': 'chunked' });
    expect(r.status).toBe(201);
    expect(r.body.data.amount).toBe(1500);
  });

  it('a body past the limit is a 413, by its Content-Length or while it streams, and writes nothing', async () => {
    const big = Buffer.alloc(JSON_LIMIT + 1, 0x20);
    const declared = await post('/v1/charges', [big], { 'content-length': String(big.length) });
    expect(declared.status).toBe(413);
    expect(declared.body.error).toBe('payload_too_large');
    const streamed = await post('/v1/charges', [big.subarray(0, JSON_LIMIT), big.subarray(JSON_LIMIT)], { 'transfer-encoding': 'chunked' });
    expect(streamed.status).toBe(413);
    expect(await env.rt.deps.db.get('SELECT id FROM charges')).toBeUndefined();
    // the server still answers on a new connection
    const ok = await post('/v1/charges', [Buffer.from(JSON.stringify(chargeBody(1500, { payment_method: 'pix' })))]);
    expect(ok.status).toBe(201);
  });

  it('the Idempotency-Key hash covers the body read from the socket', async () => {
    const body = Buffer.from(JSON.stringify(chargeBody(1500, { payment_method: 'pix' })));
    const a = await post('/v1/charges', [body], { 'idempotency-key': 'http-body-1' });
    const b = await post('/v1/charges', [body], { 'idempotency-key': 'http-body-1' });
    expect(b.body.data.id).toBe(a.body.data.id);
    const other = Buffer.from(JSON.stringify(chargeBody(1600, { payment_method: 'pix' })));
    expect((await post('/v1/charges', [other], { 'idempotency-key': 'http-body-1' })).status).toBe(409);
  });
});
