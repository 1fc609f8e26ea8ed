// Which target a command talks to, and with which keys, when a flag or a variable names one for a
// single command. A profile's keys go only to that profile's own target: `--base-url URL` (or
// MPAY_BASE_URL) for another target takes keys from MPAY_PUBLIC_KEY/MPAY_SECRET_KEY or none, and
// never sends a remote profile's secret key to a host the user typed; an embedded profile's
// sandbox keys go only to a server on this machine. `--data-dir DIR` (or
// MPAY_DATA_DIR) is the embedded sandbox in DIR even when the active profile is a remote one: the
// remote deployment is not touched.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cliHome } from '../helpers/cli.js';

/** A server that is not the profile's target: it records the Authorization header of each request and answers 401. */
let spy: Server;
let spyUrl = '';
const seen: Array<string | undefined> = [];
beforeAll(async () => {
  spy = createServer((req, res) => {
    seen.push(req.headers.authorization);
    res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ success: false, error: 'invalid_credentials', message: 'invalid API key', details: [] }));
  });
  await new Promise<void>((r) => spy.listen(0, '127.0.0.1', r));
  spyUrl = `http://127.0.0.1:${(spy.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((r) => spy.close(r)));
beforeEach(() => {
  seen.length = 0;
});
const basic = (pk: string, sk: string) => `Basic ${Buffer.from(`${pk}:${sk}`).toString('base64')}`;

const home = cliHome();
afterAll(() => home.cleanup());
const configFile = join(home.env.MPAY_CONFIG_DIR!, 'config.json');

describe("a base URL for one command never gets the active profile's keys", () => {
  const remote = { base_url: 'http://127.0.0.1:9', public_key: 'pk_test_profile', secret_key: 'sk_test_profile_secret' };
  beforeAll(() => {
    mkdirSync(home.env.MPAY_CONFIG_DIR!, { recursive: true });
    writeFileSync(configFile, JSON.stringify({ current: 'prodlike', profiles: { prodlike: remote } }), { mode: 0o600 });
  });

  it('--base-url and MPAY_BASE_URL: no keys, so nothing is sent, and the error says how to give keys', async () => {
    for (const [args, env] of [
      [['--base-url', spyUrl, 'whoami'], {}],
      [['whoami'], { MPAY_BASE_URL: spyUrl }],
    ] as const) {
      const r = await home.runAsync([...args], { env });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`no API keys for ${spyUrl}`);
      expect(r.stderr).not.toContain('sk_test_profile_secret');
    }
    expect(seen).toEqual([]);
  });

  it('keys from the environment go to the URL given', async () => {
    const r = await home.runAsync(['--base-url', spyUrl, 'whoami'], { env: { MPAY_PUBLIC_KEY: 'pk_test_env', MPAY_SECRET_KEY: 'sk_test_env' } });
    expect(r.code).toBe(3);
    expect(seen).toEqual([basic('pk_test_env', 'sk_test_env')]);
  });

  it("the profile's own target, however spelled, still gets the profile's keys", async () => {
    writeFileSync(configFile, JSON.stringify({ current: 'spyprofile', profiles: { spyprofile: { ...remote, base_url: spyUrl } } }), { mode: 0o600 });
    try {
      for (const url of [spyUrl, `${spyUrl}/`]) {
        const r = await home.runAsync(['--base-url', url, 'whoami']);
        expect(r.code, r.stderr).toBe(3);
      }
      expect(seen).toEqual([basic(remote.public_key, remote.secret_key), basic(remote.public_key, remote.secret_key)]);
    } finally {
      writeFileSync(configFile, JSON.stringify({ current: 'prodlike', profiles: { prodlike: remote } }), { mode: 0o600 });
    }
  });

  it("an embedded profile's sandbox keys go to a server on this machine, never further", async () => {
    const fresh = cliHome();
    try {
      const first = fresh.run(['whoami', '-o', 'json']);
      expect(first.code, first.stderr).toBe(0);
      const own = JSON.parse(readFileSync(join(fresh.env.MPAY_CONFIG_DIR!, 'config.json'), 'utf8')).profiles.default;
      // `mpay server start` on the profile's data directory, as the README's checkout walk-through does
      const local = await fresh.runAsync(['--base-url', spyUrl, 'whoami']);
      expect(local.code).toBe(3);
      expect(seen).toEqual([basic(own.public_key, own.secret_key)]);
      // a host elsewhere (TEST-NET-1: refused before any connection)
      const far = await fresh.runAsync(['--base-url', 'http://192.0.2.1:4010', 'whoami']);
      expect(far.code).toBe(2);
      expect(far.stderr).toContain('no API keys for http://192.0.2.1:4010 (profile "default"\'s keys are for its sandbox and servers on this machine only)');
      expect(seen).toHaveLength(1);
    } finally {
      fresh.cleanup();
    }
  });
});

describe('a data directory for one command, with a remote profile active', () => {
  const remote = { base_url: 'http://127.0.0.1:9', public_key: 'pk_test_profile', secret_key: 'sk_test_profile_secret' };
  beforeAll(() => {
    writeFileSync(configFile, JSON.stringify({ current: 'prodlike', profiles: { prodlike: remote } }), { mode: 0o600 });
  });

  it('--data-dir and MPAY_DATA_DIR open the sandbox in that directory, and the profile is left as it was', () => {
    const before = readFileSync(configFile, 'utf8');
    const dir = join(home.dir, 'ci-sandbox');
    for (const [args, env] of [
      [['--data-dir', dir, 'whoami', '-o', 'json'], {}],
      [['whoami', '-o', 'json'], { MPAY_DATA_DIR: dir }],
    ] as const) {
      const r = home.run([...args], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(r.json().target).toBe(`embedded:${dir}`);
    }
    expect(readFileSync(configFile, 'utf8')).toBe(before);
  });

  it('with profiles but none active, a data directory is still a target of its own', () => {
    const before = readFileSync(configFile, 'utf8');
    writeFileSync(configFile, JSON.stringify({ profiles: { prodlike: remote } }), { mode: 0o600 });
    try {
      const dir = join(home.dir, 'ci-none-active');
      const r = home.run(['whoami', '-o', 'json'], { env: { MPAY_DATA_DIR: dir } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.json().target).toBe(`embedded:${dir}`);
      // without one, the refusal stands
      expect(home.run(['whoami']).stderr).toMatch(/no active profile/);
    } finally {
      writeFileSync(configFile, before, { mode: 0o600 });
    }
  });

  it('--data-dir with --base-url names two targets: a usage error, nothing sent', async () => {
    const r = await home.runAsync(['--data-dir', join(home.dir, 'x'), '--base-url', spyUrl, 'whoami'], { env: { MPAY_PUBLIC_KEY: 'pk_test_env', MPAY_SECRET_KEY: 'sk_test_env' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--data-dir and --base-url');
    expect(seen).toEqual([]);
  });
});
