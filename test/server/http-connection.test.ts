import { connect, type Socket } from 'node:net';
import { Agent, FormData as UndiciFormData, request } from 'undici';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { listen, type RunningServer } from '../../src/server/http.js';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { chargeBody } from '../helpers/money.js';
import { ok, pjBody } from '../helpers/onboarding.js';

/**
 * What the connection sees over a real loopback socket when a request ends early: a refusal
 * before the body is read and a client that goes away mid-request.
 */
let env: TestEnv;
let server: RunningServer;
let logs: Record<string, unknown>[];
beforeEach(async () => {
  logs = [];
  env = await testEnv({ log: (e) => logs.push(e) });
  server = await listen(env.rt, '127.0.0.1', 0);
});
afterEach(async () => {
  await server.close();
  await env.close();
});

const port = () => Number(new URL(server.url).port);

/** Reads one HTTP/1.1 response (headers + Content-Length body) from a socket. */
function readResponse(sock: Socket): Promise<{ status: number; headers: Record<string, string>; body: string; closed: Promise<void> }> {
  const closed = new Promise<void>((r) => sock.once('close', () => r()));
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0);
    const onData = (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const lines = buf.subarray(0, end).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const l of lines.slice(1)) {
        const i = l.indexOf(':');
        headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
      }
      const len = Number(headers['content-length'] ?? 0);
      if (buf.length < end + 4 + len) return;
      sock.off('data', onData);
      sock.off('close', onClose);
      resolve({ status: Number(lines[0]!.split(' ')[1]), headers, body: buf.subarray(end + 4, end + 4 + len).toString('utf8'), closed });
    };
    const onClose = () => reject(new Error(`socket closed before a whole response: ${JSON.stringify(buf.toString('latin1').slice(0, 200))}`));
    sock.on('data', onData);
    sock.once('close', onClose);
  });
}

function open(): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(port(), '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });
}

const authHeader = () => `Authorization: ${env.auth()}\r\n`;

describe('a refusal before the body is read', () => {
  it('an upload of 5,000 parts answers 400 and the socket either says Connection: close or serves the next request', async () => {
    const sub = await ok(env, 'POST', '/v1/submerchants', pjBody());
    const boundary = 'xBOUNDARYx';
    const parts = Array.from({ length: 5000 }, (_, i) => `--${boundary}\r\nContent-Disposition: form-data; name="f${i}"\r\n\r\nv\r\n`).join('');
    const body = Buffer.from(`${parts}--${boundary}--\r\n`);
    const sock = await open();
    sock.write(
      `POST /v1/submerchants/${sub.id}/upload HTTP/1.1\r\nHost: x\r\n${authHeader()}Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    sock.write(body);
    const first = await readResponse(sock);
    expect(first.status).toBe(400);
    if (first.headers.connection?.toLowerCase() === 'close') {
      await first.closed; // the server closes it, as it said
    } else {
      // keep-alive was promised: the next request on this socket must be answered
      sock.write(`GET /v1/charges HTTP/1.1\r\nHost: x\r\n${authHeader()}\r\n`);
      const second = await readResponse(sock);
      expect(second.status).toBe(200);
    }
    sock.destroy();
  });

  it('a JSON body over the limit (413 while it streams) does not promise keep-alive on a socket it then breaks', async () => {
    const sock = await open();
    const big = Buffer.alloc(2 * 1024 * 1024, 0x20);
    sock.write(`POST /v1/charges HTTP/1.1\r\nHost: x\r\n${authHeader()}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`);
    sock.write(`${big.length.toString(16)}\r\n`);
    sock.write(big);
    sock.write('\r\n0\r\n\r\n');
    const first = await readResponse(sock);
    expect(first.status).toBe(413);
    if (first.headers.connection?.toLowerCase() === 'close') {
      await first.closed;
    } else {
      sock.write(`GET /v1/charges HTTP/1.1\r\nHost: x\r\n${authHeader()}\r\n`);
      expect((await readResponse(sock)).status).toBe(200);
    }
    sock.destroy();
  });

  it('a body of a declared length refused before it is read is read to its end first: the answer is readable and the connection stays open', async () => {
    const body = Buffer.alloc(1024 * 1024, 0x61);
    const sock = await open();
    sock.write(
      `POST /v1/submerchants/01a00000-0000-7000-8000-000000000009/upload HTTP/1.1\r\nHost: x\r\n${authHeader()}Content-Type: multipart/form-data; boundary=b\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    const answer = readResponse(sock);
    // the client keeps sending after the server decided: every byte is taken
    for (let i = 0; i < body.length; i += 64 * 1024) sock.write(body.subarray(i, i + 64 * 1024));
    const first = await answer;
    expect(first.status).toBe(404);
    expect(first.headers.connection?.toLowerCase()).not.toBe('close');
    sock.write(`GET /v1/charges HTTP/1.1\r\nHost: x\r\n${authHeader()}\r\n`);
    expect((await readResponse(sock)).status).toBe(200);
    sock.destroy();
  });

  it('uploads refused before their bodies are read reach the client as their status, not a broken pipe', async () => {
    // 2 MiB each, 8 at once, that the server refuses at once (no such submerchant): the clients are still sending
    const big = Buffer.concat([Buffer.from('\x89PNG\r\n\x1a\n', 'latin1'), Buffer.alloc(2 * 1024 * 1024)]);
    const agent = new Agent({ connections: 8 });
    try {
      for (let round = 0; round < 4; round++) {
        const answers = await Promise.all(
          Array.from({ length: 8 }, async (_, i) => {
            const form = new UndiciFormData();
            form.append('file', new Blob([new Uint8Array(big)], { type: 'image/png' }), 'doc.png');
            const res = await request(`${server.url}/v1/submerchants/01a00000-0000-7000-8000-00000000000${i}/upload`, {
              method: 'POST',
              body: form,
              headers: { authorization: env.auth() },
              dispatcher: agent,
            });
            return { status: res.statusCode, error: ((await res.body.json()) as { error: string }).error };
          }),
        );
        expect(answers).toEqual(Array.from({ length: 8 }, () => ({ status: 404, error: 'not_found' })));
      }
    } finally {
      await agent.close();
    }
  });

  it('a refusal of a small, fully sent body keeps the connection alive (no needless Connection: close)', async () => {
    const sock = await open();
    const body = Buffer.from(JSON.stringify({ amount: 'x' }));
    sock.write(`POST /v1/charges HTTP/1.1\r\nHost: x\r\n${authHeader()}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
    sock.write(body);
    const first = await readResponse(sock);
    expect(first.status).toBe(400);
    expect(first.headers.connection?.toLowerCase()).not.toBe('close');
    sock.write(`GET /v1/charges HTTP/1.1\r\nHost: x\r\n${authHeader()}\r\n`);
    expect((await readResponse(sock)).status).toBe(200);
    sock.destroy();
  });
});

describe('a client that goes away mid-request', () => {
  /**
   * Until the request's access line is logged: the pipeline writes it last, after the handler
   * has returned and after any error entry (src/server/pipeline/index.ts), so once it is there
   * nothing more of the request can be logged or written.
   */
  const settle = (path: (p: string) => boolean) =>
    vi.waitFor(
      () => {
        if (!logs.some((l) => l.status !== undefined && typeof l.path === 'string' && path(l.path))) throw new Error(`no access line for the request yet: ${JSON.stringify(logs)}`);
      },
      { timeout: 5_000, interval: 10 },
    );

  it('a JSON body cut off by the client is logged once as 499 at info, without an error entry or a stack', async () => {
    logs.length = 0;
    const sock = await open();
    const body = Buffer.from(JSON.stringify(chargeBody(1500, { payment_method: 'pix' })));
    sock.write(`POST /v1/charges HTTP/1.1\r\nHost: x\r\n${authHeader()}Content-Type: application/json\r\nContent-Length: ${body.length + 100}\r\n\r\n`);
    sock.write(body);
    await new Promise((r) => setTimeout(r, 100));
    sock.destroy();
    await settle((p) => p === '/v1/charges');
    expect(logs.filter((l) => l.level === 'error')).toEqual([]);
    expect(logs.some((l) => 'stack' in l)).toBe(false);
    const access = logs.filter((l) => l.path === '/v1/charges');
    expect(access).toMatchObject([{ level: 'info', status: 499 }]);
    expect(await env.rt.deps.db.get('SELECT id FROM charges')).toBeUndefined();
  });

  it('an upload cut off by the client is logged as 499 at info too', async () => {
    const sub = await ok(env, 'POST', '/v1/submerchants', pjBody());
    logs.length = 0;
    const sock = await open();
    const boundary = 'xBOUNDARYx';
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`;
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), Buffer.from('IHDR'), Buffer.alloc(4096)]);
    sock.write(
      `POST /v1/submerchants/${sub.id}/upload HTTP/1.1\r\nHost: x\r\n${authHeader()}Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: 100000\r\n\r\n${head}`,
    );
    sock.write(png);
    await new Promise((r) => setTimeout(r, 100));
    sock.destroy();
    await settle((p) => p.endsWith('/upload'));
    expect(logs.filter((l) => l.level === 'error')).toEqual([]);
    const access = logs.filter((l) => typeof l.path === 'string' && (l.path as string).endsWith('/upload'));
    expect(access).toMatchObject([{ level: 'info', status: 499 }]);
    expect(await env.rt.deps.db.get('SELECT key FROM files')).toBeUndefined();
  });
});

/**
 * Slow and numerous clients, over real sockets against a server with small bounds (the same code
 * as the defaults of docs/deployment.md, which are seconds long): partial headers and a body
 * trickled a byte at a time are cut off at their deadline, and connections past the per-client
 * or server-wide cap are refused at once while the other clients are served.
 */
describe('slow and numerous clients', () => {
  const LIMITS = { headersTimeoutMs: 400, requestTimeoutMs: 1_200, maxConnections: 12, maxPerClient: 4 };
  let bounded: RunningServer;
  const socks: Socket[] = [];
  afterEach(async () => {
    for (const s of socks.splice(0)) s.destroy();
    await bounded?.close();
  });
  const start = async (limits: Partial<typeof LIMITS> = LIMITS) => {
    bounded = await listen(env.rt, '127.0.0.1', 0, limits);
  };

  /** A socket to the bounded server from `from` (another loopback address is another client). */
  const dial = (from = '127.0.0.1'): Promise<Socket> =>
    new Promise((resolve, reject) => {
      const s = connect({ port: Number(new URL(bounded.url).port), host: '127.0.0.1', localAddress: from }, () => resolve(s));
      socks.push(s);
      s.once('error', reject);
    });

  /** How long until the server closes `s` (ms from `since`), with what it wrote; fails past `bound` ms. */
  const heldFor = (s: Socket, since: number, bound: number): Promise<{ ms: number; got: string }> =>
    new Promise((resolve, reject) => {
      let got = '';
      s.on('data', (d) => (got += d.toString('latin1')));
      s.on('error', () => {});
      const t = setTimeout(() => reject(new Error(`socket still open after ${bound} ms`)), bound);
      s.once('close', () => {
        clearTimeout(t);
        resolve({ ms: performance.now() - since, got });
      });
    });

  /** Writes `text` a byte every `everyMs` until the socket closes. */
  const trickle = (s: Socket, text: string, everyMs: number) => {
    let i = 0;
    const t = setInterval(() => {
      if (s.destroyed || i >= text.length) return clearInterval(t);
      s.write(text[i++]!);
    }, everyMs);
    s.once('close', () => clearInterval(t));
  };

  /** A slow client holding a connection: headers sent one byte at a time, never finished. */
  const hold = async (from: string) => {
    const s = await dial(from);
    s.on('error', () => {});
    trickle(s, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ${'a'.repeat(1000)}`, 50);
    return s;
  };

  const get = async (from: string, path = '/healthz') => {
    const s = await dial(from);
    const t0 = performance.now();
    s.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    const r = await readResponse(s);
    return { ...r, ms: performance.now() - t0 };
  };

  it('headers sent a byte at a time are cut off at the headers deadline (408, socket closed)', async () => {
    await start();
    const s = await dial();
    const t0 = performance.now();
    trickle(s, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ${'a'.repeat(1000)}`, 50);
    const { ms, got } = await heldFor(s, t0, 5_000);
    console.log(`slow headers (1 byte / 50 ms): held ${Math.round(ms)} ms with headersTimeout ${LIMITS.headersTimeoutMs} ms`);
    expect(got).toMatch(/^HTTP\/1\.1 408/);
    expect(ms).toBeGreaterThanOrEqual(LIMITS.headersTimeoutMs - 50);
    expect(ms).toBeLessThan(LIMITS.headersTimeoutMs + 600);
  });

  it('a body sent a byte at a time is cut off at the request deadline (408, nothing written)', async () => {
    await start();
    const s = await dial();
    const body = JSON.stringify(chargeBody(1500, { payment_method: 'pix' }));
    const t0 = performance.now();
    s.write(`POST /v1/charges HTTP/1.1\r\nHost: x\r\n${authHeader()}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
    trickle(s, body, 50);
    const { ms, got } = await heldFor(s, t0, 5_000);
    console.log(`slow body (1 byte / 50 ms): held ${Math.round(ms)} ms with requestTimeout ${LIMITS.requestTimeoutMs} ms`);
    expect(got).toMatch(/^HTTP\/1\.1 408/);
    expect(ms).toBeGreaterThanOrEqual(LIMITS.requestTimeoutMs - 50);
    expect(ms).toBeLessThan(LIMITS.requestTimeoutMs + 600);
    expect(await env.rt.deps.db.get('SELECT id FROM charges')).toBeUndefined();
  });

  it('a client past its connection cap is refused at once with 503; another client is served meanwhile', async () => {
    await start();
    for (let i = 0; i < LIMITS.maxPerClient; i++) await hold('127.0.0.2');
    const over = await dial('127.0.0.2');
    const t0 = performance.now();
    const refused = await Promise.race([
      readResponse(over),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no answer within 2000 ms to a connection past the cap')), 2_000)),
    ]);
    const ms = performance.now() - t0;
    console.log(`connection ${LIMITS.maxPerClient + 1} of one client: ${refused.status} in ${Math.round(ms)} ms`);
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(JSON.parse(refused.body)).toMatchObject({ success: false, error: 'service_unavailable' });
    expect(ms).toBeLessThan(300);
    await refused.closed;
    const other = await get('127.0.0.3');
    expect(other.status).toBe(200);
    expect(other.ms).toBeLessThan(300);
  });

  it('past the server-wide cap every new connection is refused at once; a closed one frees its place', async () => {
    await start();
    const held: Socket[] = [];
    for (let i = 0; i < LIMITS.maxConnections; i++) held.push(await hold(`127.0.1.${1 + Math.floor(i / LIMITS.maxPerClient)}`));
    const t0 = performance.now();
    const refused = await get('127.0.2.1');
    console.log(`connection ${LIMITS.maxConnections + 1} to the server: ${refused.status} in ${Math.round(performance.now() - t0)} ms`);
    expect(refused.status).toBe(503);
    // the refused socket and one slow client go: a new client is served
    const gone = new Promise((r) => held[0]!.once('close', r));
    held[0]!.destroy();
    await gone;
    await new Promise((r) => setTimeout(r, 20));
    expect((await get('127.0.2.1')).status).toBe(200);
  });

  it('a trusted proxy is not held to the per-client cap (it carries many clients); the total still applies', async () => {
    await server.close();
    await env.close();
    env = await testEnv({ log: (e) => logs.push(e), trustProxy: ['127.0.0.9'] });
    server = await listen(env.rt, '127.0.0.1', 0);
    await start();
    const many = await Promise.all(Array.from({ length: LIMITS.maxPerClient + 3 }, () => hold('127.0.0.9')));
    expect(many.filter((s) => s.destroyed)).toEqual([]);
    expect((await get('127.0.0.9')).status).toBe(200);
    for (let i = many.length; i < LIMITS.maxConnections; i++) await hold('127.0.0.9');
    expect((await get('127.0.0.9')).status).toBe(503);
  });
});
