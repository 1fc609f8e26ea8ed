import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cliHome } from '../helpers/cli.js';
import { hasTmux, tmuxMpay } from '../helpers/tmux.js';

/** Cancelling is one code: Ctrl-C exits 130 everywhere; "no" to a confirmation exits 1 (`cancelled`). */
const home = cliHome();
afterAll(() => home.cleanup());

/** Spawns mpay, waits until stderr shows `ready`, sends SIGINT, resolves with the exit code. */
function interruptWhen(args: string[], ready: RegExp): Promise<{ code: number | null; signal: string | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: home.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let sent = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`never ready: ${stderr}`));
    }, 30_000);
    child.stdout.resume();
    child.stderr.on('data', (d) => {
      stderr += d;
      if (!sent && ready.test(stderr)) {
        sent = true;
        child.kill('SIGINT');
      }
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stderr });
    });
  });
}

const pixCharge = ['charges', 'create', '--amount', '1500', '--product-type', 'digital', '--payment-method', 'pix', '--customer.name', 'Ana Souza', '--customer.email', 'ana@example.com',
  '--customer.tax-id', '52998224725', '--customer.phone', '11999990000', '--customer.type', 'individual', '--items', '[{"name":"Curso","quantity":1,"unit_price":1500,"tangible":false}]'];

describe('Ctrl-C exits 130', () => {
  it('a waiting command (charges create --wait)', async () => {
    expect(home.run(['merchant', 'get']).code).toBe(0);
    const r = await interruptWhen([...pixCharge, '--wait'], /waiting for/);
    expect(r.code).toBe(130);
    expect(r.stderr).not.toMatch(/at .*\(/);
  });

  it('webhooks listen (SIGINT) removes its endpoint and exits 130', async () => {
    const r = await interruptWhen(['webhooks', 'listen', '--events', 'charge.captured'], /Listening on/);
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/SIGINT: endpoint \S+ removed/);
    expect(home.run(['webhooks', 'list', '-o', 'json']).json()).toEqual([]);
  });

  it('server start (SIGINT) stops cleanly and exits 130', async () => {
    const r = await interruptWhen(['server', 'start', '--port', '0'], /Ctrl-C to stop/);
    expect(r.code).toBe(130);
    expect(r.stderr).toContain('SIGINT: stopping');
  });

  describe.runIf(hasTmux)('on a terminal', () => {
    it('the onboarding wizard', async () => {
      const t = tmuxMpay(home.dir, home.env, ['submerchants', 'onboard'], { name: 'onb' });
      try {
        await t.waitFor(/\?/);
        t.keys('C-c');
        expect(await t.exitCode()).toBe(130);
      } finally {
        t.kill();
      }
    });

    it('"no" to a confirmation exits 1 (cancelled); Ctrl-C there exits 130', async () => {
      const key = home.run(['keys', 'create', '--name', 'to keep', '-o', 'json']).json();
      const no = tmuxMpay(home.dir, home.env, ['keys', 'revoke', key.id], { name: 'no' });
      try {
        await no.waitFor('?');
        no.type('n');
        no.keys('Enter');
        expect(await no.exitCode()).toBe(1);
        expect(no.screen()).toMatch(/cancelled/);
      } finally {
        no.kill();
      }
      const c = tmuxMpay(home.dir, home.env, ['keys', 'revoke', key.id], { name: 'cc' });
      try {
        await c.waitFor('?');
        c.keys('C-c');
        expect(await c.exitCode()).toBe(130);
      } finally {
        c.kill();
      }
      const still = home.run(['keys', 'list', '-o', 'json']).json();
      expect(still.find((k: { id: string }) => k.id === key.id)).toMatchObject({ is_active: true });
    }, 60_000);
  });
});
