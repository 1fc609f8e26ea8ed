/**
 * An answer the node:http server fails to write (an invalid header, a pipeline that rejects)
 * is answered 500 with no internals, and logged through the runtime's log with the request id
 * the client gets in X-Request-Id.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import type { App } from '../../src/server/app.js';
import { requestListener } from '../../src/server/http.js';
import type { Answer } from '../../src/server/pipeline/request.js';

let server: Server | undefined;
afterEach(() => {
  server?.close();
  server = undefined;
});

/** a node:http server on loopback whose app answers with `handle`, and the lines it logs */
async function serve(handle: App['handle']): Promise<{ url: string; lines: Record<string, unknown>[] }> {
  const lines: Record<string, unknown>[] = [];
  const app = { handle } as App;
  server = createServer(requestListener(app, { log: (e) => lines.push(e) }));
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, lines };
}

it('a header that cannot be written: 500, and an error line with the answer’s request id', async () => {
  const answer: Answer = { status: 200, headers: { 'X-Request-Id': 'req-abcdefgh', 'x-broken': 'a\nb' }, body: '{}' };
  const { url, lines } = await serve(async () => answer);
  const res = await fetch(`${url}/v1/charges`);
  expect(res.status).toBe(500);
  expect(await res.json()).toEqual({ success: false, message: 'Internal error', error: 'internal_error' });
  expect(res.headers.get('x-request-id')).toBe('req-abcdefgh');
  expect(lines).toEqual([expect.objectContaining({ level: 'error', request_id: 'req-abcdefgh', message: expect.stringContaining('x-broken') })]);
});

it('a pipeline that rejects: 500, and an error line with the id the client sent', async () => {
  const { url, lines } = await serve(() => Promise.reject(new Error('the pipeline broke')));
  const res = await fetch(`${url}/v1/charges`, { headers: { 'x-request-id': 'client-given-1' } });
  expect(res.status).toBe(500);
  expect(await res.json()).toEqual({ success: false, message: 'Internal error', error: 'internal_error' });
  expect(res.headers.get('x-request-id')).toBe('client-given-1');
  expect(lines).toEqual([expect.objectContaining({ level: 'error', request_id: 'client-given-1', message: 'answer not written: the pipeline broke' })]);
});
