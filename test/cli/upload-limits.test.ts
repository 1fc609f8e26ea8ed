/**
 * `mpay server start --upload-rate --upload-quota --upload-retention` and their MPAY_
 * variables: parsed into the server's upload limits, enforced over HTTP, and a bad value is a
 * usage error (exit 2) naming the flag.
 */
import { request } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { parseUploadQuota, parseUploadRate, parseUploadRetention, uploadLimitsOfFlags } from '../../src/cli/commands/serverStart/uploadLimits.js';
import { cliHome } from '../helpers/cli.js';
import { realPng } from '../helpers/files.js';
import { pjBody } from '../helpers/onboarding.js';

const home = cliHome();
afterAll(() => home.cleanup());

describe('parsing', () => {
  it('--upload-rate PER_MINUTE[,BURST] or off', () => {
    expect(parseUploadRate('30,30')).toEqual({ perSecond: 0.5, burst: 30 });
    expect(parseUploadRate('120')).toEqual({ perSecond: 2, burst: 120 });
    expect(parseUploadRate('off')).toBeNull();
    for (const bad of ['', '0', 'fast', '1,0', '-1', '1.5']) expect(() => parseUploadRate(bad), bad).toThrow(/--upload-rate must be PER_MINUTE\[,BURST\]/);
  });

  it('--upload-quota in bytes or KiB/MiB/GiB/TiB, or off', () => {
    expect(parseUploadQuota('2GiB')).toBe(2 * 1024 ** 3);
    expect(parseUploadQuota('500 MiB')).toBe(500 * 1024 ** 2);
    expect(parseUploadQuota('1024')).toBe(1024);
    expect(parseUploadQuota('8kib')).toBe(8192);
    expect(parseUploadQuota('off')).toBeNull();
    for (const bad of ['', '0', '2GB', '1.5GiB', 'lots', '-1MiB']) expect(() => parseUploadQuota(bad), bad).toThrow(/--upload-quota must be a size/);
  });

  it('--upload-retention in whole hours, 1 to 8760', () => {
    expect(parseUploadRetention('24')).toBe(24);
    for (const bad of ['0', '8761', '1.5', 'day']) expect(() => parseUploadRetention(bad), bad).toThrow(/--upload-retention must be whole hours/);
  });

  it('a flag wins over its variable; what neither sets is left to the defaults', () => {
    expect(uploadLimitsOfFlags({}, {})).toEqual({});
    expect(uploadLimitsOfFlags({ uploadQuota: '1GiB' }, { MPAY_UPLOAD_QUOTA: '5GiB', MPAY_UPLOAD_RATE: 'off', MPAY_UPLOAD_RETENTION_HOURS: '48' })).toEqual({
      quotaBytes: 1024 ** 3,
      rate: null,
      retentionHours: 48,
    });
  });
});

describe('mpay server start', () => {
  it('enforces --upload-rate and MPAY_UPLOAD_QUOTA over HTTP; a bad value exits 2 naming the flag', async () => {
    const creds = home.run(['admin', 'merchants', 'create', '--name', 'Uploads', '--json']).json();
    const png = realPng();
    const s = await home.startServer(['--upload-rate', '60,2'], { env: { MPAY_UPLOAD_QUOTA: String(png.length) } });
    try {
      const authorization = 'Basic ' + Buffer.from(`${creds.public_key}:${creds.secret_key}`).toString('base64');
      const sub = await fetch(`${s.url}/v1/submerchants`, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify(pjBody()) });
      expect(sub.status).toBe(201);
      const subId = ((await sub.json()) as { data: { id: string } }).data.id;
      // the whole body in one write: a refusal answered before the body is read closes the
      // connection, and a client still sending the body then fails with EPIPE (fetch does)
      const up = async () => {
        const fd = new FormData();
        fd.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'doc.png');
        const form = new Response(fd);
        const body = Buffer.from(await form.arrayBuffer());
        return new Promise<{ status: number; body: { error?: string } }>((resolve, reject) => {
          const req = request(
            `${s.url}/v1/submerchants/${subId}/upload`,
            { method: 'POST', headers: { authorization, 'content-type': form.headers.get('content-type')!, 'content-length': body.length } },
            (res) => {
              let text = '';
              res.on('data', (d) => (text += d));
              res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
            },
          );
          req.on('error', reject);
          req.end(body);
        });
      };
      expect((await up()).status).toBe(201);
      expect(await up()).toMatchObject({ status: 422, body: { error: 'storage_quota_exceeded' } });
      expect(await up()).toMatchObject({ status: 429, body: { error: 'rate_limited' } });
    } finally {
      s.child.kill('SIGTERM');
      await s.exited;
    }
    const bad = home.run(['server', 'start', '--port', '0', '--upload-quota', 'lots']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--upload-quota must be a size');
  });
});
