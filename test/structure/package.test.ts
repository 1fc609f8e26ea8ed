/**
 * Runtime dependencies are what runs: each one is imported by the code the package ships (src/),
 * so a package only the tests use (playwright-core, @inquirer/testing, fast-check…) can never
 * become a runtime dependency that every install downloads.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : /\.(ts|mjs|js)$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}
const shipped = [...sources(join(root, 'src')), join(root, 'bin', 'mpay.js')].map((f) => readFileSync(f, 'utf8')).join('\n');
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
