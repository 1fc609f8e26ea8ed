import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cliHome } from '../helpers/cli.js';
import { STEP_NAMES, junitXml, randomCpf, tinyPng, xmlEscape, type SmokeSummary } from '../../src/cli/commands/smoke/run.js';
import { isValidCpf } from '../../src/domain/taxid.js';
import { sniff } from '../../src/domain/files.js';

const homes: ReturnType<typeof cliHome>[] = [];
const newHome = () => {
  const h = cliHome();
  homes.push(h);
  return h;
};
afterAll(() => homes.forEach((h) => h.cleanup()));

/** The <testcase> elements of a JUnit report, with what they hold. */
function testcases(xml: string) {
  return [...xml.matchAll(/<testcase classname="mpay\.smoke" name="([^"]*)" time="([\d.]+)"(\/>|>([\s\S]*?)<\/testcase>)/g)].map((m) => ({
    name: m[1],
    time: Number(m[2]),
    body: m[4] ?? '',
  }));
}

describe('smoke building blocks', () => {
  it('random CPFs are valid and vary', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const c = randomCpf();
      expect(isValidCpf(c), c).toBe(true);
      seen.add(c);
    }
    expect(seen.size).toBeGreaterThan(190);
  });

  it('the in-memory PNG is a PNG to the upload sniffer', () => {
    expect(sniff(tinyPng())).toBe('png');
  });

  it('XML escaping covers the five entities and drops characters XML cannot carry', () => {
    expect(xmlEscape(`a<b>&"c'`)).toBe('a&lt;b&gt;&amp;&quot;c&apos;');
    expect(xmlEscape('bell\u0007 nul\u0000 tab\tok é 🎉')).toBe('bell nul tab\tok é 🎉');
  });

  it('a failed step becomes a <failure> with the service message; later steps are skipped', () => {
    const s: SmokeSummary = {
      ok: false,
      target: 'http://x',
      mode: 'sandbox',
      started_at: '2026-01-01T00:00:00.000Z',
      duration_ms: 1234,
      failed_step: 'card charge',
      steps: [
        { name: 'key check', status: 'passed', duration_ms: 5, detail: 'ok <fine>' },
        { name: 'card charge', status: 'failed', duration_ms: 7, error: { message: 'amount: must be "positive" & <= 10', code: 'validation_error', status: 400, request_id: 'r-1' } },
        { name: 'pix charge', status: 'not_run', duration_ms: 0 },
        { name: 'pix payment', status: 'skipped', duration_ms: 0, detail: "the target's mode" },
      ],
      created: [],
    };
    const xml = junitXml(s);
    expect(xml).toContain('tests="4" failures="1" errors="0" skipped="2" time="1.234"');
    expect(xml).toContain('<failure message="amount: must be &quot;positive&quot; &amp; &lt;= 10" type="validation_error">');
    expect(xml).toContain('HTTP status: 400');
    expect(xml).toContain('request id: r-1');
    expect(xml).toContain('<skipped message="not run: an earlier step failed"/>');
    expect(xml).toContain('<skipped message="the target&apos;s mode"/>');
    expect(xml).toContain('<system-out>ok &lt;fine&gt;</system-out>');
    expect(testcases(xml).map((t) => t.name)).toEqual(['key check', 'card charge', 'pix charge', 'pix payment']);
    // well-formed: every opened element is closed (no stray & or <)
    expect(xml.replace(/&(amp|lt|gt|quot|apos);/g, '')).not.toMatch(/&/);
  });
});

function expectAllPassed(summary: SmokeSummary, stderr: string) {
  expect(summary.ok, stderr).toBe(true);
  expect(summary.steps.map((s) => s.name)).toEqual([...STEP_NAMES]);
  for (const s of summary.steps) expect(s.status, `${s.name}: ${s.detail ?? ''} ${stderr}`).toBe('passed');
  for (const name of STEP_NAMES) expect(stderr).toMatch(new RegExp(`✓ ${name}  \\d+ ms`));
  const by = (kind: string) => summary.created.filter((c) => c.kind === kind);
  expect(by('webhook_endpoint')).toEqual([{ kind: 'webhook_endpoint', id: expect.any(String), cleanup: 'deleted' }]);
  expect(by('api_key')).toEqual([{ kind: 'api_key', id: expect.any(String), cleanup: 'revoked' }]);
  expect(by('payment_link')).toEqual([{ kind: 'payment_link', id: expect.any(String), cleanup: 'deactivated' }]);
  expect(by('charge')).toHaveLength(2);
  for (const kind of ['submerchant', 'charge', 'withdrawal', 'recipient', 'document']) {
    for (const c of by(kind)) {
      expect(c.cleanup).toBe('kept');
      expect(stderr).toContain(`${kind} ${c.id}`); // said what it left
    }
  }
}

describe('mpay smoke on the embedded sandbox', () => {
  it('passes every step, writes JUnit, and leaves only what cannot be deleted', async () => {
    const home = newHome();
    const junit = join(home.dir, 'smoke.xml');
    const r = await home.runAsync(['smoke', '--junit', junit]);
    expect(r.code, r.stderr).toBe(0);
    const summary = r.json() as SmokeSummary;
    expectAllPassed(summary, r.stderr);
    expect(summary.mode).toBe('sandbox');
    const cases = testcases(readFileSync(junit, 'utf8'));
    expect(cases.map((c) => c.name)).toEqual([...STEP_NAMES]);
    expect(cases.every((c) => !c.body.includes('<failure') && !c.body.includes('<skipped'))).toBe(true);

    // cleanup really happened on the service
    expect(home.run(['webhooks', 'list']).json()).toEqual([]);
    const keys = home.run(['keys', 'list']).json() as { id: string; is_active: boolean }[];
    expect(keys.find((k) => k.id === summary.created.find((c) => c.kind === 'api_key')!.id)?.is_active).toBe(false);
    const link = summary.created.find((c) => c.kind === 'payment_link')!;
    expect(home.run(['links', 'get', link.id]).json().status).toBe('inactive');
    const w = summary.created.find((c) => c.kind === 'withdrawal')!;
    expect(home.run(['withdrawals', 'get', w.id]).json().status).toBe('completed');

    // a second run on the same data dir works too (fresh CPF, clock already ahead)
    const again = await home.runAsync(['smoke', '-q']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toBe('');
    expect((again.json() as SmokeSummary).ok).toBe(true);
  }, 60_000);

  it('an unreachable target fails the key check with exit 5 and a JUnit failure', async () => {
    const home = newHome();
    const junit = join(home.dir, 'unreachable.xml');
    const r = await home.runAsync(['--base-url', 'http://127.0.0.1:9', 'smoke', '--junit', junit], { env: { MPAY_PUBLIC_KEY: 'pk_test_x', MPAY_SECRET_KEY: 'sk_test_y' } });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/✗ key check/);
    expect(r.stderr).toMatch(/error: smoke failed at step "key check": /);
    const s = r.json() as SmokeSummary;
    expect(s).toMatchObject({ ok: false, failed_step: 'key check' });
    expect(s.steps.slice(1).every((x) => x.status === 'not_run')).toBe(true);
    const cases = testcases(readFileSync(junit, 'utf8'));
    expect(cases[0]!.body).toContain('<failure message=');
    expect(cases.slice(1).every((c) => c.body.includes('not run: an earlier step failed'))).toBe(true);
  }, 30_000);

  it('a --junit path that cannot be written is refused before any step runs (exit 2)', async () => {
    const home = newHome();
    for (const [path, why] of [
      [join(home.dir, 'no', 'such', 'dir', 'x.xml'), 'ENOENT'],
      [home.dir, 'EISDIR'],
    ]) {
      const r = await home.runAsync(['smoke', '--junit', path!, '-o', 'json']);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(JSON.parse(r.stderr)).toMatchObject({ error: 'usage_error', message: `--junit: cannot write ${path}: ${why}` });
    }
    // nothing ran: no sandbox was opened, so none was made
    expect(existsSync(home.dataDir)).toBe(false);
  }, 30_000);

  it('Ctrl-C stops the run and still cleans up (exit 130)', async () => {
    const home = newHome();
    home.run(['merchant', 'get']);
    const child = spawn(process.execPath, [BIN, 'smoke', '-o', 'json'], { env: home.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    const exited = new Promise<number>((r) => child.on('close', (c) => r(c ?? -1)));
    await new Promise<void>((r) =>
      child.stderr.on('data', (d) => {
        err += d;
        if (err.includes('✓ webhook endpoint')) r();
      }),
    );
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(err).toMatch(/SIGINT: stopping/);
    // -o json: the error is one JSON object on stderr
    expect(JSON.parse(err.trimEnd().split('\n').pop()!)).toMatchObject({ error: 'interrupted', message: expect.stringMatching(/^smoke failed at step "[^"]+": interrupted by SIGINT$/) });
    expect(err).toMatch(/cleanup: webhook endpoint \S+ deleted/);
    expect(err).toMatch(/cleanup: api key \S+ revoked/);
    const s = JSON.parse(out) as SmokeSummary;
    expect(s.ok).toBe(false);
    expect(s.created.find((c) => c.kind === 'webhook_endpoint')?.cleanup).toBe('deleted');
    expect(home.run(['webhooks', 'list']).json()).toEqual([]);
  }, 60_000);

  it('usage errors exit 2', () => {
    const home = newHome();
    expect(home.run(['smoke', '--timeout', 'soon']).code).toBe(2);
    expect(home.run(['smoke', '--webhook-url', 'ftp://x']).code).toBe(2);
    expect(home.run(['smoke', '--webhook-port', '70000']).code).toBe(2);
    const h = home.run(['smoke', '--help']);
    expect(h.code).toBe(0);
    expect(h.stdout).toContain('Examples:');
  });
});

describe('mpay smoke against mpay server start', () => {
  it('passes every step over HTTP, the server delivering the webhook', async () => {
    const home = newHome();
    const server = await home.startServer();
    try {
      const creds = home.run(['admin', 'merchants', 'create', '--name', 'Smoke', '--json']).json();
      const env = { MPAY_PUBLIC_KEY: creds.public_key, MPAY_SECRET_KEY: creds.secret_key };
      const junit = join(home.dir, 'server.xml');
      // a remote target's clock is not moved unless --allow-clock says so
      const clockBefore = home.run(['--base-url', server.url, 'merchant', 'get'], { env }).json().clock as string;
      const noClock = await home.runAsync(['--base-url', server.url, 'smoke'], { env });
      expect(noClock.code, noClock.stderr).toBe(0);
      const skipped = (noClock.json() as SmokeSummary).steps.find((x) => x.name === 'clock advance')!;
      expect(skipped).toMatchObject({ status: 'skipped', detail: expect.stringContaining('--allow-clock') });
      expect(noClock.stderr).toMatch(/- clock advance {2}skipped: .*--allow-clock/);
      const clockAfter = home.run(['--base-url', server.url, 'merchant', 'get'], { env }).json().clock as string;
      expect(Math.abs(Date.parse(clockAfter) - Date.parse(clockBefore))).toBeLessThan(86_400_000);
      // the local webhook receiver's address is printed (a firewall or tunnel needs the port)
      expect(noClock.stderr).toMatch(/✓ webhook endpoint .*receiver on 127\.0\.0\.1:\d+/);

      const r = await home.runAsync(['--base-url', server.url, 'smoke', '--allow-clock', '--junit', junit], { env });
      expect(r.code, r.stderr).toBe(0);
      const summary = r.json() as SmokeSummary;
      expect(summary.target).toBe(server.url);
      expectAllPassed(summary, r.stderr);
      expect(home.run(['--base-url', server.url, 'webhooks', 'list'], { env }).json()).toEqual([]);

      // wrong keys: exit 3 at the key check, with the service's message
      const bad = await home.runAsync(['--base-url', server.url, 'smoke'], { env: { MPAY_PUBLIC_KEY: creds.public_key, MPAY_SECRET_KEY: 'sk_test_wrong' } });
      expect(bad.code).toBe(3);
      expect(bad.stderr).toMatch(/error: smoke failed at step "key check": .*HTTP 401/);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  }, 60_000);

  it('on a production server the sandbox-only steps and the loopback webhook are skipped, with the reason', async () => {
    const home = newHome();
    const env = { MPAY_MASTER_KEY: Buffer.alloc(32, 7).toString('base64') };
    const server = await home.startServer(['--production'], { env });
    try {
      const creds = home.run(['admin', 'merchants', 'create', '--name', 'Prod', '--production', '--json'], { env }).json();
      const r = await home.runAsync(['--base-url', server.url, 'smoke', '--junit', join(home.dir, 'prod.xml')], {
        env: { MPAY_PUBLIC_KEY: creds.public_key, MPAY_SECRET_KEY: creds.secret_key },
      });
      expect(r.code, r.stderr).toBe(0);
      const s = r.json() as SmokeSummary;
      expect(s.mode).toBe('production');
      const status = Object.fromEntries(s.steps.map((x) => [x.name, x.status]));
      expect(status).toMatchObject({
        'key check': 'passed',
        'card charge': 'skipped',
        'pix charge': 'passed',
        'pix payment': 'skipped',
        'clock advance': 'skipped',
        'webhook endpoint': 'skipped',
        'webhook delivery': 'skipped',
        withdrawal: 'skipped',
      });
      expect(r.stderr).toMatch(/- pix payment {2}skipped: .*production mode/);
      expect(r.stderr).toMatch(/- card charge {2}skipped: .*no card acquirer/);
      expect(r.stderr).toMatch(/- webhook endpoint {2}skipped: .*--webhook-url/);
      const xml = readFileSync(join(home.dir, 'prod.xml'), 'utf8');
      expect(testcases(xml).find((c) => c.name === 'clock advance')!.body).toContain('<skipped message=');
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  }, 60_000);
});
