#!/usr/bin/env node
// The launcher: check Node, answer --version without loading anything, then load the one
// bundled file (dist/cli.js), in which every command is loaded lazily.
import { readFileSync } from 'node:fs';
import module from 'node:module';

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 18)) {
  process.stderr.write(`mpay needs Node.js 20.18 or newer; this is ${process.versions.node}\n`);
  process.exit(2);
}
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  process.stdout.write(JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version + '\n');
} else {
  module.enableCompileCache?.();
  const { run } = await import('../dist/cli/entry.js');
  await run(argv);
}
