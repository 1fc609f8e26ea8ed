import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { root } from '../helpers/bundle.js';

/** Prints one figure line of a reliability suite (kept in the test output and in CI logs). */
export function report(line: string): void {
  console.log(`reliability: ${line}`);
}

/**
 * A temp directory in memory (/dev/shm) when the suite tests logic rather than the disk:
 * fsync is free there, so thousands of transactions fit the CI time budget.
 */
export function memTempDir(prefix: string): string {
  const base = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
  return mkdtempSync(join(base, prefix));
}

const mpayEnv = (tmp: string) => ({ ...process.env, MPAY_DATA_DIR: join(tmp, 'data'), MPAY_CONFIG_DIR: join(tmp, 'conf'), NO_COLOR: '1' });

/** `mpay admin merchants create` on the data directory under `tmp`: the new merchant. */
export async function adminMerchant(tmp: string, merchantName: string) {
  const bin = join(root, 'bin', 'mpay.js');
  const created = await new Promise<string>((resolve, reject) => {
    const p = spawn(process.execPath, [bin, 'admin', 'merchants', 'create', '--name', merchantName, '--json'], { env: mpayEnv(tmp), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`mpay admin merchants create exited ${code}`))));
  });
  return JSON.parse(created) as { merchant_id: string; wallet_id: string; public_key: string; secret_key: string };
}

/**
 * `mpay server start` on a fresh data directory under `tmp` (with `serverArgs`: by default its
 * rate limits off), with one merchant made by `mpay admin merchants create` first: its URL, the
 * merchant, and its stderr as it arrives.
 */
export async function startScanServer(tmp: string, merchantName: string, serverArgs: string[] = ['--rate-limit', 'off']) {
  const dataDir = join(tmp, 'data');
  const env = mpayEnv(tmp);
  const bin = join(root, 'bin', 'mpay.js');
  const m = await adminMerchant(tmp, merchantName);
  const server = spawn(process.execPath, [bin, 'server', 'start', '--port', '0', ...serverArgs], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const stderr = { text: '' };
  server.stderr.on('data', (d) => (stderr.text += d));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    server.stdout.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(out.split('\n')[0]!.trim());
    });
    server.once('exit', (code) => reject(new Error(`server exited ${code}`)));
  });
  const exited = new Promise<void>((res) => server.once('exit', () => res()));
  return { dataDir, m, server, url, stderr, exited };
}
