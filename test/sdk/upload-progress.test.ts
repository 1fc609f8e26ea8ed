import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedTransport, HttpTransport, MpayClient, type Transport } from '../../src/sdk/index.js';
import { listen, type RunningServer } from '../../src/server/http.js';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { realPng } from '../helpers/files.js';
import { ok, pjBody } from '../helpers/onboarding.js';

let env: TestEnv;
let server: RunningServer;
beforeAll(async () => {
  env = await testEnv();
  server = await listen(env.rt, '127.0.0.1', 0);
});
afterAll(async () => {
  await server.close();
  await env.close();
});

const transports: Record<string, () => Transport> = {
  embedded: () => new EmbeddedTransport(env.rt.app.fetch),
  http: () => new HttpTransport(server.url),
};

async function multipart(bytes: Buffer, name: string) {
  const form = new FormData();
  form.append('file', new Blob([Buffer.from(bytes)]), name);
  const res = new Response(form);
  return { bytes: new Uint8Array(await res.arrayBuffer()), contentType: res.headers.get('content-type')! };
}

describe.each(Object.keys(transports))('upload progress over the %s transport', (name) => {
  const client = () => new MpayClient({ transport: transports[name]!(), publicKey: env.merchant.public_key, secretKey: env.merchant.secret_key });

  it('reports the bytes as the service takes them and stores the same file', async () => {
    const sub = await ok(env, 'POST', '/v1/submerchants', pjBody());
    // a PNG padded to 300 KiB: several chunks
    const png = Buffer.concat([realPng(), Buffer.alloc(300 * 1024, 1)]);
    const body = await multipart(png, 'big.png');
    const seen: [number, number][] = [];
    const r = await client().call('submerchants.upload', { params: { id: sub.id }, rawBody: { ...body, onProgress: (s, t) => seen.push([s, t]) } });
    expect(r.data).toMatchObject({ fileSize: png.length, mimeType: 'image/png', fileName: 'big.png' });
    expect(seen.length).toBeGreaterThan(3);
    expect(seen[0]).toEqual([0, body.bytes.byteLength]);
    expect(seen[seen.length - 1]).toEqual([body.bytes.byteLength, body.bytes.byteLength]);
    for (let i = 1; i < seen.length; i++) expect(seen[i]![0]).toBeGreaterThan(seen[i - 1]![0]);
    const down = await client().download('files.get', { key: r.data.key });
    expect(Buffer.from(down.bytes).equals(png)).toBe(true);
  });

  it('a refused file still answers with the service error', async () => {
    const sub = await ok(env, 'POST', '/v1/submerchants', pjBody());
    const body = await multipart(Buffer.from('MZ not a document at all, really'), 'x.pdf');
    await expect(client().call('submerchants.upload', { params: { id: sub.id }, rawBody: { ...body, onProgress: () => undefined } })).rejects.toMatchObject({
      status: 415,
    });
  });
});
