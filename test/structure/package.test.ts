/**
 * Runtime dependencies are what runs: each one is imported by the code the package ships (src/),
 * so a package only the tests use (playwright-core, @inquirer/testing, fast-check…) can never
 * become a runtime dependency that every install downloads; and the package stays lean.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../helpers/sources.js';

const root = join(import.meta.dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  optionalDependencies?: Record<string, string>;
};

const shipped = [...sourceFiles(join(root, 'src'), /\.(ts|mjs|js)$/), join(root, 'bin', 'mpay.js')].map((f) => readFileSync(f, 'utf8')).join('\n');
const imported = (name: string) => new RegExp(`(from |import\\(|require\\()\\s*'${name.replace(/[/.]/g, '\\$&')}(/[^']*)?'`).test(shipped);

describe('package.json dependencies', () => {
  it('every runtime dependency is imported by src/ (nothing only the tests use)', () => {
    const unused = Object.keys(pkg.dependencies).filter((d) => !imported(d));
    expect(unused).toEqual([]);
  });

  it('no form-data: Node\'s own FormData builds the upload body (src/cli/multipart.ts)', () => {
    expect(Object.keys(pkg.dependencies)).not.toContain('form-data');
    expect(shipped).not.toMatch(/from 'form-data'|import\('form-data'\)/);
  });

  it('the test-only packages are devDependencies', () => {
    for (const testOnly of ['playwright-core', '@inquirer/testing', 'fast-check', 'vitest', 'dpdm', '@biomejs/biome']) {
      expect(Object.keys(pkg.dependencies)).not.toContain(testOnly);
      expect(Object.keys(pkg.devDependencies)).toContain(testOnly);
    }
  });
});

describe('the packed package (npm pack --dry-run)', () => {
  const packed = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }))[0] as {
    size: number;
    unpackedSize: number;
    files: { path: string; size: number }[];
  };
  const paths = packed.files.map((f) => f.path);

  it('is at most 1 MB packed', () => {
    expect(packed.size).toBeLessThanOrEqual(1_000_000);
  });

  it('ships the CLI as its two bundles, no code cache made on the build machine, and declarations of the SDK and contract only', () => {
    expect(paths).toEqual(expect.arrayContaining(['dist/cli.cjs', 'dist/server.cjs']));
    expect(paths.filter((p) => p.startsWith('dist/cli/') || p.endsWith('.cache'))).toEqual([]);
    const folders = new Set(paths.filter((p) => p.startsWith('dist/types/')).map((p) => p.split('/')[2]));
    expect([...folders].filter((f) => !f || !['contract', 'domain', 'sdk'].includes(f))).toEqual([]);
  });

  it('every package the CLI bundles leave out (require at run time) is a runtime dependency', () => {
    // (a require inside a string is code ajv generates, not a load)
    const bundle = ['cli.cjs', 'server.cjs'].map((f) => readFileSync(join(root, 'dist', f), 'utf8')).join('\n');
    const required = new Set([...bundle.matchAll(/(?<![`'"\w.])require\("([^"./][^"]*)"\)/g)].map((m) => m[1]!.split('/').slice(0, m[1]!.startsWith('@') ? 2 : 1).join('/')));
    const outside = [...required].filter((r) => !r.startsWith('node:') && !builtinModules.includes(r));
    expect(outside.length).toBeGreaterThan(0);
    // pg-native is pg's optional native binding: pg requires it only when asked to
    const missing = outside.filter((r) => r !== 'pg-native' && !(r in pkg.dependencies));
    expect(missing).toEqual([]);
  });
});

describe('the CLI\'s two bundles (dist/cli.cjs, dist/server.cjs)', () => {
  /** the modules a bundle holds, by source path (esbuild keys each lazily initialised one by it) */
  const modules = (file: string) =>
    new Set([...readFileSync(join(root, 'dist', file), 'latin1').matchAll(/"((?:src|node_modules|generated)\/[^"]+\.(?:ts|js|mjs|cjs|json))"\(/g)].map((m) => m[1]!));
  const cli = modules('cli.cjs');
  const server = modules('server.cjs');

  it('the command line holds none of the service: it asks the server bundle for those modules', () => {
    expect(cli.size).toBeGreaterThan(50);
    expect([...cli].filter((m) => /^src\/(server|store|contract\/resources)\//.test(m))).toEqual([]);
    const asked = [...readFileSync(join(root, 'dist', 'cli.cjs'), 'latin1').matchAll(/__mpayLoad\("server"\)\("([^"]+)"\)/g)].map((m) => m[1]!);
    expect(asked).toContain('src/server/runtime.ts');
    for (const m of asked) expect(server, m).toContain(m);
  });

  it('the modules both hold are the plain ones of domain/ and the contract (a copy each), never the CLI, SDK or service', () => {
    const both = [...cli].filter((m) => server.has(m) && m.startsWith('src/'));
    expect(both.length).toBeGreaterThan(0);
    expect(both.filter((m) => !/^src\/(domain\/|contract\/[a-z]+\.ts$)/.test(m))).toEqual([]);
  });
});

describe('generated files live outside src/ (a fresh clone type-checks before any build)', () => {
  it('the build leaves no file in src/ that git does not track', () => {
    // npm test builds first, so generated/ exists now; none of it may be under src/
    expect(existsSync(join(root, 'generated', 'spec.json'))).toBe(true);
    const untracked = execFileSync('git', ['ls-files', '--others', '--ignored', '--exclude-standard', '--', 'src'], { cwd: root, encoding: 'utf8' }).trim();
    expect(untracked).toBe('');
  });

  it('src/ imports generated files only as #generated/*, whose types src/generated.d.ts declares', () => {
    const generatedImports = [...shipped.matchAll(/(?:from |import\()\s*'([^'\n]*generated\/[^'\n]+)'/g)].map((m) => m[1]!);
    expect(generatedImports.length).toBeGreaterThan(0);
    expect(generatedImports.filter((i) => !i.startsWith('#generated/'))).toEqual([]);
    const declared = readFileSync(join(root, 'src', 'generated.d.ts'), 'utf8');
    for (const i of new Set(generatedImports)) expect(declared).toContain(`declare module '${i}'`);
  });
});
