import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ESM script without type declarations
import { checkImports } from '../../scripts/check-imports.mjs';

interface Dep {
  id: string | null;
}
interface Result {
  tree: Record<string, Dep[] | null>;
  files: number;
  cycles: string[][];
  violations: string[];
}

describe('import structure of src/ (scripts/check-imports.mjs)', () => {
  it('has no import cycles and no import against the layers of docs/architecture.md', async () => {
    const r = (await checkImports()) as Result;
    // the parser really saw the graph: every module, and the edges we know are there
    expect(r.files).toBeGreaterThan(150);
    const edges = (f: string) => (r.tree[f] ?? []).map((d) => d.id);
    expect(edges('src/server/pipeline/index.ts')).toContain('src/server/routes/index.ts');
    expect(edges('src/server/due.ts')).toContain('src/server/services/charges/due.ts');
    expect(r.cycles.map((c) => c.join(' -> '))).toEqual([]);
    expect(r.violations).toEqual([]);
  }, 60_000);
});

describe('services are free of HTTP', () => {
  it('no module of src/server/services takes the request context or imports Hono', () => {
    const dir = join(import.meta.dirname, '../../src/server/services');
    const offenders = readdirSync(dir)
      .filter((f) => f.endsWith('.ts'))
      .filter((f) => /\bRequestContext\b|from 'hono'|\.req\.headers/.test(readFileSync(join(dir, f), 'utf8')));
    expect(offenders).toEqual([]);
  });
});
