// An install the user cannot write (a global install by root, used by everyone else) keeps the
// code caches in the user's cache directory. When the caches beside the bundles were written by
// another Node (root ran mpay, then Node was upgraded), V8 refuses them: the launcher must then
// read the user's caches, not compile without one on every command and write them again.
// Needs a user other than root to make "cannot write" real: runs as root, with runuser.
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(__dirname, '..', '..');
const asRoot = process.getuid?.() === 0 && spawnSync('runuser', ['--help'], { stdio: 'ignore' }).status === 0;
const dir = mkdtempSync(join(tmpdir(), 'mpay-ro-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const canRead = (path: string) => spawnSync('runuser', ['-u', 'nobody', '--', 'test', '-r', path]).status === 0;
/**
 * The node_modules the installs use. A read loads two packages from it: env-paths and
 * better-sqlite3's native module (its JavaScript is in the bundle). A checkout under a directory
 * only root may enter (mktemp -d's, as in CI) cannot be read by nobody, so those two are
 * hard-linked into the test's own directory (the same files, no copy); where that fails (another
 * file system) the checkout's node_modules is linked, if nobody can read it.
 */
function nodeModules(): string | undefined {
  if (!asRoot) return undefined;
  chmodSync(dir, 0o755);
  // the installs live in the test's directory: nobody must reach it too (not so under a TMPDIR
  // inside a directory only root may enter)
  if (!canRead(dir)) return undefined;
  const own = join(dir, 'node_modules');
  mkdirSync(own);
  const linked = ['env-paths', 'better-sqlite3'].every((m) => spawnSync('cp', ['-al', join(root, 'node_modules', m), join(own, m)]).status === 0);
  if (linked) return own;
  return canRead(join(root, 'node_modules', 'env-paths', 'package.json')) ? join(root, 'node_modules') : undefined;
}
const modules = nodeModules();

/** A read-only copy of the package whose caches beside the bundles are `good` (the build's) or refused by V8; a fresh home for nobody. */
function install(name: string, good: string[]) {
  const pkg = join(dir, name);
  mkdirSync(join(pkg, 'dist'), { recursive: true });
  cpSync(join(root, 'bin'), join(pkg, 'bin'), { recursive: true });
  copyFileSync(join(root, 'package.json'), join(pkg, 'package.json'));
  for (const b of ['cli', 'server']) {
    copyFileSync(join(root, 'dist', `${b}.cjs`), join(pkg, 'dist', `${b}.cjs`));
    // refused as another version's cache is
    if (good.includes(b)) copyFileSync(join(root, 'dist', `${b}.cache`), join(pkg, 'dist', `${b}.cache`));
    else writeFileSync(join(pkg, 'dist', `${b}.cache`), Buffer.alloc(4096, 7));
  }
  symlinkSync(modules!, join(pkg, 'node_modules'));
  for (const p of [pkg, join(pkg, 'bin'), join(pkg, 'dist')]) chmodSync(p, 0o555);
  const home = join(dir, `${name}-home`);
  mkdirSync(home);
  chownSync(home, 65534, 65534);
  const mpay = () => {
    const r = spawnSync('runuser', ['-u', 'nobody', '--', 'env', '-i', `HOME=${home}`, `PATH=${process.env.PATH}`, 'MPAY_DEBUG_CODE_CACHE=1', process.execPath, join(pkg, 'bin', 'mpay.js'), 'keys', 'list', '-o', 'json'], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveLength(1);
    return r.stderr.match(/^code cache .*$/gm);
  };
  const own = join(home, '.cache', 'mpay');
  return { mpay, userCaches: () => (existsSync(own) ? readdirSync(own).sort() : []) };
}

describe.skipIf(!modules)('a read-only install whose caches another Node wrote', () => {
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };

  it("falls back to the user's caches, and takes them from the second command on", () => {
    const { mpay, userCaches } = install('both', []);
    expect(mpay()).toEqual(['code cache (cli): rejected', 'code cache (server): rejected']);
    expect(userCaches()).toEqual([`cli-${version}.cache`, `server-${version}.cache`]);
    expect(mpay()).toEqual(['code cache (cli): rejected', 'code cache (cli): accepted', 'code cache (server): rejected', 'code cache (server): accepted']);
  });

  it("the same when only the service's cache is refused (the command line's is good)", () => {
    const { mpay, userCaches } = install('server', ['cli']);
    expect(mpay()).toEqual(['code cache (cli): accepted', 'code cache (server): rejected']);
    expect(userCaches()).toEqual([`server-${version}.cache`]);
    expect(mpay()).toEqual(['code cache (cli): accepted', 'code cache (server): rejected', 'code cache (server): accepted']);
  });
});
