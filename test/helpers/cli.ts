import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';

export const BIN = join(__dirname, '..', '..', 'bin', 'mpay.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  json(): any;
}

/**
 * A temp home for the CLI: its own config dir and OS data dir (HOME and XDG_DATA_HOME point
 * inside it), so the embedded sandbox is the profile's own, as for a user who sets nothing.
 * `dataDir` is where that sandbox lives.
 */
export function cliHome() {
  const dir = mkdtempSync(join(tmpdir(), 'mpay-cli-'));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: dir,
    XDG_DATA_HOME: join(dir, 'xdg'),
    MPAY_CONFIG_DIR: join(dir, 'config'),
    NO_COLOR: '1',
  };
  const dataDir = process.platform === 'darwin' ? join(dir, 'Library', 'Application Support', 'mpay') : join(dir, 'xdg', 'mpay');
  const run = (args: string[], o: { input?: string; env?: NodeJS.ProcessEnv } = {}): CliResult => {
    const r = spawnSync(process.execPath, [BIN, ...args], { env: { ...env, ...o.env }, input: o.input ?? '', encoding: 'utf8', timeout: 60_000 });
    return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr, json: () => JSON.parse(r.stdout) };
  };
  const runAsync = (args: string[], o: { env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, [BIN, ...args], { env: { ...env, ...o.env }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr, json: () => JSON.parse(stdout) }));
    });
  /** Starts `mpay server start` on a free port; resolves with its base URL. */
  const startServer = (args: string[] = [], o: { env?: NodeJS.ProcessEnv } = {}): Promise<{ url: string; child: ChildProcess; stderr: () => string; exited: Promise<number> }> =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [BIN, 'server', 'start', '--port', '0', ...args], { env: { ...env, ...o.env }, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      const exited = new Promise<number>((r) => child.on('close', (c) => r(c ?? -1)));
      child.stderr.on('data', (d) => (err += d));
      child.stdout.on('data', (d) => {
        out += d;
        const m = /^(http:\/\/\S+)\n/m.exec(out);
        if (m) resolve({ url: m[1]!, child, stderr: () => err, exited });
      });
      child.on('close', (c) => reject(new Error(`server exited ${c}: ${err}`)));
    });
  /** `mpay ARGS` in the background (`links open`, `charges open`…); resolves with the first line of stdout (the URL) once printed. */
  const serving = (args: string[], o: { env?: NodeJS.ProcessEnv } = {}): Promise<{ url: string; child: ChildProcess; stderr: () => string; exited: Promise<number> }> =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [BIN, ...args], { env: { ...env, ...o.env }, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      const exited = new Promise<number>((r) => child.on('close', (c, sig) => r(c ?? (sig ? 128 : -1))));
      child.stderr.on('data', (d) => (err += d));
      child.stdout.on('data', (d) => {
        out += d;
        const m = /^(http:\/\/\S+)\n/m.exec(out);
        if (m) resolve({ url: m[1]!, child, stderr: () => err, exited });
      });
      child.on('close', (c) => reject(new Error(`mpay ${args.join(' ')} exited ${c} before printing a URL: ${err}`)));
    });
  return { dir, dataDir, env, run, runAsync, startServer, serving, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The flags of a charge's customer, and of one item of `amount` cents. */
export const CUSTOMER_FLAGS = ['--customer.name', 'Ana Souza', '--customer.email', 'ana@example.com', '--customer.tax-id', '52998224725', '--customer.phone', '+5511987654321', '--customer.type', 'individual'];
export const itemFlags = (amount: number) => ['--items', JSON.stringify([{ name: 'Curso', quantity: 1, unit_price: amount, tangible: false }])];

/**
 * A card charge of `amount` cents (card 4111 1111 1111 1111: captured), made through the
 * binary with the installment flags `plan` (default 1×); its id.
 */
export function cliCardCharge(home: ReturnType<typeof cliHome>, amount: number, plan: string[] = ['--payment-details.installments', '1']): string {
  const t = home.run(['tokens', 'create', '--card.number', '4111111111111111', '--card.holder-name', 'Ana Souza', '--card.expiration-month', '12', '--card.expiration-year', '2031', '--card.cvv', '123']);
  expect(t.code, t.stderr).toBe(0);
  const c = home.run(['charges', 'create', '--amount', String(amount), '--product-type', 'digital', '--payment-method', 'credit_card', '--payment-details.token', t.json().token, ...plan, ...CUSTOMER_FLAGS, ...itemFlags(amount)]);
  expect(c.code, c.stderr).toBe(0);
  return c.json().id;
}
