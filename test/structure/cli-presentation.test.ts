// A resource's CLI presentation has one home, the contract: its endpoints' `cli` blocks (command
// words, example, columns and their importance) and its module's presentation (command groups,
// what its fields are, nested tables; src/contract/presentation.ts). The build writes them into
// generated/spec.json and generated/presentation.json, which the CLI reads. The CLI keeps no
// table of its own keyed by operation, command group or field.
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import operations from '#generated/operations.json' with { type: 'json' };
import presentationJson from '#generated/presentation.json' with { type: 'json' };
import specsJson from '#generated/spec.json' with { type: 'json' };
import { resources, sharedPresentation } from '../../src/contract/presentation.js';
import { generatePresentation, generateSpecs } from '../../src/cli/spec/generate.js';
import { sourceFiles } from '../helpers/sources.js';
import { flagDescription } from '../../src/cli/help.js';
import { buildProgram } from '../../src/cli/main.js';
import { bufferIO } from '../../src/cli/io.js';

const root = join(import.meta.dirname, '../..');
const specs = generateSpecs();

/** The names a presentation table is keyed by: operation ids, command groups, lists nested in records. */
const names = {
  operations: new Set(Object.keys(operations)),
  groups: new Set(specs.flatMap((s) => s.command.slice(0, -1).map((_, i) => s.command.slice(0, i + 1).join(' ')))),
  nested: new Set(Object.keys(presentationJson.nested)),
};

const keyOf = (p: ts.ObjectLiteralElementLike): string | undefined =>
  ts.isPropertyAssignment(p) && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) ? p.name.text : undefined;
const isText = (e: ts.Expression) => ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e);
const isColumns = (e: ts.Expression) => ts.isArrayLiteralExpression(e) && e.elements.length > 0 && e.elements.every(isText);

/**
 * `file:line what` of every object literal that presents the contract's resources: columns by
 * operation id (a table view) or by the name of a nested list, or two or more command groups
 * described in words.
 */
function presentationTables(file: string, text: string): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const where = (n: ts.Node) => `${relative(root, file).split('\\').join('/')}:${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1}`;
  const found: string[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isObjectLiteralExpression(n)) {
      const props = n.properties.filter(ts.isPropertyAssignment);
      const keyed = (has: Set<string>, value: (e: ts.Expression) => boolean) => props.filter((p) => has.has(keyOf(p) ?? '') && value(p.initializer)).map((p) => keyOf(p)!);
      const views = keyed(names.operations, isColumns);
      const nested = keyed(names.nested, isColumns);
      const groups = keyed(names.groups, isText);
      if (views.length) found.push(`${where(n)} table views of ${views.join(', ')}`);
      if (nested.length) found.push(`${where(n)} nested tables of ${nested.join(', ')}`);
      if (groups.length >= 2) found.push(`${where(n)} command groups described: ${groups.join(', ')}`);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return found;
}

const humanize = (seg: string) => seg.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/_/g, ' ').toLowerCase();

describe('a resource’s CLI presentation lives in the contract', () => {
  it('the check sees table views, nested tables or group descriptions kept outside it', () => {
    const text = [
      "const TABLES = { 'charges.list': ['id', 'status'] };",
      "const NESTED = { items: ['name', 'quantity'] };",
      "const GROUPS = { charges: 'Charges: payments', 'merchant pin': 'The PIN' };",
      "const fine = { 'charges.refund': async () => ({}), items: [], charges: 'x', id: ['a'] };",
    ].join('\n');
    expect(presentationTables(join(root, 'x.ts'), text)).toEqual([
      'x.ts:1 table views of charges.list',
      'x.ts:2 nested tables of items',
      'x.ts:3 command groups described: charges, merchant pin',
    ]);
  });

  it('the CLI keeps no table view, nested table or group description of its own', () => {
    const files = [...sourceFiles(join(root, 'src/cli')), join(root, 'scripts/completions.mjs')];
    expect(files.length).toBeGreaterThan(40);
    expect(files.flatMap((f) => presentationTables(f, readFileSync(f, 'utf8')))).toEqual([]);
  });

  it('help adds no words of its own to a flag: without the contract’s, a flag is its field’s name', () => {
    const own: string[] = [];
    for (const s of specs) {
      for (const f of s.flags) {
        const bare = { ...f, description: undefined, about: undefined };
        const leaf = humanize(f.path[f.path.length - 1]!);
        const what = f.path.length > 1 ? `${humanize(f.path[f.path.length - 2]!)}: ${leaf}` : leaf;
        // the facts (unit, range, choices…) come after the words, the same whatever the words
        const facts = flagDescription({ ...bare, description: '@' }).slice(1);
        if (flagDescription(bare) !== what + facts) own.push(`${s.id} --${f.flag}: ${flagDescription(bare)}`);
      }
    }
    expect(own).toEqual([]);
  });

  it('every group of generated commands is described by the contract, and help says just that', () => {
    expect([...names.groups].filter((g) => !(g in presentationJson.groups))).toEqual([]);
    const program = buildProgram({ io: bufferIO(), exitCode: 0 }, []);
    for (const g of names.groups) {
      const cmd = g.split(' ').reduce((c, w) => c.commands.find((x) => x.name() === w)!, program);
      expect(cmd.description(), g).toBe(presentationJson.groups[g]);
    }
  });

  it('the CLI reads what the build made of the contract', () => {
    expect(specsJson).toEqual(JSON.parse(JSON.stringify(specs)));
    expect(presentationJson).toEqual(generatePresentation(specs));
  });

  it('every field description is one a flag shows', () => {
    const resourceOf = (id: string) => (operations as Record<string, { resource: keyof typeof resources }>)[id]!.resource;
    // a flag with no description of its own shows its resource's, else the shared one
    const shown = new Set<string>();
    for (const s of specs) {
      const name = resourceOf(s.id);
      for (const f of s.flags.filter((x) => x.description === undefined)) {
        const leaf = f.path[f.path.length - 1]!;
        shown.add(leaf in (resources[name].presentation.fields ?? {}) ? `${name}: ${leaf}` : `shared: ${leaf}`);
      }
    }
    const defined = [
      ...Object.entries(resources).flatMap(([name, r]) => Object.keys(r.presentation.fields ?? {}).map((k) => `${name}: ${k}`)),
      ...Object.keys(sharedPresentation.fields ?? {}).map((k) => `shared: ${k}`),
    ];
    expect(defined.filter((d) => !shown.has(d))).toEqual([]);
  });
});
