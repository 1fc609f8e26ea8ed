import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';

export const root = resolve(__dirname, '../..');

/** Bundles a worker fixture (real service code) into test-artifacts; returns the .mjs path. */
export async function bundleWorker(entry: string, name: string): Promise<{ file: string; outDir: string }> {
  const outDir = join(root, 'test-artifacts', `${name}-${process.pid}`);
  mkdirSync(outDir, { recursive: true });
  const file = join(outDir, `${name}.mjs`);
  await build({
    entryPoints: [join(root, entry)],
    outfile: file,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'silent',
  });
  return { file, outDir };
}
