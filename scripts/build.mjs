// Build: (1) the CLI's operation specs from the contract, (2) the CLI as one bundled file with
// every command loaded lazily, (3) the SDK for programmatic use, with type declarations.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const tmp = join(root, 'dist', '.build');
const started = Date.now();
const quiet = process.argv.includes('--quiet');
const log = (s) => quiet || process.stderr.write(s + '\n');

rmSync(join(root, 'dist', 'cli'), { recursive: true, force: true });
mkdirSync(tmp, { recursive: true });
const common = { bundle: true, platform: 'node', target: 'node20.18', format: 'esm', logLevel: 'warning', sourcemap: false };
const banner = { js: "import { createRequire as __mpayCreateRequire } from 'node:module'; const require = __mpayCreateRequire(import.meta.url);" };

// 1. operation specs
await build({ ...common, entryPoints: [join(root, 'src/cli/spec/generate.ts')], outfile: join(tmp, 'generate.mjs'), banner, external: ['better-sqlite3', 'pg'] });
execFileSync(process.execPath, [join(tmp, 'generate.mjs'), join(root, 'src/cli/generated/spec.json')], { stdio: 'inherit' });
log('built src/cli/generated/spec.json');

// 2. the CLI
await build({
  ...common,
  entryPoints: { entry: join(root, 'src/cli/entry.ts') },
  outdir: join(root, 'dist/cli'),
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  banner,
  external: ['better-sqlite3', 'pg', 'pg-native'],
  define: { __MPAY_VERSION__: JSON.stringify(pkg.version) },
  minifySyntax: true,
  minifyWhitespace: true,
  legalComments: 'none',
});
log('built dist/cli/');

// 3. the SDK (dependencies stay external: they are the package's own dependencies)
await build({ ...common, entryPoints: [join(root, 'src/sdk/index.ts')], outfile: join(root, 'dist/sdk.js'), packages: 'external' });
if (!process.argv.includes('--no-types')) {
  execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.json'), '--emitDeclarationOnly'], {
    stdio: 'inherit',
  });
  log('built dist/sdk.js and dist/types');
}
rmSync(tmp, { recursive: true, force: true });
log(`build done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
