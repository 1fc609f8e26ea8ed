import { main } from './main.js';
import { installDefaultInterrupt } from './signals.js';

/** Entry of the bundled CLI (dist/cli.js), called by bin/mpay.js. */
export async function run(argv: string[]): Promise<void> {
  installDefaultInterrupt();
  const code = await main(argv);
  // Let stdout drain before exiting (large JSON through a pipe).
  process.exitCode = code;
}
