#!/usr/bin/env node
// The launcher: check Node, answer --version without loading anything, then run the CLI.
// The CLI is two CommonJS bundles, each compiled through a V8 code cache made on first use for
// this Node version: dist/cli.cjs, the command line, and dist/server.cjs, the service it embeds,
// which the first loads (through the loader below) only for a command that opens the embedded
// sandbox or serves HTTP. A cache lives beside its bundle (dist/cli.cache, dist/server.cache) or,
// in an install the user cannot write, in the user's cache directory. Node 20 has no compile
// cache of its own, and compiling the bundles was the largest part of start-up.
// MPAY_NO_CODE_CACHE=1 compiles them without a cache (to measure what the cache buys);
// MPAY_DEBUG_CODE_CACHE=1 says on stderr whether each cache was taken. Every command's code is a
// lazy init in its bundle.
// The launcher itself is CommonJS (bin/package.json): Node starts a CommonJS entry without its
// ES module loader, a few milliseconds of every command (bench/startup).
'use strict';
const { existsSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } = require('node:fs');
const { dirname, join } = require('node:path');
const vm = require('node:vm');

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 18)) {
  process.stderr.write(`mpay needs Node.js 20.18 or newer; this is ${process.versions.node}\n`);
  process.exit(2);
}
// A reader that went away (`mpay --help | head -1`, a long `--all` list into `head`): end
// quietly with exit 0, as Unix filters do, instead of an unhandled EPIPE and a stack trace —
// and stop there, fetching no more pages for nobody. Output that cannot be written (a full
// disk): one line on stderr and exit 1, never 0 with the data lost.
const outputLost = (e) => {
  if (e.code === 'EPIPE') process.exit(0);
  const why = e.code === 'ENOSPC' ? 'no space left on device (ENOSPC)' : (e.code ?? e.message);
  process.stderr.write(`error: cannot write the output: ${why}\n`);
  process.exit(1);
};
process.stdout.on('error', outputLost);
// A closed stderr only silences mpay. Its handler is set when something first writes to stderr
// or asks about it: making process.stderr on a pipe or a terminal loads Node's net module, and
// most commands that succeed never touch it (bench/startup).
const stderrError = (e) => {
  if (e.code !== 'EPIPE' && e.code !== 'ERR_STREAM_DESTROYED') throw e;
};
let stderrMade = false;
const stderr = Object.getOwnPropertyDescriptor(process, 'stderr');
if (stderr?.get && stderr.configurable) {
  Object.defineProperty(process, 'stderr', {
    configurable: true,
    enumerable: stderr.enumerable,
    get() {
      const s = stderr.get.call(process);
      stderrMade = true;
      Object.defineProperty(process, 'stderr', { configurable: true, enumerable: stderr.enumerable, writable: false, value: s });
      s.on('error', stderrError);
      return s;
    },
  });
} else {
  stderrMade = true;
  process.stderr.on('error', stderrError);
}
const argv = process.argv.slice(2);
const dist = join(__dirname, '..', 'dist');
const version = () => JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')).version;
/** the user's cache directory, for an install the user cannot write (env-paths loads only then) */
async function userCacheDir() {
  const { default: envPaths } = await import('env-paths');
  return envPaths('mpay', { suffix: '' }).cache;
}
const cacheFiles = (name, userDir) => [join(dist, `${name}.cache`), ...(userDir ? [join(userDir, `${name}-${version()}.cache`)] : [])];
function readCache(file) {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}
/** Written whole or not at all (a temp file renamed over it): a process starting meanwhile never reads half a cache. */
function writeCache(file, data) {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(tmp, data);
    renameSync(tmp, file);
    return true;
  } catch {
    try {
      unlinkSync(tmp);
    } catch {}
    return false;
  }
}

async function main() {
  const useCache = !process.env.MPAY_NO_CODE_CACHE;
  // the user's cache directory, for an install the user cannot write: looked up when a bundle has
  // no cache beside it, or V8 refuses the one there (another Node wrote it)
  let userDir = useCache && !(existsSync(join(dist, 'cli.cache')) && existsSync(join(dist, 'server.cache'))) ? await userCacheDir() : undefined;
  const loaded = new Map();
  /**
   * A bundle compiled through the first of these caches V8 takes. A bundle is a function
   * expression taking the CommonJS wrapper's arguments and the loader (see the build); it is
   * ASCII (the build checks), read as latin1: the same string without decoding UTF-8.
   */
  const compile = (name, files, source = readFileSync(join(dist, `${name}.cjs`), 'latin1')) => {
    const filename = join(dist, `${name}.cjs`);
    let script;
    for (const f of useCache ? files : []) {
      const cachedData = readCache(f);
      if (!cachedData) continue;
      script = new vm.Script(source, { filename, cachedData });
      if (process.env.MPAY_DEBUG_CODE_CACHE) process.stderr.write(`code cache (${name}): ${script.cachedDataRejected ? 'rejected' : 'accepted'}\n`);
      if (!script.cachedDataRejected) return { script, source, stale: false };
    }
    if (!script) {
      script = new vm.Script(source, { filename });
      if (process.env.MPAY_DEBUG_CODE_CACHE) process.stderr.write(`code cache (${name}): none\n`);
    }
    return { script, source, stale: useCache };
  };
  /** A cache beside the bundle that V8 refused, the user's directory not looked up yet: the user's cache there, if any. */
  const orUsers = (name, compiled, dir) => {
    if (!dir) return compiled;
    userDir = dir;
    const [, own] = cacheFiles(name, dir);
    return existsSync(own) ? compile(name, [own], compiled.source) : compiled;
  };
  const run = (name, { script, stale }) => {
    const mod = { exports: {} };
    loaded.set(name, { script, mod, stale });
    // the launcher's own require: the bundles' packages resolve from the same node_modules, and
    // Node's module package (createRequire) is not loaded for it (~0.3 ms, bench/startup)
    script.runInThisContext()(mod.exports, require, mod, join(dist, `${name}.cjs`), dist, load);
    return mod.exports;
  };
  /** a bundle's exports, compiled and run on first use (how the command line loads the service) */
  function load(name) {
    if (loaded.has(name)) return loaded.get(name).mod.exports;
    let compiled = compile(name, cacheFiles(name, userDir));
    // loaded from inside a command, so not awaited: the command line says where the user's cache is
    if (compiled.stale && useCache && !userDir) compiled = orUsers(name, compiled, loaded.get('cli')?.mod.exports.userCacheDir?.());
    return run(name, compiled);
  }
  let cli = compile('cli', cacheFiles('cli', userDir));
  if (cli.stale && useCache && !userDir) cli = orUsers('cli', cli, await userCacheDir());
  await run('cli', cli).run(argv);
  // No cache yet, or V8 refused it (another Node version): leave a fresh one, if we may write.
  for (const [name, { script, stale }] of loaded) {
    if (!stale) continue;
    const data = script.createCachedData();
    // nowhere to write it (read-only install and home): it keeps working, only slower
    if (!writeCache(join(dist, `${name}.cache`), data)) writeCache(cacheFiles(name, userDir ?? (await userCacheDir()))[1], data);
  }
  // The command is done. When nothing but stdout and stderr keeps the process alive and neither
  // holds unwritten output, end now: left to itself Node would first free the environment and
  // the heap, piece by piece (~2.5 ms of CPU, bench/startup). Output still queued for a slow
  // pipe drains first, the ordinary way.
  // a write to a file fails at once, but its 'error' event would come after this exit
  if (process.stdout.errored) outputLost(process.stdout.errored);
  const left = process.getActiveResourcesInfo?.();
  if (left?.every((r) => r === 'PipeWrap' || r === 'TTYWrap') && !process.stdout.writableLength && !(stderrMade && process.stderr.writableLength)) process.exit();
}

if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  process.stdout.write(version() + '\n');
} else {
  main().catch((e) => {
    process.stderr.write(`${e?.stack ?? e}\n`);
    process.exitCode = 1;
  });
}
