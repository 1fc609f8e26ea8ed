import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cliHome } from '../helpers/cli.js';

const home = cliHome();
afterAll(() => home.cleanup());
const HOOK = join(__dirname, '../fixtures/trace-imports.mjs');

function loaded(args: string[], name: string, extraEnv: NodeJS.ProcessEnv = {}): string[] {
  const file = join(home.dir, `${name}.trace`);
  const r = spawnSync(process.execPath, ['--import', HOOK, BIN, ...args], { env: { ...home.env, ...extraEnv, MPAY_TRACE_FILE: file }, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return readFileSync(file, 'utf8').trim().split('\n');
}

const heavy = (mods: string[], re: RegExp) => mods.filter((m) => re.test(m));

describe('start-up loads only what a command uses', () => {
  it('runs the code-cached bundle by default, and the cache is accepted', () => {
    const mods = loaded(['keys', 'list', '-o', 'json'], 'cached');
    expect(mods.some((m) => m.includes('/dist/cli/'))).toBe(false);
    const r = spawnSync(process.execPath, [BIN, 'keys', 'list', '-o', 'json'], { env: { ...home.env, MPAY_DEBUG_CODE_CACHE: '1' }, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain('code cache: accepted');
    expect(JSON.parse(r.stdout).length).toBeGreaterThan(0);
  });

  it('--version loads no bundle, SQLite, Hono, zod or prompts', () => {
    const mods = loaded(['--version'], 'version');
    expect(heavy(mods, /dist\/cli|better-sqlite3|hono|zod|inquirer/)).toEqual([]);
    expect(mods.some((m) => m.endsWith('/dist/cli.cjs'))).toBe(false);
  });

  it('an embedded read does not load prompts, conf, undici, tables or multipart', () => {
    loaded(['keys', 'list'], 'warm'); // first use writes the profile (conf)
    // The split ESM build shows the module graph chunk by chunk; the code-cached bundle that
    // runs by default has the same lazy boundaries (every dynamic import is a lazy init).
    const mods = loaded(['keys', 'list', '-o', 'json'], 'read', { MPAY_NO_CODE_CACHE: '1' });
    expect(mods.some((m) => m.includes('better-sqlite3'))).toBe(true);
    const code = mods
      .filter((m) => m.includes('/dist/cli/'))
      .map((m) => readFileSync(new URL(m), 'utf8'))
      .join('\n');
    // CommonJS modules keep their node_modules path in the bundle: prompts (chardet), conf (ajv),
    // undici, cli-table3, busboy
    for (const marker of ['node_modules/chardet', 'node_modules/ajv', 'node_modules/undici', 'node_modules/cli-table3', 'node_modules/@fastify/busboy']) {
      expect(code.includes(marker), marker).toBe(false);
    }
    expect(code).toContain('ZodType'); // the server really ran in-process
  });

  it('a remote read loads nothing only the embedded server needs, nor undici', async () => {
    const creds = home.run(['admin', 'merchants', 'create', '--name', 'Remote', '--json']).json();
    const server = await home.startServer();
    try {
      const env = { MPAY_NO_CODE_CACHE: '1', MPAY_PUBLIC_KEY: creds.public_key, MPAY_SECRET_KEY: creds.secret_key };
      const mods = loaded(['--base-url', server.url, 'keys', 'list', '-o', 'json'], 'remote', env);
      expect(heavy(mods, /better-sqlite3|node_modules\/hono|node_modules\/pg\//)).toEqual([]);
      const code = mods
        .filter((m) => m.includes('/dist/cli/'))
        .map((m) => readFileSync(new URL(m), 'utf8'))
        .join('\n');
      // undici held the process ~55 ms after the answer (keep-alive socket, timers) and took ~45 ms to load
      for (const marker of ['node_modules/undici', 'node_modules/chardet', 'node_modules/ajv', 'node_modules/cli-table3', 'better-sqlite3', 'class Hono']) {
        expect(code.includes(marker), marker).toBe(false);
      }
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  }, 30_000);
});
