// --jq wherever JSON is printed, in either position: before the command (a global option) or
// after it; `api --jq` filters the whole envelope, as `gh api --jq` does.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cliHome } from '../helpers/cli.js';

const home = cliHome();
afterAll(() => home.cleanup());

let merchantName: string;
beforeAll(() => {
  const m = home.run(['merchant', 'get', '-o', 'json']);
  expect(m.code, m.stderr).toBe(0);
  merchantName = m.json().name;
  const k = home.run(['keys', 'create', '--name', 'second', '-q']);
  expect(k.code, k.stderr).toBe(0);
});

describe('--jq in either position', () => {
  it('before the command (global) and after it give the same', () => {
    const ids = home.run(['keys', 'list', '-o', 'json']).json().map((k: { id: string }) => k.id);
    for (const args of [
      ['--jq', '.[0].id', 'keys', 'list'],
      ['keys', 'list', '--jq', '.[0].id'],
      ['--jq=.[0].id', 'keys', 'list'],
      ['-o', 'table', '--jq', '.[0].id', 'keys', 'list'],
    ]) {
      const r = home.run(args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.stdout, args.join(' ')).toBe(`${ids[0]}\n`);
    }
  });

  it('hand-written commands: whoami, profiles, sandbox values, trigger --list', () => {
    for (const [args, want] of [
      [['--jq', '.merchant.name', 'whoami'], `${merchantName}\n`],
      [['whoami', '--jq', '.merchant.name'], `${merchantName}\n`],
      [['--jq', '.[0].name', 'profiles', 'list'], 'default\n'],
      [['--jq', '.[0].event', 'trigger', '--list'], 'charge.pending\n'],
      [['sandbox', 'values', '--jq', '[.[] | select(.area == "card")] | length > 0'], 'true\n'],
    ] as const) {
      const r = home.run([...args]);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.stdout, args.join(' ')).toBe(want);
    }
  });
});

describe('mpay api', () => {
  it('--jq filters the envelope', () => {
    for (const args of [
      ['api', 'GET', '/v1/merchant', '--jq', '.data.name'],
      ['--jq', '.data.name', 'api', 'GET', '/v1/merchant'],
    ]) {
      const r = home.run(args);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(`${merchantName}\n`);
    }
    const ok = home.run(['api', 'GET', '/v1/merchant', '--jq', '.success']);
    expect(ok.stdout).toBe('true\n');
  });

  it('-o jsonl prints the envelope on one line; -o json as before', () => {
    const l = home.run(['api', 'GET', '/v1/api-keys', '-o', 'jsonl']);
    expect(l.code, l.stderr).toBe(0);
    expect(l.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(JSON.parse(l.stdout)).toMatchObject({ success: true, data: expect.any(Array) });
    const j = home.run(['api', 'GET', '/v1/api-keys', '-o', 'json']);
    expect(j.stdout).toBe(JSON.stringify(JSON.parse(l.stdout), null, 2) + '\n');
  });

  it('a refusal is filtered too, and keeps its exit code', () => {
    const r = home.run(['api', 'GET', '/v1/charges/01a211f7-2368-70cf-bb7e-c9ab723315ef', '--jq', '.error']);
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('not_found\n');
  });

  it('a bad expression is a usage error, and nothing is sent', () => {
    const r = home.run(['api', 'POST', '/v1/api-keys', '-f', 'name=never', '--jq', '.[']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: --jq: /);
    expect(home.run(['keys', 'list', '--jq', '[.[] | select(.name == "never")] | length']).stdout).toBe('0\n');
  });
});

describe('mpay smoke', () => {
  it('--jq filters the summary instead of printing a table into the pipe', () => {
    const r = home.run(['smoke', '--jq', '.ok']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('true\n');
  }, 120_000);
});

describe('mpay webhooks listen', () => {
  it('--jq filters each event line', async () => {
    const child = spawn(process.execPath, [BIN, 'webhooks', 'listen', '--events', 'payment_link.created', '--jq', '.type'], { env: home.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const exited = new Promise<number>((r) => child.on('close', (c) => r(c ?? -1)));
    const until = async (pred: () => boolean, what: string) => {
      for (let i = 0; i < 400 && !pred(); i++) await new Promise((r) => setTimeout(r, 50));
      if (!pred()) throw new Error(`${what}; stdout: ${out}; stderr: ${err}`);
    };
    try {
      await until(() => err.includes('Listening on'), 'the listener did not start');
      const link = home.run(['links', 'create', '--title', 'Jq', '--product-type', 'digital', '--allowed-payment-methods', 'pix']);
      expect(link.code, link.stderr).toBe(0);
      await until(() => out.includes('\n'), 'no event line');
      expect(out).toBe('payment_link.created\n');
    } finally {
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  }, 60_000);

  it('a bad expression is a usage error before any endpoint is registered', () => {
    const r = home.run(['webhooks', 'listen', '--jq', '.[']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: --jq: /);
    expect(home.run(['webhooks', 'list', '-o', 'json']).json()).toEqual([]);
  });
});
