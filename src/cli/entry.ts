import { main } from './main.js';
import { installDefaultInterrupt } from './signals.js';

/** Where bin/mpay.js keeps the code caches it cannot write beside the bundles (as it finds it itself). */
export { osCacheDir as userCacheDir } from './config.js';

/** Entry of the bundled CLI (dist/cli.cjs), called by bin/mpay.js. */
export async function run(argv: string[]): Promise<void> {
  installDefaultInterrupt();
  const code = await main(argv);
  // Let stdout drain before exiting (large JSON through a pipe).
  process.exitCode = code;
}
