import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN } from './cli.js';

const HOOK = join(__dirname, '../fixtures/trace-imports.mjs');

/** The modules `mpay ARGS` loads (through test/fixtures/trace-imports.mjs), in a temp home. */
export function loadedBy(args: string[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'mpay-trace-'));
  try {
    const file = join(dir, 'trace');
    const env = { PATH: process.env.PATH, HOME: dir, MPAY_DATA_DIR: join(dir, 'data'), MPAY_CONFIG_DIR: join(dir, 'config'), NO_COLOR: '1', MPAY_TRACE_FILE: file };
    const r = spawnSync(process.execPath, ['--import', HOOK, BIN, ...args], { env, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`mpay ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    return readFileSync(file, 'utf8').trim().split('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
