import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliHome } from '../helpers/cli.js';
import { realPng } from '../helpers/files.js';
import { hasTmux, tmuxMpay } from '../helpers/tmux.js';

// Links and file urls of the embedded sandbox point at http://127.0.0.1:4010, where nothing
// listens unless `mpay server start` runs there. `mpay links open` and `mpay files open` serve
// them on a free loopback port until Ctrl-C; printed URLs say how to serve them.
const home = cliHome();
let dir: string;
let linkId: string;
let fileKey: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mpay-open-'));
  writeFileSync(join(dir, 'rg.png'), realPng());
  const link = home.run(['links', 'create', '--title', 'Camiseta azul', '--product-type', 'physical', '--allowed-payment-methods', 'credit_card,pix', '--amount', '7990', '-o', 'json']);
  expect(link.code, link.stderr).toBe(0);
  linkId = link.json().id;
  expect(link.json().checkout_url).toBe(`http://127.0.0.1:4010/checkout/${linkId}`); // JSON is unchanged
  const sub = home.run(['submerchants', 'create', '--entity-type', 'pf', '--trade-name', 'Ana', '--legal-name', 'Ana Souza', '--tax-id', '52998224725', '--email', 'a@example.com', '-o', 'json']);
  expect(sub.code, sub.stderr).toBe(0);
  const up = home.run(['submerchants', 'upload', sub.json().id, '--file', join(dir, 'rg.png'), '-o', 'json']);
  expect(up.code, up.stderr).toBe(0);
  fileKey = up.json().key;
});
afterAll(() => {
  home.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const serving = (args: string[], env: NodeJS.ProcessEnv = {}) => home.serving(args, { env });

describe('mpay links open', () => {
  it('serves the checkout page of the embedded sandbox on a free loopback port until Ctrl-C (exit 130)', async () => {
    const s = await serving(['links', 'open', linkId]);
    try {
      const u = new URL(s.url);
      expect(u.hostname).toBe('127.0.0.1');
      expect(u.pathname).toBe(`/checkout/${linkId}`);
      const page = await fetch(s.url);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain('Camiseta azul');
      // what the page needs is served too: its script, and the service it calls
      const script = /<script src="([^"]+)"/.exec(html)![1]!;
      expect((await fetch(new URL(script, s.url))).status).toBe(200);
      expect((await fetch(new URL('/healthz', s.url))).status).toBe(200);
      expect(s.stderr()).toContain('Ctrl-C to stop');
    } finally {
      s.child.kill('SIGINT');
    }
    expect(await s.exited).toBe(130);
  });

  it('an unknown link is exit 4, and nothing is served', () => {
    const r = home.run(['links', 'open', '0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f']);
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
  });

  it('against a remote target prints its checkout_url and ends', async () => {
    const creds = home.run(['admin', 'merchants', 'create', '--name', 'Remote', '--json']).json();
    const server = await home.startServer();
    try {
      const env = { MPAY_PUBLIC_KEY: creds.public_key, MPAY_SECRET_KEY: creds.secret_key };
      const made = home.run(['--base-url', server.url, 'links', 'create', '--title', 'Remota', '--product-type', 'digital', '--allowed-payment-methods', 'pix', '--amount', '500', '-o', 'json'], { env });
      expect(made.code, made.stderr).toBe(0);
      const r = home.run(['--base-url', server.url, 'links', 'open', made.json().id], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(`${made.json().checkout_url}\n`);
      expect(made.json().checkout_url.startsWith(server.url)).toBe(true);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });

  it('--browser opens a browser only on a terminal ($BROWSER, as gh does)', async () => {
    const opened = join(dir, 'opened.txt');
    const browser = join(dir, 'browser.sh');
    writeFileSync(browser, `#!/bin/sh\necho "$1" > ${opened}\n`);
    chmodSync(browser, 0o755);
    // not a terminal: the URL is printed and no browser starts
    const s = await serving(['links', 'open', linkId, '--browser'], { BROWSER: browser });
    s.child.kill('SIGTERM');
    expect(await s.exited).toBe(0);
    expect(existsSync(opened)).toBe(false);
    expect(s.stderr()).toContain('--browser opens a browser only on a terminal');
    if (!hasTmux) return;
    const t = tmuxMpay(home.dir, { ...home.env, BROWSER: browser }, ['links', 'open', linkId, '--browser']);
    try {
      await t.waitFor('Ctrl-C to stop');
      for (let i = 0; i < 50 && !existsSync(opened); i++) await new Promise((r) => setTimeout(r, 100));
      expect(readFileSync(opened, 'utf8')).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/checkout/${linkId}\\n$`));
      t.keys('C-c');
      expect(await t.exitCode()).toBe(130);
    } finally {
      t.kill();
    }
  }, 60_000);
});

describe('mpay files open', () => {
  it('serves the uploaded file (inline, its type) under an unguessable path until SIGTERM (exit 0)', async () => {
    const s = await serving(['files', 'open', fileKey]);
    try {
      const res = await fetch(s.url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/png');
      expect(res.headers.get('content-disposition')).toMatch(/^inline/);
      expect(Buffer.from(await res.arrayBuffer()).equals(realPng())).toBe(true);
      // nothing else is served: not the API, not another path
      const u = new URL(s.url);
      expect((await fetch(`${u.origin}/v1/files/${fileKey}`)).status).toBe(404);
      expect((await fetch(`${u.origin}/v1/merchant`)).status).toBe(404);
    } finally {
      s.child.kill('SIGTERM');
    }
    expect(await s.exited).toBe(0);
  });

  it('an unknown key is exit 4', () => {
    expect(home.run(['files', 'open', 'nope.png']).code).toBe(4);
  });
});

describe('embedded URLs in tables say how to serve them', () => {
  it('a link table ends with the command that serves its checkout_url; JSON has no such line', () => {
    const table = home.run(['links', 'get', linkId, '-o', 'table']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stderr).toContain(`mpay links open ${linkId}`);
    const json = home.run(['links', 'get', linkId, '-o', 'json']);
    expect(json.stderr).not.toContain('links open');
    expect(json.json().checkout_url).toBe(`http://127.0.0.1:4010/checkout/${linkId}`);
  });

  it('mpay trigger payment_link.created says it too', () => {
    const r = home.run(['trigger', 'payment_link.created', '-o', 'table']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/`mpay links open [0-9a-f-]{36}` serves it on a free local port/);
  });

  it('a document or upload url points at mpay files open', () => {
    const list = home.run(['submerchants', 'list', '-o', 'json']).json();
    const docs = home.run(['submerchants', 'docs', 'add', list[0].id, '--type', 'front_id', '--file-url', `http://127.0.0.1:4010/v1/files/${fileKey}`, '--file-name', 'rg.png', '--file-size', String(realPng().length), '--mime-type', 'image/png', '-o', 'table']);
    expect(docs.code, docs.stderr).toBe(0);
    const got = home.run(['submerchants', 'docs', 'list', list[0].id, '-o', 'table']);
    expect(got.stderr + docs.stderr).toContain(`mpay files open ${fileKey}`);
  });
});
