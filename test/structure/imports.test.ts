import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ESM script without type declarations
import { checkImports } from '../../scripts/check-imports.mjs';

const SCRIPT = join(import.meta.dirname, '../../scripts/check-imports.mjs');

/** The tsconfig of a small source tree the check runs on. */
const TSCONFIG = JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true }, include: ['src'] });

/** Writes `files` (path → text) under `root`. */
function writeTree(root: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, name)), { recursive: true });
    writeFileSync(join(root, name), text);
  }
}

/** A temp source tree of `files` (and TSCONFIG) for the describe block it is made in; removed after it. */
function sourceTree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'mpay-imports-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  writeTree(root, { 'tsconfig.json': TSCONFIG, ...files });
  return root;
}

/** What the check says of the tree at `root`, sorted. */
const violationsOf = async (root: string): Promise<string[]> => [...((await checkImports(root)) as Result).violations].sort();

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
  }, 120_000);
});

describe('services are free of HTTP', () => {
  it('no module of src/server/services takes the request context or reads request headers', () => {
    const dir = join(import.meta.dirname, '../../src/server/services');
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    // the folders of services (charges/…) are read too
    expect(files).toContain(join('charges', 'capture.ts'));
    const offenders = files
      .filter((f) => /\bRequestContext\b|\.req\.headers/.test(readFileSync(join(dir, f), 'utf8')));
    expect(offenders).toEqual([]);
  });
});

describe('the check fails on what it forbids (a source tree of its own)', () => {
  const root = mkdtempSync(join(tmpdir(), 'mpay-imports-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const files: Record<string, string> = {
    'tsconfig.json': TSCONFIG,
    'src/store/db.ts': 'export const db = { get: (sql: string) => sql };\n',
    'src/server/errors.ts': 'export class ApiError extends Error {}\n',
    'src/server/pipeline/limits.ts': 'export const limit = (n: number) => n;\n',
    'src/server/context.ts': 'export interface RequestContext { db: unknown; merchantId: string }\n',
    // a service that takes the request's context (a type), spends a rate limit, serves HTTP
    // and takes a socket's type
    'src/server/services/bad.ts': [
      "import type { RequestContext } from '../context.js';",
      "import { limit } from '../pipeline/limits.js';",
      "import { ApiError } from '../errors.js';",
      "import { createServer } from 'node:http';",
      "import type { Socket } from 'net';",
      'export const spend = (ctx: RequestContext) => (limit(1) ? ctx.merchantId : new ApiError());',
      'export const serve = (s?: Socket) => [createServer(), s];',
    ].join('\n'),
    // a route that imports the store and runs SQL through the context's handle
    'src/server/routes/bad.ts': [
      "import type { db } from '../../store/db.js';",
      "export const get = (ctx: { db: typeof db }, id: string) => ctx.db.get('SELECT id FROM merchants WHERE id = ?' + id);",
      'export const list = ({ db: store }: { db: typeof db }) => store.get(`UPDATE wallets SET balance = 0`);',
    ].join('\n'),
    // a route that calls a service and reads a Map: nothing to say
    'src/server/routes/good.ts': [
      "import { spend } from '../services/bad.js';",
      'const titles = new Map([["a", "SELECT a seat"]]);',
      '// a comment about SELECT id FROM merchants is no SQL',
      'export const ok = (ctx: Parameters<typeof spend>[0]) => [spend(ctx), titles.get("a")];',
    ].join('\n'),
  };
  writeTree(root, files);

  it('names each import against the layers, type-only ones of services and routes included, and each SQL in a route', async () => {
    const r = (await checkImports(root)) as Result;
    expect(r.files).toBe(7);
    expect([...r.violations].sort()).toEqual(
      [
        'src/server/routes/bad.ts imports src/store/db.ts (types)',
        'src/server/routes/bad.ts runs SQL (line 2: .db)',
        'src/server/routes/bad.ts runs SQL (line 2: SQL text)',
        'src/server/routes/bad.ts runs SQL (line 3: SQL text)',
        'src/server/routes/bad.ts runs SQL (line 3: { db })',
        'src/server/services/bad.ts imports src/server/context.ts (types)',
        'src/server/services/bad.ts imports src/server/pipeline/limits.ts',
        'src/server/services/bad.ts imports node:http',
        'src/server/services/bad.ts imports net (types)',
      ].sort(),
    );
  }, 60_000);

  it('exits 1 when run on that tree', async () => {
    const run = promisify(execFile)(process.execPath, [SCRIPT, root]);
    await expect(run).rejects.toMatchObject({ code: 1, stdout: expect.stringContaining('layer: src/server/services/bad.ts imports src/server/pipeline/limits.ts') });
  }, 60_000);
});

/** Trees of their own, each with what the check must say of it. */
describe('the check is not dodged (a source tree of its own each)', () => {
  const cases: { name: string; files: Record<string, string>; want: string[] }[] = [
    {
      name: "a route's ctx['db'], ctx['tx'], { 'db': … } and SQL in lower case, not prose that shares a keyword",
      files: {
        // the store's handle reached by element access, and SQL written in lower case
        'src/server/routes/dodge.ts': [
          "export const get = (ctx: { db: { all: (s: string) => unknown } }) => ctx['db'].all('x');",
          "export const run = (ctx: { [k: string]: { all: (s: string) => unknown } }) => ctx['tx'].all('y');",
          "export const text = 'select id from merchants where id = ?';",
          'export const more = `update wallets set balance = 0`;',
          "export const words = ['Begin here', 'commit to it', 'SELECT a seat'];",
          "export const bind = ({ 'db': store }: { db: { all: (s: string) => unknown } }) => store.all('z');",
        ].join('\n'),
      },
      want: [
        "src/server/routes/dodge.ts runs SQL (line 1: ['db'])",
        "src/server/routes/dodge.ts runs SQL (line 2: ['tx'])",
        'src/server/routes/dodge.ts runs SQL (line 3: SQL text)',
        'src/server/routes/dodge.ts runs SQL (line 4: SQL text)',
        'src/server/routes/dodge.ts runs SQL (line 6: { db })',
      ],
    },
    {
      name: "webhook delivery's types taken from the HTTP layer's context or from a service, not the services' deps type",
      files: {
        'src/server/context.ts': 'export interface RequestContext { merchantId: string }\n',
        'src/server/services/context.ts': "export type Mode = 'sandbox' | 'production';\n",
        'src/server/services/charges.ts': 'export interface Charge { id: string }\n',
        'src/server/webhooks/delivery.ts': [
          "import type { Mode } from '../services/context.js';",
          "import type { RequestContext } from '../context.js';",
          "import type { Charge } from '../services/charges.js';",
          'export const send = (m: Mode, c: RequestContext, x: Charge) => [m, c.merchantId, x.id];',
        ].join('\n'),
      },
      want: ['src/server/webhooks/delivery.ts imports src/server/context.ts (types)', 'src/server/webhooks/delivery.ts imports src/server/services/charges.ts (types)'],
    },
  ];
  for (const c of cases) {
    const root = sourceTree(c.files);
    it(`names ${c.name}`, async () => {
      expect(await violationsOf(root)).toEqual([...c.want].sort());
    }, 60_000);
  }
});
