/**
 * Real headless Chromium for the checkout tests (Debian's `chromium`, driven by playwright-core).
 * Without Chromium the browser tests skip with a message on a dev machine; in CI
 * (`process.env.CI`) a missing Chromium is a failure.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { encodePng } from '../../src/domain/png.js';

export const CHROMIUM = process.env.MPAY_CHROMIUM ?? '/usr/bin/chromium';
export const HAVE_CHROMIUM = existsSync(CHROMIUM);
export const IN_CI = Boolean(process.env.CI);

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const ARTIFACTS = join(__dirname, '../../test-artifacts');
export function artifactPath(name: string): string {
  mkdirSync(ARTIFACTS, { recursive: true });
  return join(ARTIFACTS, name);
}

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

/** A small RGB PNG: a rounded badge in `rgb` on white, for a merchant logo. */
export function logoPng(size = 96, rgb: [number, number, number] = [234, 88, 12]): Buffer {
  const rows: Uint8Array[] = [];
  const c = (size - 1) / 2;
  for (let y = 0; y < size; y++) {
    const row = new Uint8Array(size * 3);
    for (let x = 0; x < size; x++) {
      const inside = Math.hypot(x - c, y - c) <= size * 0.45;
      const stripe = inside && Math.abs(y - c) < size * 0.08;
      const px = inside ? (stripe ? [255, 255, 255] : rgb) : [255, 255, 255];
      row.set(px, x * 3);
    }
    rows.push(row);
  }
  return encodePng(size, 'rgb', rows);
}

/**
 * The merchant's own site over HTTPS (a logo URL must be https): its logo and the page buyers
 * are redirected to after paying. Its certificate is a self-signed one for 127.0.0.1 in
 * test/fixtures/tls, so the browser contexts that load it ignore certificate errors.
 */
export async function merchantSite(): Promise<{ url: string; hits: string[]; close(): Promise<void> }> {
  const hits: string[] = [];
  const png = logoPng();
  const tls = join(__dirname, '../fixtures/tls');
  const server: Server = createServer({ key: readFileSync(join(tls, 'merchant-site.key')), cert: readFileSync(join(tls, 'merchant-site.crt')) }, (req, res) => {
    hits.push(req.url ?? '');
    if (req.url === '/logo.png') {
      res.writeHead(200, { 'content-type': 'image/png', 'cache-control': 'no-store' });
      res.end(png);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><html lang="pt-BR"><title>Obrigado</title><h1>Obrigado pela compra!</h1></html>');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    hits,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
