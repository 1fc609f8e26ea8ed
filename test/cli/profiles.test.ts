// Profiles that are checked: `profiles add` verifies the keys against the
// target, makes a profile that would otherwise never be used the active one, and `whoami`
// says who and where mpay is talking to.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cliHome } from '../helpers/cli.js';

const home = cliHome();
let server: Awaited<ReturnType<typeof home.startServer>>;
let creds: { public_key: string; secret_key: string };
beforeAll(async () => {
  creds = home.run(['admin', 'merchants', 'create', '--name', 'Loja Remota', '--json']).json();
  server = await home.startServer();
}, 30_000);
afterAll(async () => {
  server.child.kill('SIGTERM');
  await server.exited;
  home.cleanup();
});

const names = () => (home.run(['profiles', 'list', '-o', 'json']).json() as { name: string }[]).map((p) => p.name).sort();

describe('profiles add verifies the keys', () => {
  it('a wrong secret is refused (exit 3) and nothing is saved', () => {
    const r = home.run(['profiles', 'add', 'bogus', '--base-url', server.url, '--public-key', creds.public_key], { input: 'sk_test_wrong\n' });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/profile "bogus" not saved/);
    expect(home.run(['profiles', 'show', 'bogus']).code).toBe(4);
  });

  it('an unreachable URL is refused (exit 5) and nothing is saved; --no-verify saves it anyway', () => {
    const r = home.run(['profiles', 'add', 'away', '--base-url', 'http://127.0.0.1:9', '--public-key', creds.public_key], { input: creds.secret_key });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/could not reach/);
    expect(home.run(['profiles', 'show', 'away']).code).toBe(4);
    const skip = home.run(['profiles', 'add', 'away', '--base-url', 'http://127.0.0.1:9', '--public-key', creds.public_key, '--no-verify'], { input: creds.secret_key });
    expect(skip.code, skip.stderr).toBe(0);
    expect(home.run(['profiles', 'show', 'away']).code).toBe(0);
    expect(home.run(['profiles', 'remove', 'away', '--yes']).code).toBe(0);
  });

  it('the first profile becomes the active one: the next command uses it, no embedded profile appears', () => {
    const r = home.run(['profiles', 'add', 'remote', '--base-url', server.url, '--public-key', creds.public_key], { input: creds.secret_key });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/Verified: Loja Remota/);
    expect(r.stderr).toMatch(/"remote" is now the active profile/);
    const m = home.run(['merchant', 'get']);
    expect(m.code, m.stderr).toBe(0);
    expect(m.json().name).toBe('Loja Remota');
    expect(m.stderr).not.toMatch(/Created sandbox credentials/);
    expect(names()).toEqual(['remote']);
  });

  it('a later profile is not made active unless --default', () => {
    const a = home.run(['profiles', 'add', 'second', '--base-url', server.url, '--public-key', creds.public_key], { input: creds.secret_key });
    expect(a.code, a.stderr).toBe(0);
    expect(a.stderr).toMatch(/mpay profiles use second/);
    expect(home.run(['profiles', 'show', '-o', 'json']).json().name).toBe('remote');
    const b = home.run(['profiles', 'add', 'second', '--base-url', server.url, '--public-key', creds.public_key, '--default'], { input: creds.secret_key });
    expect(b.code, b.stderr).toBe(0);
    expect(home.run(['profiles', 'show', '-o', 'json']).json().name).toBe('second');
  });

  it('with profiles but none active, a command says so instead of creating an embedded profile', () => {
    expect(home.run(['profiles', 'remove', 'second', '--yes']).code).toBe(0);
    const r = home.run(['keys', 'list']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no active profile.*mpay profiles use remote/);
    expect(names()).toEqual(['remote']);
    // asking for the embedded sandbox by name still creates it
    const e = home.run(['--profile', 'default', 'keys', 'list']);
    expect(e.code, e.stderr).toBe(0);
    expect(names()).toEqual(['default', 'remote']);
    expect(home.run(['profiles', 'use', 'remote']).code).toBe(0);
  });
});

describe('an active profile the config file names but does not hold', () => {
  it('is refused like --profile with an unknown name, and no profile is made under that name', () => {
    const fresh = cliHome();
    try {
      mkdirSync(fresh.env.MPAY_CONFIG_DIR!, { recursive: true });
      const file = join(fresh.env.MPAY_CONFIG_DIR!, 'config.json');
      const text = JSON.stringify({ current: 'staging', profiles: {} });
      writeFileSync(file, text);
      const r = fresh.run(['keys', 'list']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`the active profile "staging" (current in ${file}) does not exist`);
      expect(r.stderr).toContain('`mpay profiles use NAME` (default: the embedded sandbox)');
      expect(readFileSync(file, 'utf8')).toBe(text);
      // the list says so too (on stderr; the list itself is unchanged, and nothing is marked active)
      const list = fresh.run(['profiles', 'list', '-o', 'json']);
      expect(list.code, list.stderr).toBe(0);
      expect(JSON.parse(list.stdout)).toEqual([]);
      expect(list.stderr).toContain(`warning: the active profile "staging" (current in ${file}) does not exist`);
      // --profile or MPAY_PROFILE naming none: the list says so as well
      for (const [args, env] of [
        [['--profile', 'nope', 'profiles', 'list', '-o', 'json'], {}],
        [['profiles', 'list', '-o', 'json'], { MPAY_PROFILE: 'nope' }],
      ] as const) {
        const named = fresh.run([...args], { env });
        expect(named.code, named.stderr).toBe(0);
        expect(named.stderr).toBe('warning: profile "nope" does not exist; see the list\n');
      }
      // choosing the embedded sandbox's profile before its first use is what the message says to do
      const use = fresh.run(['profiles', 'use', 'default']);
      expect(use.code, use.stderr).toBe(0);
      const after = fresh.run(['keys', 'list', '-o', 'json']);
      expect(after.code, after.stderr).toBe(0);
      expect(after.stderr).toContain('Created sandbox credentials in profile "default"');
      // any other missing name is still not found
      expect(fresh.run(['profiles', 'use', 'nope']).code).toBe(4);
    } finally {
      fresh.cleanup();
    }
  });
});

describe('the message for a missing active profile', () => {
  it('names the other profiles once, the embedded one as default', () => {
    const fresh = cliHome();
    try {
      mkdirSync(fresh.env.MPAY_CONFIG_DIR!, { recursive: true });
      writeFileSync(join(fresh.env.MPAY_CONFIG_DIR!, 'config.json'), JSON.stringify({ current: 'staging', profiles: { default: {}, remote: { base_url: 'http://127.0.0.1:9' } } }));
      const r = fresh.run(['keys', 'list']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('`mpay profiles use NAME` (remote, or default: the embedded sandbox) or --profile NAME');
    } finally {
      fresh.cleanup();
    }
  });
});

describe('mpay whoami', () => {
  it('names the merchant, the key, the target and the clock (remote)', () => {
    const r = home.run(['whoami', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const w = r.json();
    expect(w).toMatchObject({
      profile: 'remote',
      target: server.url,
      merchant: { name: 'Loja Remota', mode: 'sandbox' },
      key: { public_key: creds.public_key, name: expect.any(String) },
    });
    expect(Math.abs(Date.parse(w.clock) - Date.now())).toBeLessThan(60_000);
    expect(w.clock_offset_days).toBe(0);
    expect(JSON.stringify(w)).not.toContain(creds.secret_key);
  });

  it('on the embedded sandbox, after a clock move', () => {
    expect(home.run(['--profile', 'default', 'sandbox', 'advance', '--days', '3']).code).toBe(0);
    const w = home.run(['--profile', 'default', 'whoami', '-o', 'json']).json();
    expect(w.target).toMatch(/^embedded:/);
    expect(w.profile).toBe('default');
    expect(w.clock_offset_days).toBe(3);
    const t = home.run(['--profile', 'default', 'whoami', '-o', 'table']);
    expect(t.stdout).toMatch(/merchant/);
    expect(t.stdout).toMatch(/clock/);
  });

  it('bad keys: exit 3', () => {
    const r = home.run(['whoami'], { env: { MPAY_SECRET_KEY: 'sk_test_nope', MPAY_PUBLIC_KEY: creds.public_key } });
    expect(r.code).toBe(3);
  });
});

describe('profiles add on a terminal (tmux)', () => {
  it.runIf(spawnSync('sh', ['-c', 'command -v tmux']).status === 0)('asks the keys, verifies them, then offers to make the profile the default', async () => {
    const sock = join(home.dir, 'tmux.sock');
    const env = { ...home.env, TERM: 'xterm-256color', LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' };
    const tmux = (...args: string[]) => spawnSync('tmux', ['-u', '-S', sock, ...args], { encoding: 'utf8', env });
    const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
    const vars = Object.entries(env)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}=${q(v!)}`)
      .join(' ');
    const cmd = `env ${vars} ${q(process.execPath)} ${q(BIN)} profiles add term --base-url ${server.url}; echo "EXIT=$?"; sleep 600`;
    expect(tmux('new-session', '-d', '-s', 'pa', '-x', '120', '-y', '30', cmd).status).toBe(0);
    const screen = () => tmux('capture-pane', '-p', '-t', 'pa').stdout;
    const waitFor = async (what: string | RegExp) => {
      const until = Date.now() + 20_000;
      for (;;) {
        const s = screen();
        if (typeof what === 'string' ? s.includes(what) : what.test(s)) return s;
        if (Date.now() > until) throw new Error(`the terminal never showed ${String(what)}; it shows:\n${s}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    try {
      await waitFor('Public key');
      tmux('send-keys', '-t', 'pa', '-l', creds.public_key);
      tmux('send-keys', '-t', 'pa', 'Enter');
      await waitFor('Secret key');
      tmux('send-keys', '-t', 'pa', '-l', creds.secret_key);
      tmux('send-keys', '-t', 'pa', 'Enter');
      const asked = await waitFor('Make "term" the default profile?');
      expect(asked).toMatch(/Verified: Loja Remota/);
      expect(asked).not.toContain(creds.secret_key);
      tmux('send-keys', '-t', 'pa', 'Enter'); // the default answer: yes
      const end = await waitFor(/EXIT=\d+/);
      expect(end).toContain('EXIT=0');
      expect(end).toContain('"term" is now the active profile');
    } finally {
      tmux('kill-server');
    }
    expect(home.run(['profiles', 'show', '-o', 'json']).json().name).toBe('term');
  }, 40_000);
});
