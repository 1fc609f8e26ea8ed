// Object literals with accessors (`{ get x() { … } }`) are slow to make in V8: each evaluation
// defines its accessors at run time, gives the object a hidden class of its own, and the map
// transition tree keeps those accessors reachable until the next full collection. One such
// literal per request costs ~10 µs of CPU per request and makes ~1.5 KB per request survive
// the young generation (bench:server; docs/performance.md, "Design choices").
// The server and the store make none: a class with accessors on its prototype does the job.
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { sourceFiles as sources } from '../helpers/sources.js';

const root = join(import.meta.dirname, '../..');

/** `file:line` of every get/set accessor written inside an object literal */
function literalAccessors(file: string, text: string): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (n: ts.Node): void => {
    if ((ts.isGetAccessorDeclaration(n) || ts.isSetAccessorDeclaration(n)) && ts.isObjectLiteralExpression(n.parent)) {
      found.push(`${relative(root, file).split('\\').join('/')}:${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1}`);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return found;
}

describe('no object literal with accessors on the request path (src/server, src/store)', () => {
  it('the check sees one when there is one, and not a class accessor', () => {
    expect(literalAccessors(join(root, 'x.ts'), 'const a = { n: 1, get x() { return 1; } };\nclass B { get y() { return 2; } }')).toEqual(['x.ts:1']);
  });

  it('src/server and src/store have none', () => {
    const files = [...sources(join(root, 'src/server')), ...sources(join(root, 'src/store'))];
    expect(files.length).toBeGreaterThan(40);
    expect(files.flatMap((f) => literalAccessors(f, readFileSync(f, 'utf8')))).toEqual([]);
  });
});
