import { readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliHome } from '../helpers/cli.js';

const home = cliHome();
afterAll(() => home.cleanup());

describe('mpay binary, embedded sandbox', () => {
  it('--version prints the package version', () => {
    const r = home.run(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(JSON.parse(readFileSync(join(__dirname, '../../package.json'), 'utf8')).version);
  });

  it('--help lists commands and examples; a command help has a worked example', () => {
    const r = home.run(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('keys');
    expect(r.stdout).toContain('Exit codes');
    const k = home.run(['keys', 'create', '--help']);
    expect(k.code).toBe(0);
    expect(k.stdout).toContain('Example:');
    expect(k.stdout).toContain('--allowed-ips');
  });

  it('first use creates the default sandbox profile (mode 0600) and prints JSON when piped', () => {
    const r = home.run(['keys', 'list']);
    expect(r.code).toBe(0);
    const keys = r.json();
    expect(keys).toHaveLength(1);
    expect(r.stderr).toContain('Created sandbox credentials in profile "default"');
    const cfgFile = join(home.env.MPAY_CONFIG_DIR!, 'config.json');
    expect(statSync(cfgFile).mode & 0o777).toBe(0o600);
    const cfg = JSON.parse(readFileSync(cfgFile, 'utf8'));
    expect(cfg.profiles.default.public_key).toBe(keys[0].public_key);
    expect(statSync(join(home.dataDir, 'master.key')).mode & 0o777).toBe(0o600);
    // the second run reuses it
    const again = home.run(['keys', 'list', '-o', 'json']);
    expect(again.stderr).toBe('');
    expect(again.json()).toHaveLength(1);
  });

  it('-o jsonl prints one record per line; -o table a table', () => {
    home.run(['keys', 'create', '--name', 'second']);
    const l = home.run(['keys', 'list', '-o', 'jsonl']);
    const lines = l.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(JSON.parse(line).public_key).toMatch(/^pk_test_/);
    const t = home.run(['keys', 'list', '-o', 'table'], { env: { COLUMNS: '120' } }); // public_key needs more than 80 columns next to the id
    expect(t.stdout).toContain('public_key');
    expect(t.stdout).toContain('┌');
    expect(t.stdout).not.toContain('\u001b['); // NO_COLOR
  });

  it('exit codes: 2 usage, 4 not found, 1 refused, 3 auth', () => {
    expect(home.run(['keys', 'create', '--nmae', 'x']).code).toBe(2);
    expect(home.run(['nope']).code).toBe(2);
    expect(home.run(['keys', 'list', '--per-page', 'lots']).code).toBe(2);
    const nf = home.run(['keys', 'revoke', '00000000-0000-4000-8000-000000000000', '--yes']);
    expect(nf.code).toBe(4);
    expect(nf.stderr).toContain('not found');
    // the contract's ranges are checked before any request: a usage error
    const bad = home.run(['keys', 'create', '--name', '']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--name');
    const refused = home.run(['keys', 'create', '--name', 'x', '--allowed-ips', 'not-an-ip']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('allowed_ips');
    const auth = home.run(['keys', 'list'], { env: { MPAY_PUBLIC_KEY: 'pk_test_x', MPAY_SECRET_KEY: 'sk_test_y' } });
    expect(auth.code).toBe(3);
    expect(auth.stderr).toContain('warning: MPAY_PUBLIC_KEY overrides');
  });

  it('a destructive verb needs --yes when it cannot prompt, and changes nothing without it', () => {
    const created = home.run(['keys', 'create', '--name', 'temp']).json();
    const r = home.run(['keys', 'revoke', created.id]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--yes');
    const still = home.run(['keys', 'list']).json().find((k: any) => k.id === created.id);
    expect(still.is_active).toBe(true);
    expect(home.run(['keys', 'revoke', created.id, '--yes']).code).toBe(0);
  });

  it('--input takes a JSON body, flags win over it; bad input files are usage errors', () => {
    const f = join(home.dir, 'key.json');
    writeFileSync(f, JSON.stringify({ name: 'from-file', allowed_ips: ['127.0.0.1'] }));
    const r = home.run(['keys', 'create', '--input', f, '--name', 'from-flag']);
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ name: 'from-flag', allowed_ips: ['127.0.0.1'] });
    const s = home.run(['keys', 'create', '--input', '-'], { input: '{"name":"from-stdin"}' });
    expect(s.json().name).toBe('from-stdin');
    writeFileSync(f, '{not json');
    const bad = home.run(['keys', 'create', '--input', f]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('not valid JSON');
    expect(home.run(['keys', 'create', '--input', join(home.dir, 'missing.json')]).code).toBe(2);
  });

  it('tokens create tokenizes; a bad card is refused naming the field', () => {
    const ok = home.run(['tokens', 'create', '--card.number', '6362970000457013', '--card.holder-name', 'Ana', '--card.expiration-month', '12', '--card.expiration-year', '2031', '--card.cvv', '123']);
    expect(ok.code).toBe(0);
    expect(ok.json()).toMatchObject({ brand: 'elo', lastFourDigits: '7013' });
    const bad = home.run(['tokens', 'create', '--card.number', '4111111111111112', '--card.holder-name', 'Ana', '--card.expiration-month', '12', '--card.expiration-year', '2031', '--card.cvv', '123']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('card.number');
    expect(bad.stderr).not.toContain('at ');
  });

  it('mpay api prints the whole envelope and exits by status', () => {
    const r = home.run(['api', 'GET', '/v1/merchant']);
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ success: true, data: { mode: 'sandbox' } });
    const p = home.run(['api', 'POST', '/v1/api-keys', '-f', 'name=raw']);
    expect(p.json().data.name).toBe('raw');
    const nf = home.run(['api', 'GET', '/v1/nothing']);
    expect(nf.code).toBe(4);
    expect(nf.json()).toMatchObject({ success: false, error: 'not_found' });
    expect(home.run(['api', 'FETCH', '/v1/merchant']).code).toBe(2);
  });

  it('a broken config file is a usage error naming the file', () => {
    const other = cliHome();
    mkdirSync(other.env.MPAY_CONFIG_DIR!, { recursive: true });
    writeFileSync(join(other.env.MPAY_CONFIG_DIR!, 'config.json'), '{"profiles": {"x": {"colour": "red"}}}');
    const r = other.run(['keys', 'list']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown field "colour"');
    other.cleanup();
  });

  it('several processes bootstrapping one fresh data dir at once all succeed on one merchant', async () => {
    const fresh = cliHome();
    const results = await Promise.all(Array.from({ length: 4 }, () => fresh.runAsync(['api', 'GET', '/v1/merchant'])));
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    expect(new Set(results.map((r) => r.json().data.id)).size).toBe(1);
    fresh.cleanup();
  });

  it('admin merchants create prints the new credentials', () => {
    const r = home.run(['admin', 'merchants', 'create', '--name', 'Loja da Ana', '--json']);
    expect(r.code).toBe(0);
    expect(r.json()).toEqual({
      merchant_id: expect.any(String),
      wallet_id: expect.any(String),
      public_key: expect.stringMatching(/^pk_test_/),
      secret_key: expect.stringMatching(/^sk_test_/),
    });
  });
});

describe('mpay server start and remote use', () => {
  let server: Awaited<ReturnType<typeof home.startServer>>;
  let creds: { public_key: string; secret_key: string };
  beforeAll(async () => {
    creds = home.run(['admin', 'merchants', 'create', '--name', 'Remote', '--json']).json();
    server = await home.startServer();
  });
  afterAll(() => {
    server.child.kill('SIGTERM');
  });

  it('serves the API; --base-url talks to it with environment keys', () => {
    const env = { MPAY_PUBLIC_KEY: creds.public_key, MPAY_SECRET_KEY: creds.secret_key };
    const r = home.run(['--base-url', server.url, 'api', 'GET', '/v1/merchant'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().data.name).toBe('Remote');
    const list = home.run(['keys', 'list', '--base-url', server.url], { env });
    expect(list.code).toBe(0);
    expect(list.json()[0].public_key).toBe(creds.public_key);
  });

  it('profiles add reads the secret from stdin; show masks it; use makes it active', () => {
    const add = home.run(['profiles', 'add', 'remote', '--base-url', server.url, '--public-key', creds.public_key], { input: creds.secret_key + '\n' });
    expect(add.code, add.stderr).toBe(0);
    const show = home.run(['profiles', 'show', 'remote']);
    expect(show.stdout).not.toContain(creds.secret_key);
    expect(show.json().secret_key).toMatch(/…/);
    expect(home.run(['profiles', 'use', 'remote']).code).toBe(0);
    const r = home.run(['api', 'GET', '/v1/merchant']);
    expect(r.json().data.name).toBe('Remote');
    const listed = home.run(['profiles', 'list']).json();
    expect(listed.find((p: any) => p.name === 'remote').active).toBe(true);
    expect(home.run(['profiles', 'remove', 'remote']).code).toBe(2);
    expect(home.run(['profiles', 'remove', 'remote', '--yes']).code).toBe(0);
    expect(home.run(['profiles', 'show', 'remote']).code).toBe(4);
  });

  it('mpay api --auth none needs no keys', () => {
    const env = { MPAY_PUBLIC_KEY: '', MPAY_SECRET_KEY: '' };
    const h = home.run(['--base-url', server.url, 'api', 'GET', '/healthz', '--auth', 'none'], { env });
    expect(h.code, h.stderr).toBe(0);
    expect(h.json()).toMatchObject({ success: true, data: { status: 'ok' } });
    // a route that needs keys answers 401 itself (exit 3), not a local "no API keys" usage error
    const m = home.run(['--base-url', server.url, 'api', 'GET', '/v1/merchant', '--auth', 'none'], { env });
    expect(m.code).toBe(3);
    expect(m.json()).toMatchObject({ success: false, error: 'unauthorized' });
    // with keys configured, --auth none still sends none
    const withKeys = home.run(['--base-url', server.url, 'api', 'GET', '/v1/merchant', '--auth', 'none'], { env: { MPAY_PUBLIC_KEY: creds.public_key, MPAY_SECRET_KEY: creds.secret_key } });
    expect(withKeys.code).toBe(3);
  });

  it('an unreachable base URL exits 5', () => {
    const r = home.run(['--base-url', 'http://127.0.0.1:1', 'keys', 'list'], { env: { MPAY_PUBLIC_KEY: 'pk_test_a', MPAY_SECRET_KEY: 'sk_test_b' } });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('error: could not reach http://127.0.0.1:1: connect ECONNREFUSED 127.0.0.1:1');
    expect(r.stderr.match(/ECONNREFUSED/g)).toHaveLength(1);
  });

  it('--rate-limit configures the per-key limit; a bad value is a usage error', async () => {
    const s = await home.startServer(['--rate-limit', '1,2']);
    // the burst goes over HTTP from here: CLI processes start too slowly on a busy machine
    const authorization = 'Basic ' + Buffer.from(`${creds.public_key}:${creds.secret_key}`).toString('base64');
    const res = await Promise.all([0, 1, 2].map(() => fetch(`${s.url}/v1/merchant`, { headers: { authorization } })));
    expect(res.map((r) => r.status).sort()).toEqual([200, 200, 429]);
    const limited = res.find((r) => r.status === 429)!;
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await limited.json()).toMatchObject({ error: 'rate_limited' });
    s.child.kill('SIGTERM');
    await s.exited;
    const bad = home.run(['server', 'start', '--port', '0', '--rate-limit', 'fast']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--rate-limit must be RPS[,BURST]');
  });

  it('--no-read-memo and MPAY_READ_MEMO=off turn the charge read memo off (said at start), with the same answers; another MPAY_READ_MEMO is a usage error', async () => {
    const authorization = 'Basic ' + Buffer.from(`${creds.public_key}:${creds.secret_key}`).toString('base64');
    const bodies: string[] = [];
    const cases = [
      [[], {}, false],
      [['--no-read-memo'], {}, true],
      [[], { MPAY_READ_MEMO: 'off' }, true],
      [[], { MPAY_READ_MEMO: 'on' }, false],
    ] as const;
    for (const [args, env, off] of cases) {
      const s = await home.startServer([...args], { env: { ...env } });
      const res = await fetch(`${s.url}/v1/charges?per_page=5`, { headers: { authorization } });
      expect(res.status).toBe(200);
      bodies.push(await res.text());
      s.child.kill('SIGTERM');
      await s.exited;
      expect(s.stderr().includes('charge read memo off'), `${args.join(' ')} ${JSON.stringify(env)}`).toBe(off);
    }
    expect(new Set(bodies).size).toBe(1);
    for (const args of [[], ['--no-read-memo']]) {
      const bad = home.run(['server', 'start', '--port', '0', ...args], { env: { MPAY_READ_MEMO: 'sometimes' } });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain("MPAY_READ_MEMO must be on or off, got 'sometimes'");
    }
  });

  it('--check-responses and MPAY_CHECK_RESPONSES=on check answers against the contract (said at start); another value is a usage error', async () => {
    const authorization = 'Basic ' + Buffer.from(`${creds.public_key}:${creds.secret_key}`).toString('base64');
    const cases = [
      [[], {}, false],
      [['--check-responses'], {}, true],
      [[], { MPAY_CHECK_RESPONSES: 'on' }, true],
      [[], { MPAY_CHECK_RESPONSES: 'off' }, false],
    ] as const;
    for (const [args, env, on] of cases) {
      const s = await home.startServer([...args], { env: { ...env } });
      for (const path of ['/v1/charges?per_page=5', '/v1/merchant', '/v1/wallets']) {
        const res = await fetch(`${s.url}${path}`, { headers: { authorization } });
        expect(res.status, `${path} ${await res.clone().text()}`).toBe(200);
      }
      s.child.kill('SIGTERM');
      await s.exited;
      expect(s.stderr().includes('answers checked against the contract'), `${args.join(' ')} ${JSON.stringify(env)}`).toBe(on);
    }
    const bad = home.run(['server', 'start', '--port', '0'], { env: { MPAY_CHECK_RESPONSES: 'always' } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("MPAY_CHECK_RESPONSES must be on or off, got 'always'");
  });

  it('stops cleanly on SIGTERM', async () => {
    const s = await home.startServer();
    s.child.kill('SIGTERM');
    expect(await s.exited).toBe(0);
    expect(s.stderr()).toContain('SIGTERM: stopping');
  });

  it('logs one JSON line per request on stderr, with no credentials', async () => {
    const env = { MPAY_PUBLIC_KEY: creds.public_key, MPAY_SECRET_KEY: creds.secret_key };
    home.run(['--base-url', server.url, 'api', 'GET', '/v1/merchant'], { env });
    await new Promise((r) => setTimeout(r, 100));
    const lines = server.stderr().split('\n').filter((l) => l.startsWith('{'));
    const entry = lines.map((l) => JSON.parse(l)).find((e) => e.path === '/v1/merchant');
    expect(entry).toMatchObject({ level: 'info', method: 'GET', status: 200 });
    expect(server.stderr()).not.toContain(creds.secret_key);
  });
});
