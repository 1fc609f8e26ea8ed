import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Every file under `dir` (recursively) whose name matches `name` (TypeScript sources by default). */
export function sourceFiles(dir: string, name: RegExp = /\.ts$/): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    if (d.isDirectory()) return sourceFiles(p, name);
    return name.test(d.name) ? [p] : [];
  });
}
