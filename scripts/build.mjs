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
log('built generated/spec.json, spec-groups.js, operations.json and presentation.json');

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

// 2. the CLI as two CommonJS bundles, which bin/mpay.js compiles through V8 code caches: the
// command line (dist/cli.cjs: commander, the commands, output, the SDK client) and the service it
// embeds (dist/server.cjs: src/server and src/store with what they import), loaded only by a
// command that opens the embedded sandbox or serves HTTP. A remote read then compiles and
// deserializes none of the service (bench/startup). A warm-up run of an embedded read on a
// throw-away data dir writes both caches. Every command's code sits behind a dynamic import (a
// lazy init in the bundle). Packages that only some commands load (undici for webhook delivery
// and `webhooks listen`, the prompts, qrcode, jq-wasm) are not bundled: they are runtime
// dependencies anyway, so a copy in the bundle would ship them twice.
const cliBundle = {
  ...common,
  format: 'cjs',
  // each bundle is one function expression, which bin/mpay.js compiles and calls as a CommonJS
  // wrapper would (no copy of the source to wrap it at start-up), with one more argument: the
  // launcher's loader of the other bundle
  banner: { js: '(function (exports, require, module, __filename, __dirname, __mpayLoad) {' },
  footer: { js: '\n})' },
  // better-sqlite3's JavaScript is bundled (compiled through the code cache with the rest, not
  // required file by file at start-up); its native module stays a file, which src/store/sqlite.ts
  // names directly (nativeBinding) instead of the `bindings` package's search for it
  external: ['pg', 'pg-native', '*.node', ...LAZY_PACKAGES],
  define: { __MPAY_VERSION__: JSON.stringify(pkg.version) },
  // external packages (pg) are loaded with require(): the vm-compiled bundle has no import()
  supported: { 'dynamic-import': false },
  minifySyntax: true,
  minifyWhitespace: true,
  legalComments: 'none',
};
/**
 * An import from the command line's code into src/server or src/store is answered, in the CLI
 * bundle, by the module of the same path in the server bundle (`__mpayLoad('server')(path)`,
 * initialised on first use); the paths so imported are the server bundle's entries. A module
 * both sides import (the contract, domain/) is in both bundles, each with its own copy: nothing
 * crosses between them but plain data, the runtime and the service's own classes.
 */
const SERVER_SIDE = /^src\/(server|store|contract\/resources)\//;
const serverEntries = new Set();
const serverSide = {
  name: 'server-side',
  setup(b) {
    b.onResolve({ filter: /^\.\.?\// }, async (a) => {
      if (a.pluginData === 'server-side' || a.namespace !== 'file' || SERVER_SIDE.test(relative(root, a.importer).split('\\').join('/'))) return undefined;
      const r = await b.resolve(a.path, { kind: a.kind, importer: a.importer, resolveDir: a.resolveDir, namespace: 'file', pluginData: 'server-side' });
      const path = relative(root, r.path).split('\\').join('/');
      if (r.errors.length || !SERVER_SIDE.test(path)) return undefined;
      serverEntries.add(path);
      return { path, namespace: 'server-side' };
    });
    b.onLoad({ filter: /.*/, namespace: 'server-side' }, (a) => ({ contents: `module.exports = __mpayLoad('server')(${JSON.stringify(a.path)});`, loader: 'js' }));
  },
};
await build({ ...cliBundle, entryPoints: [join(root, 'src/cli/entry.ts')], outfile: join(root, 'dist/cli.cjs'), plugins: [lazyBuiltins, serverSide] });
// the server bundle: a function from a module's path to its exports, each initialised on first use
await build({
  ...cliBundle,
  stdin: {
    contents: `const m = {\n${[...serverEntries].sort().map((p) => `  ${JSON.stringify(p)}: () => require(${JSON.stringify(`./${p}`)}),`).join('\n')}\n};\nmodule.exports = (path) => m[path]();\n`,
    resolveDir: root,
    sourcefile: 'server-entry.cjs',
    loader: 'js',
  },
  outfile: join(root, 'dist/server.cjs'),
  plugins: [lazyBuiltins],
});
// bin/mpay.js reads the bundles as latin1 (no UTF-8 decoding): they must be ASCII, as esbuild's
// default charset makes them
for (const f of ['dist/cli.cjs', 'dist/server.cjs']) if (readFileSync(join(root, f)).some((byte) => byte > 0x7f)) throw new Error(`${f} is not ASCII: bin/mpay.js reads it as latin1`);
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
    for (const c of ['dist/cli.cache', 'dist/server.cache']) rmSync(join(root, c), { force: true });
    execFileSync(process.execPath, [join(root, 'bin/mpay.js'), 'keys', 'list', '-o', 'json'], { env, stdio: 'ignore' });
  }
  log('built dist/cli.cjs, dist/server.cjs and their code caches');
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
