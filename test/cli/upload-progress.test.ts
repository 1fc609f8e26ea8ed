// `submerchants upload` shows the same progress bar as the onboarding wizard for a large file:
// the file's bytes, redrawn in place on a terminal.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { embeddedCli } from '../helpers/embedded-cli.js';
import { realPdf } from '../helpers/files.js';
import { ok, pfBody } from '../helpers/onboarding.js';

let env: TestEnv;
let dir: string;
beforeAll(async () => {
  env = await testEnv();
  dir = mkdtempSync(join(tmpdir(), 'mpay-upload-'));
});
afterAll(async () => {
  await env.close();
  rmSync(dir, { recursive: true, force: true });
});
const cli = embeddedCli(() => env);

describe('submerchants upload --file', () => {
  it('a large file shows the progress of its bytes on a terminal, then one line', async () => {
    const sub = await ok(env, 'POST', '/v1/submerchants', pfBody());
    const pdf = realPdf();
    // a real PDF padded to 3 MiB (the sniffer reads its head)
    const big = Buffer.concat([pdf, Buffer.alloc(3 * 1024 * 1024 - pdf.length, 0x20)]);
    const file = join(dir, 'contract.pdf');
    writeFileSync(file, big);
    const r = await cli(['submerchants', 'upload', sub.id, '--file', file, '-o', 'json'], { tty: true });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ fileSize: big.length });
    const frames = r.stderr.split('\r').filter(Boolean);
    expect(frames.length).toBeGreaterThan(3);
    expect(r.stderr).toMatch(/uploading contract\.pdf \[[█░]+\] +\d+% /);
    // the totals are the file's size, not the multipart body's
    expect(r.stderr).toContain('/3.0 MiB');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the terminal's erase-line sequence (ESC [K)
    expect(r.stderr).toMatch(/✓ uploaded contract\.pdf \(3\.0 MiB\)(\x1b\[K)?\n$/);
  });

  it('a small file, or no terminal, uploads without a bar', async () => {
    const sub = await ok(env, 'POST', '/v1/submerchants', pfBody());
    const file = join(dir, 'small.pdf');
    writeFileSync(file, realPdf());
    const r = await cli(['submerchants', 'upload', sub.id, '--file', file, '-o', 'json'], { tty: true });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('uploading');
  });
});
