#!/usr/bin/env node
// The launcher: check Node, answer --version without loading anything, then run the CLI.
// The CLI is one CommonJS bundle (dist/cli.cjs) compiled through a V8 code cache
// (dist/cli.cache, made at build time): Node 20 has no compile cache of its own, and compiling
// the bundle was the largest part of start-up. Without the bundle, or with MPAY_NO_CODE_CACHE
// set, it loads the split ESM build (dist/cli/entry.js), whose chunks load command by command.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 18)) {
  process.stderr.write(`mpay needs Node.js 20.18 or newer; this is ${process.versions.node}\n`);
  process.exit(2);
}
// A reader that went away (`mpay --help | head -1`, a long `--all` list into `head`): end
// quietly with exit 0, as Unix filters do, instead of an unhandled EPIPE and a stack trace —
// and stop there, fetching no more pages for nobody. A closed stderr only silences mpay.
process.stdout.on('error', (e) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});
process.stderr.on('error', (e) => {
  if (e.code !== 'EPIPE' && e.code !== 'ERR_STREAM_DESTROYED') throw e;
});
const argv = process.argv.slice(2);
const bundle = fileURLToPath(new URL('../dist/cli.cjs', import.meta.url));
const cacheFile = fileURLToPath(new URL('../dist/cli.cache', import.meta.url));

if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  process.stdout.write(JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version + '\n');
} else if (!process.env.MPAY_NO_CODE_CACHE && existsSync(bundle)) {
  let cachedData;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  // the bundle is a function expression taking the CommonJS wrapper's arguments (see the build)
  const script = new vm.Script(readFileSync(bundle, 'utf8'), { filename: bundle, cachedData });
  if (process.env.MPAY_DEBUG_CODE_CACHE) {
    process.stderr.write(`code cache: ${!cachedData ? 'none' : script.cachedDataRejected ? 'rejected' : 'accepted'}\n`);
  }
  const mod = { exports: {} };
  script.runInThisContext()(mod.exports, createRequire(bundle), mod, bundle, dirname(bundle));
  await mod.exports.run(argv);
  // No cache yet, or V8 refused it (another Node version): leave a fresh one, if we may write.
  if (!cachedData || script.cachedDataRejected || process.env.MPAY_WRITE_CODE_CACHE) {
    try {
      writeFileSync(cacheFile, script.createCachedData());
    } catch {
      /* a read-only install keeps working, only slower */
    }
  }
} else {
  const { run } = await import('../dist/cli/entry.js');
  await run(argv);
}
