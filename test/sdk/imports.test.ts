/**
 * The SDK ('mpay', dist/sdk.js) is a client: importing it loads neither the server's store
 * engines (better-sqlite3, pg) nor its request pipeline. The embedded service is its own entry, 'mpay/embedded'.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const tmp = mkdtempSync(join(tmpdir(), 'mpay-sdk-imports-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The packages a fresh node process resolves while running `code` (an ES module) in the repo. */
function packagesLoaded(code: string, name: string): string[] {
  const trace = join(tmp, `${name}.txt`);
  execFileSync(process.execPath, ['--import', join(root, 'test/fixtures/trace-imports.mjs'), '--input-type=module', '-e', code], {
    cwd: root,
    env: { ...process.env, MPAY_TRACE_FILE: trace },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const urls = readFileSync(trace, 'utf8').split('\n').filter(Boolean);
  return [...new Set(urls.map((u) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(u)?.[1]).filter((p): p is string => !!p))].sort();
}

describe("the SDK's imports", () => {
  it("import('mpay') loads neither better-sqlite3, hono nor pg", () => {
    const pkgs = packagesLoaded("const m = await import('mpay'); if (typeof m.MpayClient !== 'function') process.exit(3);", 'sdk');
    expect(pkgs).toContain('zod'); // the trace works: the contract's schemas come with the client
    for (const heavy of ['better-sqlite3', 'ipaddr.js', 'lru-cache', 'pg']) expect(pkgs).not.toContain(heavy);
  });

  it("import('mpay/embedded') is where the service (and its store engine) comes from", () => {
    const pkgs = packagesLoaded("const m = await import('mpay/embedded'); if (typeof m.openEmbedded !== 'function') process.exit(3);", 'embedded');
    expect(pkgs).toContain('better-sqlite3');
    expect(pkgs).toContain('ipaddr.js');
  });
});
