import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sanitizeFileName, sniff } from '../../src/domain/files.js';
import { listen } from '../../src/server/http.js';
import { basic, reopen, testEnv, type TestEnv, type TestSettings } from '../helpers/server.js';
import { ok, pjBody } from '../helpers/onboarding.js';
import { elf, mz, realJpeg, realPdf, realPng, streamingMultipart, zip } from '../helpers/files.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const MiB = 1024 * 1024;
const LIMIT = 10 * MiB;

let env: TestEnv;
let sub: { id: string };
beforeEach(async () => {
  env = await testEnv();
  sub = await ok(env, 'POST', '/v1/submerchants', pjBody());
});
afterEach(async () => {
  await env.close();
});

/** The env built again with the upload limits `uploadLimits`, and its submerchant. */
async function withUploadLimits(uploadLimits: TestSettings['uploadLimits']): Promise<void> {
  env = await reopen(env, { uploadLimits });
  sub = await ok(env, 'POST', '/v1/submerchants', pjBody());
}

/** every file (dotfiles included) under `root`, as paths relative to it */
function filesUnder(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath ?? (d as unknown as { path: string }).path, d.name).slice(root.length + 1));
}
/**
 * Everything an upload left behind: the keys in the file store (the data directory's uploads with
 * SQLite, the file_blobs table with PostgreSQL; a directory store's .type companions are not
 * counted) and any temp file still in the scratch directory.
 */
async function allUploads(): Promise<string[]> {
  const files = env.rt.deps.files;
  const stored =
    files.kind === 'directory'
      ? filesUnder(join(env.dir, 'uploads')).filter((f) => !f.endsWith('.type'))
      : (await env.rt.deps.db.all<{ key: string }>('SELECT key FROM file_blobs')).map((r) => r.key);
  return [...stored, ...filesUnder(join(env.dir, 'tmp', 'uploads')).map((f) => `tmp/${f}`)].sort();
}
const storedBytes = async (key: string) => (await env.rt.deps.files.get(key))?.bytes;

async function upload(bytes: Buffer, name: string, type = 'application/octet-stream', submerchantId = sub.id, auth = env.auth()) {
  const fd = new FormData();
  fd.append('file', new Blob([new Uint8Array(bytes)], { type }), name);
  const res = await env.rt.app.request(`/v1/submerchants/${submerchantId}/upload`, { method: 'POST', body: fd, headers: { authorization: auth } });
  return { status: res.status, body: (await res.json()) as any };
}

async function sendStream(s: ReturnType<typeof streamingMultipart>) {
  const req = new Request(`http://localhost/v1/submerchants/${sub.id}/upload`, {
    method: 'POST',
    body: s.stream,
    headers: { authorization: env.auth(), 'content-type': s.contentType },
    duplex: 'half',
  } as RequestInit);
  const res = await env.rt.app.fetch(req);
  return { status: res.status, body: (await res.json()) as any };
}

/** Runs fn while sampling live memory as chunks are pulled; returns the peak growth over the baseline. */
/**
 * A full collection whose freed ArrayBuffers are gone from `process.memoryUsage()`: V8 frees
 * dead buffers' memory on a background sweeper after the collection returns, and finishes
 * that sweep when the next collection starts. With one `gc()` a sample could still count the
 * garbage of the last one (a busy machine: 21 MB once in CI for a 10 MiB upload).
 */
function collect(): void {
  gc();
  gc();
}

async function measure<T>(fn: (sample: () => void) => Promise<T>): Promise<{ result: T; rss: number; arrayBuffers: number }> {
  collect();
  const base = process.memoryUsage();
  let peakRss = base.rss;
  let peakAb = base.arrayBuffers;
  let n = 0;
  // every 1 MiB pulled: collect garbage first, so the sample is what is really held
  const sample = () => {
    if (++n % 16) return;
    collect();
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakAb = Math.max(peakAb, m.arrayBuffers);
  };
  const result = await fn(sample);
  collect();
  const end = process.memoryUsage();
  peakRss = Math.max(peakRss, end.rss);
  peakAb = Math.max(peakAb, end.arrayBuffers);
  if (process.env.MPAY_DEBUG_MEMORY) console.log({ rss: peakRss - base.rss, arrayBuffers: peakAb - base.arrayBuffers });
  return { result, rss: peakRss - base.rss, arrayBuffers: peakAb - base.arrayBuffers };
}

describe('file type: the bytes decide', () => {
  const html = Buffer.from('<!DOCTYPE html><html><body><script>alert(1)</script></body></html>');
  const svg = Buffer.from('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect width="1" height="1"/></svg>');
  const text = Buffer.from('This is just a text file pretending to be a PDF.\n');
  const cases: { name: string; bytes: Buffer; file: string; type?: string; status: number; mime?: string; msg?: RegExp }[] = [
    { name: 'real PNG', bytes: realPng(), file: 'rg.png', type: 'image/png', status: 201, mime: 'image/png' },
    { name: 'real JPEG (.jpg)', bytes: realJpeg(), file: 'selfie.jpg', type: 'image/jpeg', status: 201, mime: 'image/jpeg' },
    { name: 'real JPEG (.jpeg, no part type)', bytes: realJpeg(), file: 'selfie.JPEG', status: 201, mime: 'image/jpeg' },
    { name: 'real PDF', bytes: realPdf(), file: 'contrato.pdf', type: 'application/pdf', status: 201, mime: 'application/pdf' },
    { name: 'ELF executable renamed .png', bytes: elf(), file: 'photo.png', type: 'image/png', status: 415, msg: /not a PNG, JPEG or PDF/ },
    { name: 'MZ executable renamed .pdf', bytes: mz(), file: 'doc.pdf', type: 'application/pdf', status: 415, msg: /not a PNG, JPEG or PDF/ },
    { name: 'HTML named .png', bytes: html, file: 'x.png', type: 'image/png', status: 415 },
    { name: 'SVG named .png', bytes: svg, file: 'logo.png', type: 'image/png', status: 415 },
    { name: 'ZIP renamed .png', bytes: zip(), file: 'scan.png', type: 'image/png', status: 415 },
    { name: 'empty file', bytes: Buffer.alloc(0), file: 'empty.png', type: 'image/png', status: 415, msg: /is empty/ },
    { name: 'truncated PNG header', bytes: realPng().subarray(0, 6), file: 'cut.png', type: 'image/png', status: 415 },
    { name: 'PNG signature without IHDR', bytes: realPng().subarray(0, 12), file: 'cut2.png', type: 'image/png', status: 415 },
    { name: 'truncated JPEG header', bytes: Buffer.from([0xff, 0xd8]), file: 'cut.jpg', type: 'image/jpeg', status: 415 },
    { name: 'text named .pdf', bytes: text, file: 'contrato.pdf', type: 'application/pdf', status: 415 },
    { name: 'PNG bytes named .pdf', bytes: realPng(), file: 'contrato.pdf', status: 415, msg: /content is PNG but its name says \.pdf/ },
    { name: 'PDF bytes sent as image/png', bytes: realPdf(), file: 'contrato', type: 'image/png', status: 415, msg: /content is PDF but its Content-Type says image\/png/ },
    { name: 'real PNG named .exe', bytes: realPng(), file: 'setup.exe', status: 415, msg: /extension \.exe/ },
    { name: 'real PNG with no extension', bytes: realPng(), file: 'scan', status: 201, mime: 'image/png' },
  ];

  for (const c of cases) {
    it(`${c.name} → ${c.status}`, async () => {
      const r = await upload(c.bytes, c.file, c.type);
      expect(r.status).toBe(c.status);
      if (c.status === 201) {
        expect(r.body.data).toMatchObject({ fileSize: c.bytes.length, mimeType: c.mime });
        const stored = await storedBytes(r.body.data.key);
        expect(stored?.equals(c.bytes)).toBe(true);
        expect(await allUploads()).toEqual([r.body.data.key]);
      } else {
        expect(r.body).toMatchObject({ success: false, error: 'unsupported_media_type' });
        if (c.msg) expect(r.body.message).toMatch(c.msg);
        expect(await allUploads()).toEqual([]);
        const rows = await env.rt.deps.db.all('SELECT key FROM files');
        expect(rows).toEqual([]);
      }
    });
  }

  it('sniff decides from the first bytes only', () => {
    expect(sniff(realPng().subarray(0, 16))).toBe('png');
    expect(sniff(realJpeg().subarray(0, 16))).toBe('jpeg');
    expect(sniff(realPdf().subarray(0, 16))).toBe('pdf');
    expect(sniff(Buffer.from('%PDF-x'))).toBeNull();
    expect(sniff(Buffer.from([0xff, 0xd8, 0xff, 0x00]))).toBeNull();
  });
});

describe('upload result, storage and download', () => {
  it('returns the Uploaded file result; the file is stored under a server name and served back to its merchant only', async () => {
    const pdf = realPdf();
    const r = await upload(pdf, 'Contrato Social 2026.pdf', 'application/pdf');
    expect(r.status).toBe(201);
    const d = r.body.data;
    expect(Object.keys(d).sort()).toEqual(['fileName', 'fileSize', 'key', 'mimeType', 'url']);
    expect(d).toMatchObject({ fileName: 'Contrato Social 2026.pdf', fileSize: pdf.length, mimeType: 'application/pdf' });
    expect(d.key).toMatch(/^[0-9a-f-]{36}\.pdf$/);
    expect(d.url).toBe(`http://localhost/v1/files/${d.key}`);
    const row = await env.rt.deps.db.get<any>('SELECT * FROM files WHERE key = ?', [d.key]);
    expect(row).toMatchObject({ merchant_id: env.merchant.merchant_id, submerchant_id: sub.id, size: pdf.length, mime: 'application/pdf', path: d.key });
    expect(await env.rt.deps.files.get(d.key)).toMatchObject({ contentType: 'application/pdf', size: pdf.length });
    if (env.rt.deps.files.kind === 'directory') expect(statSync(join(env.dir, 'uploads', d.key)).mode & 0o777).toBe(0o600);

    const res = await env.rt.app.request(`/v1/files/${d.key}`, { headers: { authorization: env.auth() } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="Contrato Social 2026.pdf"; filename*=UTF-8''Contrato%20Social%202026.pdf`);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-length')).toBe(String(pdf.length));
    expect(Buffer.from(await res.arrayBuffer()).equals(pdf)).toBe(true);

    const intruder = await env.newMerchant('Intrusa');
    const other = await env.rt.app.request(`/v1/files/${d.key}`, { headers: { authorization: basic(intruder.public_key, intruder.secret_key) } });
    expect(other.status).toBe(404);
    expect((await other.json()).error).toBe('not_found');
    for (const key of ['nope', '..%2F..%2Fmpay.db', `${d.key.slice(0, -4)}.png`, '0190f0c4-1c2b-4d3e-8f40-5a6b7c8d9e0f.pdf']) {
      const x = await env.rt.app.request(`/v1/files/${key}`, { headers: { authorization: env.auth() } });
      expect(x.status, key).toBe(404);
    }
    const anon = await env.rt.app.request(`/v1/files/${d.key}`);
    expect(anon.status).toBe(401);
  });

  it('a non-ASCII name is kept for display and given an ASCII fallback in Content-Disposition', async () => {
    const r = await upload(realJpeg(), 'identidade de João <frente>?.jpg', 'image/jpeg');
    expect(r.body.data.fileName).toBe('identidade de João _frente__.jpg');
    const res = await env.rt.app.request(`/v1/files/${r.body.data.key}`, { headers: { authorization: env.auth() } });
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="identidade de Jo_o _frente__.jpg"; filename*=UTF-8''identidade%20de%20Jo%C3%A3o%20_frente__.jpg`,
    );
  });

  it('a filename like ../../x never leaves the upload directory', async () => {
    // the paths a name could reach outside (the one above the data directory is shared, /tmp: as
    // they were, whether or not something else made them)
    const outside = [join(env.dir, 'x'), join(env.dir, '..', 'x'), join(env.dir, '..', 'evil.png'), '/tmp/evil.png'];
    const state = () => outside.map((p) => (existsSync(p) ? statSync(p).mtimeMs : null));
    const before = state();
    for (const name of ['../../x', '../../../../tmp/evil.png', '..\\..\\x.png', '/etc/passwd', '.hidden.png', '....png']) {
      const r = await upload(realPng(), name, 'image/png');
      expect(r.status, name).toBe(201);
      expect(r.body.data.fileName).not.toMatch(/[\\/]/);
      expect(r.body.data.fileName.startsWith('.')).toBe(false);
      expect(r.body.data.key).toMatch(/^[0-9a-f-]{36}\.png$/);
    }
    expect(existsSync(join(env.dir, 'x'))).toBe(false);
    expect(state()).toEqual(before);
    const files = await allUploads();
    expect(files).toHaveLength(6);
    for (const f of files) expect(f).toMatch(/^[0-9a-f-]{36}\.png$/);
    if (env.rt.deps.files.kind === 'directory') expect(filesUnder(env.dir).filter((f) => f.endsWith('.png')).every((f) => f.startsWith('uploads/'))).toBe(true);
  });

  it('sanitizeFileName keeps only a displayable last segment', () => {
    expect(sanitizeFileName('../../x', 'png')).toBe('x.png');
    expect(sanitizeFileName('..\\..\\boot.ini.pdf', 'pdf')).toBe('boot.ini.pdf');
    expect(sanitizeFileName('a\u0000b\r\nc.pdf', 'pdf')).toBe('abc.pdf');
    expect(sanitizeFileName('', 'jpeg')).toBe('file.jpg');
    expect(sanitizeFileName('x'.repeat(300) + '.pdf', 'pdf')).toHaveLength(120);
  });

  it('refuses what is not one multipart part named file', async () => {
    const url = `/v1/submerchants/${sub.id}/upload`;
    const send = async (body: BodyInit, headers: Record<string, string> = {}) => {
      const res = await env.rt.app.request(url, { method: 'POST', body, headers: { authorization: env.auth(), ...headers } });
      return { status: res.status, body: (await res.json()) as any };
    };
    const json = await send(JSON.stringify({ file: 'x' }), { 'content-type': 'application/json' });
    expect(json.status).toBe(415);
    expect(json.body.error).toBe('unsupported_media_type');
    const noBoundary = await send('x', { 'content-type': 'multipart/form-data; charset=utf-8' });
    expect(noBoundary.status).toBe(400);

    const wrongName = new FormData();
    wrongName.append('document', new Blob([new Uint8Array(realPng())]), 'a.png');
    const w = await send(wrongName);
    expect(w.status).toBe(400);
    expect(w.body.message).toMatch(/document: is not a known part/);

    const two = new FormData();
    two.append('file', new Blob([new Uint8Array(realPng())]), 'a.png');
    two.append('file', new Blob([new Uint8Array(realPng())]), 'b.png');
    const t = await send(two);
    expect(t.status).toBe(400);
    expect(t.body.message).toMatch(/exactly one part/);

    const field = new FormData();
    field.append('note', 'hello');
    const f = await send(field);
    expect(f.status).toBe(400);

    const empty = await send(new FormData());
    expect(empty.status).toBe(400);
    expect(empty.body.details[0]).toMatchObject({ field: 'file' });

    const cut = `--b\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n${realPng().toString('latin1')}`;
    const truncatedBody = await send(Buffer.from(cut, 'latin1'), { 'content-type': 'multipart/form-data; boundary=b' });
    expect(truncatedBody.status).toBe(400);
    expect(await allUploads()).toEqual([]);
  });

  it("uploading for another merchant's submerchant is a 404 and writes nothing", async () => {
    const intruder = await env.newMerchant('Intrusa');
    const r = await upload(realPng(), 'a.png', 'image/png', sub.id, basic(intruder.public_key, intruder.secret_key));
    expect(r.status).toBe(404);
    expect(r.body.message).toBe('Submerchant not found');
    expect(await allUploads()).toEqual([]);
  });
});

describe('10 MiB limit, streamed', () => {
  it('exactly 10 MiB is accepted while memory stays flat', async () => {
    let s!: ReturnType<typeof streamingMultipart>;
    const { result: r, rss, arrayBuffers } = await measure((sample) => {
      s = streamingMultipart({ fileSize: LIMIT, head: realPdf().subarray(0, 64), onChunk: sample });
      return sendStream(s);
    });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ fileSize: LIMIT, mimeType: 'application/pdf', fileName: 'big.pdf' });
    expect((await env.rt.deps.files.get(r.body.data.key))?.size).toBe(LIMIT);
    expect(s.pulled()).toBe(s.totalLength);
    // While streaming, the 10 MiB never sits in memory at once. A directory store (SQLite) then
    // moves the temp file into place: memory stays flat. A database store (PostgreSQL) reads the
    // checked file once to write it into its BYTEA column: at most that one copy, never more.
    const oneCopy = env.rt.deps.files.kind === 'database' ? LIMIT : 0;
    expect(arrayBuffers).toBeLessThan(oneCopy + 4 * MiB);
    expect(rss).toBeLessThan(oneCopy + 24 * MiB);
  });

  it('10 MiB + 1 byte is refused with 413 while streaming; no file remains; memory stays flat', async () => {
    let s!: ReturnType<typeof streamingMultipart>;
    const { result: r, rss, arrayBuffers } = await measure((sample) => {
      s = streamingMultipart({ fileSize: LIMIT + 1, head: realPdf().subarray(0, 64), onChunk: sample });
      return sendStream(s);
    });
    expect(r.status).toBe(413);
    expect(r.body).toMatchObject({ success: false, error: 'payload_too_large' });
    expect(r.body.message).toContain('10485760');
    expect(await allUploads()).toEqual([]);
    expect(await env.rt.deps.db.all('SELECT key FROM files')).toEqual([]);
    expect(arrayBuffers).toBeLessThan(4 * MiB);
    expect(rss).toBeLessThan(24 * MiB);
    // (the extra byte is in the last chunk, so here the whole body was pulled; the next test
    // shows that reading stops at the limit)
    expect(s.pulled()).toBeGreaterThan(LIMIT);
  });

  it('a 200 MiB stream is cut off just past the limit: the reader stops pulling', async () => {
    let s!: ReturnType<typeof streamingMultipart>;
    const { result: r, arrayBuffers } = await measure((sample) => {
      s = streamingMultipart({ fileSize: 200 * MiB, head: realPng().subarray(0, 16), fileName: 'huge.png', mime: 'image/png', onChunk: sample });
      return sendStream(s);
    });
    expect(r.status).toBe(413);
    expect(s.pulled()).toBeLessThan(LIMIT + 2 * MiB);
    expect(arrayBuffers).toBeLessThan(4 * MiB);
    expect(await allUploads()).toEqual([]);
  });

  it('a declared Content-Length far above the limit is refused before reading', async () => {
    const s = streamingMultipart({ fileSize: 50 * MiB, head: realPdf().subarray(0, 64) });
    const req = new Request(`http://localhost/v1/submerchants/${sub.id}/upload`, {
      method: 'POST',
      body: s.stream,
      headers: { authorization: env.auth(), 'content-type': s.contentType, 'content-length': String(s.totalLength) },
      duplex: 'half',
    } as RequestInit);
    const res = await env.rt.app.fetch(req);
    expect(res.status).toBe(413);
    expect(s.pulled()).toBeLessThan(1 * MiB);
  });

  it('a type refused from its first bytes stops the read there', async () => {
    const s = streamingMultipart({ fileSize: 8 * MiB, head: elf(), fileName: 'x.png', mime: 'image/png' });
    const r = await sendStream(s);
    expect(r.status).toBe(415);
    expect(s.pulled()).toBeLessThan(2 * MiB);
    expect(await allUploads()).toEqual([]);
  });
});

describe('over real HTTP', () => {
  it('uploads with fetch + FormData, downloads the same bytes, and answers 413 to an oversized stream', async () => {
    const server = await listen(env.rt, '127.0.0.1', 0);
    try {
      const png = realPng();
      const fd = new FormData();
      fd.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), '../../x.png');
      const res = await fetch(`${server.url}/v1/submerchants/${sub.id}/upload`, { method: 'POST', body: fd, headers: { authorization: env.auth() } });
      expect(res.status).toBe(201);
      const d = ((await res.json()) as any).data;
      expect(d).toMatchObject({ fileName: 'x.png', fileSize: png.length, mimeType: 'image/png' });
      expect(d.url).toBe(`${server.url}/v1/files/${d.key}`);

      const get = await fetch(d.url, { headers: { authorization: env.auth() } });
      expect(get.status).toBe(200);
      expect(get.headers.get('content-type')).toBe('image/png');
      expect(get.headers.get('x-content-type-options')).toBe('nosniff');
      expect(get.headers.get('content-disposition')).toMatch(/^attachment; filename="x.png"/);
      expect(Buffer.from(await get.arrayBuffer()).equals(png)).toBe(true);

      const intruder = await env.newMerchant('Intrusa');
      const stolen = await fetch(d.url, { headers: { authorization: basic(intruder.public_key, intruder.secret_key) } });
      expect(stolen.status).toBe(404);
      await stolen.body?.cancel();

      const s = streamingMultipart({ fileSize: LIMIT + 1, head: realPdf().subarray(0, 64) });
      const big = await fetch(`${server.url}/v1/submerchants/${sub.id}/upload`, {
        method: 'POST',
        body: s.stream,
        headers: { authorization: env.auth(), 'content-type': s.contentType },
        duplex: 'half',
      } as RequestInit);
      expect(big.status).toBe(413);
      expect(((await big.json()) as any).error).toBe('payload_too_large');
      expect(await allUploads()).toEqual([d.key]);
    } finally {
      await server.close();
    }
  });
});

describe('per-merchant upload limits', () => {
  const png = () => realPng();
  const download = (key: string) => env.rt.app.request(`/v1/files/${key}`, { headers: { authorization: env.auth() } });
  const attach = (key: string, size: number, type = 'cnpj_card') =>
    env.call('POST', `/v1/submerchants/${sub.id}/documents`, {
      type,
      file_url: `http://localhost/v1/files/${key}`,
      file_name: 'doc.png',
      file_size: size,
      mime_type: 'image/png',
    });

  it('uploads past the burst (30 by default) are 429 with Retry-After and store nothing; the bucket refills with time, per merchant', async () => {
    await withUploadLimits({}); // the defaults, as a server runs them (testEnv turns the rate off)
    const results = [];
    for (let i = 0; i < 31; i++) results.push(await upload(png(), `f${i}.png`, 'image/png'));
    expect(results.slice(0, 30).map((r) => r.status)).toEqual(Array(30).fill(201));
    const limited = results[30]!;
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ success: false, error: 'rate_limited' });
    expect(limited.body.message).toMatch(/uploads/i);
    const stored = await allUploads();
    expect(stored).toHaveLength(30);
    const res = await env.rt.app.request(`/v1/submerchants/${sub.id}/upload`, { method: 'POST', body: (() => { const fd = new FormData(); fd.append('file', new Blob([new Uint8Array(png())], { type: 'image/png' }), 'x.png'); return fd; })(), headers: { authorization: env.auth() } });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // another merchant has its own budget
    const other = await env.newMerchant('Outra');
    const theirSub = await ok(env, 'POST', '/v1/submerchants', pjBody(), env.auth(other));
    expect((await upload(png(), 'o.png', 'image/png', theirSub.id, env.auth(other))).status).toBe(201);
    // 30 a minute: one more every 2 s
    env.clock.advance(2_000);
    expect((await upload(png(), 'later.png', 'image/png')).status).toBe(201);
    expect((await upload(png(), 'again.png', 'image/png')).status).toBe(429);
  });

  it('an upload that would take the merchant past its storage quota is 422 storage_quota_exceeded and stores nothing', async () => {
    const size = png().length;
    await withUploadLimits({ quotaBytes: 3 * size });
    for (let i = 0; i < 3; i++) expect((await upload(png(), `f${i}.png`, 'image/png')).status).toBe(201);
    const over = await upload(png(), 'over.png', 'image/png');
    expect(over.status).toBe(422);
    expect(over.body).toMatchObject({ success: false, error: 'storage_quota_exceeded' });
    expect(over.body.message).toContain(`${3 * size}`);
    expect(over.body.details).toEqual([{ field: 'file', message: expect.stringMatching(/quota/) }]);
    expect(await allUploads()).toHaveLength(3);
    // another merchant's quota is its own
    const other = await env.newMerchant('Outra');
    const theirSub = await ok(env, 'POST', '/v1/submerchants', pjBody(), env.auth(other));
    expect((await upload(png(), 'o.png', 'image/png', theirSub.id, env.auth(other))).status).toBe(201);
  });

  it('uploads arriving at once are counted one after the other against the quota', async () => {
    await withUploadLimits({ quotaBytes: 2 * png().length });
    // for submerchants of their own: nothing of one submerchant's upload waits for another's
    const subs = [sub.id];
    for (let i = 1; i < 6; i++) subs.push((await ok(env, 'POST', '/v1/submerchants', pjBody())).id);
    const all = await Promise.all(subs.map((id, i) => upload(png(), `f${i}.png`, 'image/png', id)));
    expect(all.map((r) => r.status).sort()).toEqual([201, 201, 422, 422, 422, 422]);
    expect(await allUploads()).toHaveLength(2);
  });

  it('a file that does not fit the room left is refused once read, and nothing stays', async () => {
    const small = png().length;
    await withUploadLimits({ quotaBytes: small + 100 });
    expect((await upload(png(), 'a.png', 'image/png')).status).toBe(201);
    const pdf = realPdf();
    expect(pdf.length).toBeGreaterThan(100);
    const r = await upload(pdf, 'b.pdf', 'application/pdf');
    expect(r.status).toBe(422);
    expect(r.body.error).toBe('storage_quota_exceeded');
    expect(await allUploads()).toHaveLength(1);
  });

  it('uploads never attached to a document are removed after 24 h by the due work; attached ones stay', async () => {
    const kept = (await upload(png(), 'kept.png', 'image/png')).body.data;
    const dropped = (await upload(png(), 'dropped.png', 'image/png')).body.data;
    expect((await attach(kept.key, kept.fileSize)).status).toBe(201);
    env.clock.advance(24 * 3600_000 - 1000);
    await env.call('GET', '/v1/merchant');
    expect((await download(dropped.key)).status).toBe(200);
    env.clock.advance(2000);
    await env.call('GET', '/v1/merchant'); // the due work runs before the merchant's request
    expect((await download(dropped.key)).status).toBe(404);
    expect(await env.rt.deps.files.get(dropped.key)).toBeUndefined();
    expect(await env.rt.deps.db.get('SELECT key FROM files WHERE key = ?', [dropped.key])).toBeUndefined();
    expect((await download(kept.key)).status).toBe(200);
    expect(await allUploads()).toEqual([kept.key]);
    // the document of a removed upload cannot be made any more
    expect((await attach(dropped.key, dropped.fileSize, 'social_contract')).status).toBe(422);
  });

  it("the server's sweep removes them too, and the room they took is free again", async () => {
    const size = png().length;
    await withUploadLimits({ quotaBytes: 2 * size });
    await upload(png(), 'a.png', 'image/png');
    await upload(png(), 'b.png', 'image/png');
    expect((await upload(png(), 'c.png', 'image/png')).status).toBe(422);
    env.clock.advance(24 * 3600_000 + 1000);
    const { runDueWork } = await import('../../src/server/due.js');
    expect(await runDueWork(env.rt.deps)).toBeGreaterThanOrEqual(2);
    expect(await allUploads()).toEqual([]);
    expect((await upload(png(), 'c.png', 'image/png')).status).toBe(201);
  });
});
