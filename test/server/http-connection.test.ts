import { connect, type Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listen, type RunningServer } from '../../src/server/http.js';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { chargeBody } from '../helpers/money.js';
import { ok, pjBody } from '../helpers/onboarding.js';

/**
 * What the connection sees over a real loopback socket when a request ends early: a refusal
 * before the body is read (issue 18.11) and a client that goes away mid-request (issue 18.12).
 */
let env: TestEnv;
let server: RunningServer;
let logs: Record<string, unknown>[];
beforeEach(async () => {
  env = await testEnv();
  logs = [];
  env.rt.deps.log = (e) => logs.push(e);
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

describe('a refusal before the body is read (issue 18.11)', () => {
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

describe('a client that goes away mid-request (issue 18.12)', () => {
  const settle = async () => {
    for (let i = 0; i < 50 && !logs.some((l) => l.status !== undefined); i++) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 50));
  };

  it('a JSON body cut off by the client is logged once as 499 at info, without an error entry or a stack', async () => {
    logs.length = 0;
    const sock = await open();
    const body = Buffer.from(JSON.stringify(chargeBody(1500, { payment_method: 'pix' })));
    sock.write(`POST /v1/charges HTTP/1.1\r\nHost: x\r\n${authHeader()}Content-Type: application/json\r\nContent-Length: ${body.length + 100}\r\n\r\n`);
    sock.write(body);
    await new Promise((r) => setTimeout(r, 100));
    sock.destroy();
    await settle();
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
    await settle();
    expect(logs.filter((l) => l.level === 'error')).toEqual([]);
    const access = logs.filter((l) => typeof l.path === 'string' && (l.path as string).endsWith('/upload'));
    expect(access).toMatchObject([{ level: 'info', status: 499 }]);
    expect(await env.rt.deps.db.get('SELECT key FROM files')).toBeUndefined();
  });
});
