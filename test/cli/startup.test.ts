import { spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cliHome } from '../helpers/cli.js';
import { realPng } from '../helpers/files.js';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/main.js';
import { allSpecs } from '../../src/cli/specs.js';
import { bufferIO } from '../../src/cli/io.js';

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

/**
 * Node's own modules a command loaded (process.moduleLoadList at exit), by name. Its stdout and
 * stderr are files: a pipe's stream would load net itself.
 */
function nodeModules(args: string[], extraEnv: NodeJS.ProcessEnv = {}): string[] {
  const file = join(home.dir, 'builtins-list.txt');
  const hook = join(home.dir, 'builtins-list.cjs');
  writeFileSync(hook, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(file)}, process.moduleLoadList.join('\\n')));`);
  const out = openSync(join(home.dir, 'builtins-list.out'), 'w');
  const err = openSync(join(home.dir, 'builtins-list.err'), 'w');
  const r = spawnSync(process.execPath, ['-r', hook, BIN, ...args], { env: { ...home.env, ...extraEnv }, stdio: ['ignore', out, err] });
  closeSync(out);
  closeSync(err);
  expect(r.status, readFileSync(join(home.dir, 'builtins-list.err'), 'utf8')).toBe(0);
  expect(readFileSync(join(home.dir, 'builtins-list.out'), 'utf8')).toMatch(/^\[/);
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((m) => m.startsWith('NativeModule '))
    .map((m) => m.slice('NativeModule '.length));
}

// The trace (test/fixtures/trace-imports.mjs) lists ES modules and CommonJS requires as file:
// URLs and the modules the CLI bundle initialises as `bundle:<source path>`; every dynamic import
// in src/ is a lazy init there, so a module a command does not reach never shows up.
describe('start-up loads only what a command uses', () => {
  it('runs the code-cached bundles by default, and both caches are accepted', () => {
    const r = spawnSync(process.execPath, [BIN, 'keys', 'list', '-o', 'json'], { env: { ...home.env, MPAY_DEBUG_CODE_CACHE: '1' }, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    // the command line's bundle, then the embedded service's, once each
    expect(r.stderr.match(/^code cache .*$/gm)).toEqual(['code cache (cli): accepted', 'code cache (server): accepted']);
    expect(JSON.parse(r.stdout).length).toBeGreaterThan(0);
  });

  it('the launcher is CommonJS: Node does not start its ES module loader', () => {
    const file = join(home.dir, 'builtins.txt');
    const hook = join(home.dir, 'builtins.cjs');
    writeFileSync(hook, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(file)}, process.moduleLoadList.join('\\n')));`);
    for (const args of [['--version'], ['keys', 'list', '-o', 'json']]) {
      const r = spawnSync(process.execPath, ['-r', hook, BIN, ...args], { env: home.env, encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      const builtins = readFileSync(file, 'utf8').split('\n');
      expect(builtins.filter((m) => m.includes('internal/modules/esm/module_job')), args.join(' ')).toEqual([]);
      // nor child_process (commander's, for executable subcommands mpay does not have)
      expect(builtins.filter((m) => / child_process$/.test(m)), args.join(' ')).toEqual([]);
    }
  });

  it('a command of a generated group builds that group only', () => {
    const program = buildProgram({ io: bufferIO(), exitCode: 0 }, ['--json', 'keys', 'list']);
    const names = program.commands.map((c) => c.name());
    expect(names).toContain('keys');
    expect(names).not.toContain('charges');
    // nor the hand-written commands of other groups (server, onboarding, completion …)
    for (const other of ['server', 'completion', 'profiles', 'api']) expect(names).not.toContain(other);
    // help, completion and unknown words get the whole tree
    for (const argv of [[], ['--help'], ['completion', 'bash'], ['kyes', 'list']]) {
      expect(buildProgram({ io: bufferIO(), exitCode: 0 }, argv).commands.map((c) => c.name()), argv.join(' ')).toContain('charges');
    }
  });

  it('the specs by group are the generated table, group after group in its order', () => {
    const table = JSON.parse(readFileSync(join(__dirname, '../../generated/spec.json'), 'utf8')) as typeof all;
    const all = allSpecs();
    expect(all.map((s) => s.id).sort()).toEqual(table.map((s) => s.id).sort());
    const first = [...new Set(table.map((s) => s.command[0]!))];
    expect([...new Set(all.map((s) => s.command[0]!))]).toEqual(first);
    for (const w of first) expect(all.filter((s) => s.command[0] === w), w).toEqual(table.filter((s) => s.command[0] === w));
  });

  it('a generated group built alone has every command the whole tree gives it', () => {
    const tree = (c: Command): unknown => ({
      name: c.name(),
      options: c.options.map((o) => o.flags),
      commands: c.commands.map(tree),
    });
    const whole = buildProgram({ io: bufferIO(), exitCode: 0 }, []);
    const words = [...new Set(allSpecs().map((s) => s.command[0]!))];
    expect(words).toEqual(expect.arrayContaining(['keys', 'sandbox', 'webhooks', 'submerchants', 'links', 'files']));
    for (const w of words) {
      const alone = buildProgram({ io: bufferIO(), exitCode: 0 }, [w, '--help']);
      const group = (p: Command) => p.commands.find((c) => c.name() === w)!;
      expect(tree(group(alone)), w).toEqual(tree(group(whole)));
    }
  });

  it('--version runs no bundle, SQLite, zod, commander or prompts', () => {
    const mods = loaded(['--version'], 'version');
    expect(mods.filter((m) => m.startsWith('bundle:'))).toEqual([]);
    expect(heavy(mods, /better-sqlite3|zod|inquirer|commander/)).toEqual([]);
  });

  it('an embedded read does not load prompts, the config writer, undici, tables or multipart', () => {
    loaded(['keys', 'list'], 'warm'); // first use writes the profile (atomically)
    const mods = loaded(['keys', 'list', '-o', 'json'], 'read');
    expect(mods.some((m) => m.includes('better-sqlite3'))).toBe(true);
    // the driver's JavaScript is in the bundle: only its native module is a file of its own
    expect(mods.filter((m) => m.startsWith('file:') && m.includes('node_modules/better-sqlite3/') && !m.endsWith('.node'))).toEqual([]);
    expect(mods).toContain('bundle:node_modules/better-sqlite3/lib/database.js');
    expect(mods.filter((m) => m.includes('node_modules/bindings/'))).toEqual([]);
    expect(mods.some((m) => m.startsWith('bundle:node_modules/zod/'))).toBe(true); // the server really ran in-process
    expect(mods.some((m) => m.startsWith('bundle:src/server/pipeline/'))).toBe(true);
    // the contract's schemas of the endpoint it served only (its resource module), not all of them
    expect(mods.filter((m) => m.startsWith('bundle:src/contract/resources/'))).toEqual(['bundle:src/contract/resources/apiKeys.ts']);
    for (const marker of ['node_modules/@inquirer', 'node_modules/atomically/', 'node_modules/ajv/', 'node_modules/undici/', 'node_modules/cli-table3/', 'node_modules/@fastify/busboy/', 'node_modules/qrcode/']) {
      expect(heavy(mods, new RegExp(marker)), marker).toEqual([]);
    }
    // nor Node's own fetch (Web Request/Response): slow to load, on every embedded command's start-up
    expect(mods).not.toContain('builtin:undici');
  });

  it("an embedded read loads none of Node's modules it does not call", () => {
    // the webhook guard's net and dns, process.stdin's file streams, fs/promises and readline,
    // Web Crypto: imported at the top of modules every embedded command loads, called by none
    const builtins = nodeModules(['keys', 'list', '-o', 'json']);
    expect(builtins).toContain('crypto'); // the list is not blind: the service hashes the secret key
    for (const m of ['net', 'dns', 'readline', 'fs/promises', 'internal/fs/streams', 'internal/crypto/webcrypto', 'child_process', 'http']) {
      expect(builtins, m).not.toContain(m);
    }
  });

  it('the trace sees the built-in fetch when a command uses it', () => {
    // an upload's multipart body is made with a Web Response: the marker above is not blind
    const sub = home.run(['submerchants', 'create', '--trade-name', 'Loja', '--legal-name', 'Loja LTDA', '--tax-id', '11222333000181', '--email', 'loja@example.com', '-o', 'json']).json();
    const file = join(home.dir, 'doc.png');
    writeFileSync(file, realPng());
    const mods = loaded(['submerchants', 'upload', sub.id, '--file', file, '-o', 'json'], 'upload');
    expect(mods).toContain('builtin:undici');
  });

  it('a command that ends with output still queued for a slow reader delivers all of it', async () => {
    // the launcher ends a finished command at once only when stdout holds nothing unwritten:
    // here most of the ~0.9 MB OpenAPI document waits behind a pipe nobody reads for a while
    const args = ['api', 'GET', '/openapi.json', '--auth', 'none'];
    const expected = home.run(args).stdout;
    expect(expected.length).toBeGreaterThan(500_000);
    const child = spawn(process.execPath, [BIN, ...args], { env: home.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      err += d;
    });
    child.stdout.pause();
    await new Promise((r) => setTimeout(r, 1500));
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
    });
    child.stdout.resume();
    const code = await new Promise<number | null>((r) => child.on('close', r));
    expect(code, err).toBe(0);
    expect(out.length).toBe(expected.length);
    expect(out).toBe(expected);
  }, 60_000);

  it('a remote read loads nothing only the embedded server needs, nor undici', async () => {
    const creds = home.run(['admin', 'merchants', 'create', '--name', 'Remote', '--json']).json();
    const server = await home.startServer();
    try {
      const env = { MPAY_PUBLIC_KEY: creds.public_key, MPAY_SECRET_KEY: creds.secret_key };
      const mods = loaded(['--base-url', server.url, 'keys', 'list', '-o', 'json'], 'remote', env);
      expect(mods.some((m) => m.startsWith('bundle:src/sdk/httpTransport.ts'))).toBe(true);
      // the service's bundle is not even compiled: the command line's alone answers
      const r = spawnSync(process.execPath, [BIN, '--base-url', server.url, 'keys', 'list', '-o', 'json'], { env: { ...home.env, ...env, MPAY_DEBUG_CODE_CACHE: '1' }, encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr.match(/^code cache .*$/gm)).toEqual(['code cache (cli): accepted']);
      // undici holds the process after the answer (keep-alive socket, timers) and is slow to load
      expect(heavy(mods, /better-sqlite3|node_modules\/pg\/|node_modules\/undici|node_modules\/@inquirer|node_modules\/ajv|node_modules\/cli-table3|src\/server\//)).toEqual([]);
      // nor the contract's schemas: the client calls by a generated table of paths
      expect(heavy(mods, /node_modules\/zod\/|src\/contract\/resources\//)).toEqual([]);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  }, 30_000);
});
