// Build: (0) the checkout page's assets and (1) the CLI's operation specs and presentation from
// the contract, into generated/ (outside src/, imported as #generated/*: package.json "imports";
// their types are declared in src/generated.d.ts, so a fresh clone type-checks before any
// build), (2) the CLI as one bundled file with every command loaded lazily, (3) the SDK for
// programmatic use, with type declarations.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const tmp = join(root, 'dist', '.build');
const started = Date.now();
const quiet = process.argv.includes('--quiet');
const log = (s) => quiet || process.stderr.write(s + '\n');

// the split ESM build of earlier versions (one CLI build now)
rmSync(join(root, 'dist', 'cli'), { recursive: true, force: true });
// generated files of earlier versions, which were written into src/
for (const old of ['src/cli/generated', 'src/server/checkout/generated']) rmSync(join(root, old), { recursive: true, force: true });
mkdirSync(tmp, { recursive: true });
const common = { bundle: true, platform: 'node', target: 'node20.18', format: 'esm', logLevel: 'warning', sourcemap: false };
/** runtime dependencies the CLI loads only in the commands that need them (not bundled) */
const LAZY_PACKAGES = ['jq-wasm', 'undici', '@inquirer/prompts', '@inquirer/core', 'qrcode'];
const banner = { js: "import { createRequire as __mpayCreateRequire } from 'node:module'; const require = __mpayCreateRequire(import.meta.url);" };

// 0. the hosted checkout page's script and style sheet (served by the server, bundled into the CLI).
//    The script imports the server's own BIN table, Luhn and CPF/CNPJ modules: one source of truth.
{
  const dir = join(root, 'src/server/checkout');
  const browser = { bundle: true, write: false, minify: true, legalComments: 'none', logLevel: 'warning', charset: 'utf8' };
  const js = await build({ ...browser, entryPoints: [join(dir, 'browser/main.ts')], platform: 'browser', format: 'iife', target: ['chrome109', 'firefox115', 'safari15.6'] });
  const css = await build({ ...browser, entryPoints: [join(dir, 'browser/checkout.css')], target: ['chrome109', 'firefox115', 'safari15.6'] });
  mkdirSync(join(root, 'generated'), { recursive: true });
  writeFileSync(join(root, 'generated/checkout-assets.json'), JSON.stringify({ js: js.outputFiles[0].text, css: css.outputFiles[0].text }) + '\n');
  log('built generated/checkout-assets.json');
}

// 1. operation specs, the route table and the CLI's presentation
await build({ ...common, entryPoints: [join(root, 'src/cli/spec/generate.ts')], outfile: join(tmp, 'generate.mjs'), banner, external: ['better-sqlite3', 'pg'] });
execFileSync(process.execPath, [join(tmp, 'generate.mjs'), join(root, 'generated/spec.json')], { stdio: 'inherit' });
log('built generated/spec.json, operations.json and presentation.json');

/**
 * Node's modules that the bootstrap has not loaded, which modules of every command import at
 * their top level but most commands never call: the webhook guard's dns and net, the server's
 * http, fs/promises, commander's child_process (for executable subcommands, which mpay does not
 * have) … Loading them is several ms of every command (bench/startup). Each import of one is
 * answered by a module of getters, one for each export the module has in the Node running the
 * build, that requires the real module on first use.
 */
const LAZY_BUILTINS = ['child_process', 'dns', 'fs/promises', 'http', 'https', 'net', 'readline', 'tls', 'tty', 'zlib'];
const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(b) {
    const filter = new RegExp(`^(node:)?(${LAZY_BUILTINS.map((m) => m.replace('/', '\\/')).join('|')})$`);
    b.onResolve({ filter }, (a) =>
      a.namespace === 'lazy-builtin' ? { path: a.path, external: true } : { path: a.path.replace(/^node:/, ''), namespace: 'lazy-builtin' },
    );
    b.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, async (a) => {
      const keys = Object.keys(await import(`node:${a.path}`)).filter((k) => k !== 'default');
      const getters = keys.map((k) => `${JSON.stringify(k)}: { get: () => load()[${JSON.stringify(k)}], enumerable: true }`);
      return {
        contents: `let m; const load = () => (m ??= require('node:${a.path}'));\nmodule.exports = Object.defineProperties({}, { ${getters.join(', ')} });`,
        loader: 'js',
      };
    });
  },
};

// 2. the CLI: one CommonJS bundle, which bin/mpay.js compiles through a V8 code cache; a warm-up
// run of an embedded read on a throw-away data dir writes the cache. Every command's code sits
// behind a dynamic import (a lazy init in the bundle). Packages that only some commands load
// (undici for webhook delivery and `webhooks listen`, the prompts, qrcode, jq-wasm) are not
// bundled: they are runtime dependencies anyway, so a copy in the bundle would ship them twice.
await build({
  ...common,
  format: 'cjs',
  // the bundle is one function expression, which bin/mpay.js compiles and calls as a CommonJS
  // wrapper would: no copy of the 3 MB source to wrap it at start-up
  banner: { js: '(function (exports, require, module, __filename, __dirname) {' },
  footer: { js: '\n})' },
  entryPoints: [join(root, 'src/cli/entry.ts')],
  outfile: join(root, 'dist/cli.cjs'),
  // better-sqlite3's JavaScript is bundled (compiled through the code cache with the rest, not
  // required file by file at start-up); its native module stays a file, which src/store/sqlite.ts
  // names directly (nativeBinding) instead of the `bindings` package's search for it
  external: ['pg', 'pg-native', '*.node', ...LAZY_PACKAGES],
  plugins: [lazyBuiltins],
  define: { __MPAY_VERSION__: JSON.stringify(pkg.version) },
  // external packages (pg) are loaded with require(): the vm-compiled bundle has no import()
  supported: { 'dynamic-import': false },
  minifySyntax: true,
  minifyWhitespace: true,
  legalComments: 'none',
});
// bin/mpay.js reads the bundle as latin1 (no UTF-8 decoding): it must be ASCII, as esbuild's
// default charset makes it
if (readFileSync(join(root, 'dist/cli.cjs')).some((byte) => byte > 0x7f)) throw new Error('dist/cli.cjs is not ASCII: bin/mpay.js reads it as latin1');
const warm = mkdtempSync(join(tmpdir(), 'mpay-warm-'));
try {
  // the common path: the active profile's own sandbox (its data_dir), keys already made by a
  // first run, whose cache is thrown away; the second run, a plain read, writes the cache from
  // what it compiled: a cache the first run began would also hold the sandbox's creation, a quarter
  // more to load at every start (bench/startup)
  mkdirSync(join(warm, 'config'));
  writeFileSync(join(warm, 'config/config.json'), JSON.stringify({ profiles: { default: { data_dir: join(warm, 'data') } } }));
  const env = { ...process.env, MPAY_CONFIG_DIR: join(warm, 'config'), MPAY_NO_PROMPT: '1' };
  for (const k of ['MPAY_DATA_DIR', 'MPAY_PROFILE', 'MPAY_BASE_URL', 'MPAY_PUBLIC_KEY', 'MPAY_SECRET_KEY']) delete env[k];
  for (let run = 0; run < 2; run++) {
    rmSync(join(root, 'dist/cli.cache'), { force: true });
    execFileSync(process.execPath, [join(root, 'bin/mpay.js'), 'keys', 'list', '-o', 'json'], { env, stdio: 'ignore' });
  }
  log('built dist/cli.cjs and its code cache');
} finally {
  rmSync(warm, { recursive: true, force: true });
}

// 3. the SDK (dependencies stay external: they are the package's own dependencies)
await build({ ...common, entryPoints: [join(root, 'src/sdk/index.ts')], outfile: join(root, 'dist/sdk.js'), packages: 'external' });
// 3b. mpay/embedded: the service in-process (for tests and scripts), kept out of the SDK
await build({ ...common, entryPoints: [join(root, 'src/sdk/embedded.ts')], outfile: join(root, 'dist/embedded.js'), packages: 'external' });
if (!process.argv.includes('--no-types')) {
  // declarations of the SDK and of what its API names (the contract and the few domain types it
  // uses), not of the CLI, server or store: tsc emits every module it reads, the package keeps
  // the ones reachable from the two entries' declarations
  const all = join(tmp, 'types');
  execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.json'), '--emitDeclarationOnly', '--outDir', all], {
    stdio: 'inherit',
  });
  rmSync(join(root, 'dist/types'), { recursive: true, force: true });
  const todo = ['sdk/index.d.ts', 'sdk/embedded.d.ts'];
  const seen = new Set();
  while (todo.length) {
    const f = todo.pop();
    if (seen.has(f)) continue;
    seen.add(f);
    const text = readFileSync(join(all, f), 'utf8');
    mkdirSync(dirname(join(root, 'dist/types', f)), { recursive: true });
    writeFileSync(join(root, 'dist/types', f), text);
    for (const m of text.matchAll(/(?:from\s+|import\()\s*['"](\.[^'"]+)['"]/g)) {
      const target = relative(all, resolve(dirname(join(all, f)), m[1])).replace(/\.js$/, '.d.ts');
      if (!existsSync(join(all, target))) throw new Error(`${f} imports ${m[1]}, which has no declaration`);
      todo.push(target);
    }
  }
  log(`built dist/sdk.js and dist/types (${seen.size} declarations)`);
}
rmSync(tmp, { recursive: true, force: true });
log(`build done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
