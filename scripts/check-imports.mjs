// The import structure of src/, checked with dpdm (a dependency parser built on TypeScript's):
//  - no import cycles between modules as they run (type-only imports are erased by the compiler
//    and are not edges: a command's run.ts may import its options type from its index.ts);
//  - each layer imports only the layers below it (docs/architecture.md, "Layers"); for the
//    layers marked `types`, type-only imports count too;
//  - the services import no HTTP, from Node or from a package (`forbid`);
//  - route handlers run no SQL: no SQL text (in any case) and no use of the store's handle
//    (`.db`, `['db']`, `{ db }`, `.tx`) in src/server/routes, read with TypeScript's parser
//    (comments do not count).
//
//   node scripts/check-imports.mjs [root]   # prints what it found; exit 1 on any cycle or violation
import { parseDependencyTree, parseCircular } from 'dpdm';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * What each layer may import from src/ (besides itself), the first matching prefix winning;
 * `not` takes prefixes back out of `may`, save where a longer prefix of `may` gives one back; `types`: type-only imports are edges too; `sql:
 * false`: its modules may not run SQL; `forbid`: modules of Node or packages it may not import (a
 * name, `node:` or not, or a package and its subpaths). The CLI sits on top and may import every layer.
 */
export const LAYERS = [
  { layer: 'src/domain/', may: [] },
  { layer: 'src/contract/', may: ['src/domain/'] },
  { layer: 'src/store/', may: ['src/domain/'] },
  // The services know nothing of HTTP. Of src/server they may use only what is not the request
  // pipeline: errors, list paging, the runtime's caches and memos, the clock, the keyring and
  // webhook delivery. The rest is the HTTP layer — app, runtime, http, inProcess, connections,
  // body, pipeline/, routes/, due, auth, rateLimit, idempotency, readMemo, uploadLimits,
  // validate, checkout/ and context.ts (AppDeps, RequestContext) — and is refused, types included.
  {
    layer: 'src/server/services/',
    may: [
      'src/server/errors.ts',
      'src/server/lists.ts',
      'src/server/calendarMemo.ts',
      'src/server/memo.ts',
      'src/server/clock.ts',
      'src/server/keyring.ts',
      'src/server/webhooks/',
      'src/store/',
      'src/contract/',
      'src/domain/',
    ],
    types: true,
    // nor from Node or a package: no server or client of HTTP (webhook delivery is src/server/webhooks'),
    // no sockets, no multipart parser
    forbid: ['http', 'https', 'http2', 'net', 'tls', 'dgram', 'undici', 'hono', '@hono/', 'busboy', '@fastify/busboy'],
  },
  // Routes parse, call a service and shape the answer: they never reach the store (nor the
  // SQL of list paging), types included, and run no SQL.
  { layer: 'src/server/routes/', may: ['src/server/', 'src/contract/', 'src/domain/'], not: ['src/server/lists.ts'], types: true, sql: false },
  // Webhook delivery sits below the services (they call it): of them it takes only the deps'
  // type, and not the HTTP layer's context either.
  {
    layer: 'src/server/webhooks/',
    may: ['src/server/services/context.ts', 'src/server/', 'src/store/', 'src/contract/', 'src/domain/'],
    not: ['src/server/routes/', 'src/server/services/', 'src/server/app.ts', 'src/server/runtime.ts', 'src/server/context.ts'],
    types: true,
  },
  { layer: 'src/server/', may: ['src/store/', 'src/contract/', 'src/domain/'] },
  // mpay/embedded is the one SDK module that may load the service; the SDK ('mpay') never does
  { layer: 'src/sdk/embedded.ts', may: ['src/server/', 'src/contract/', 'src/domain/'] },
  { layer: 'src/sdk/', may: ['src/contract/', 'src/domain/'], not: ['src/sdk/embedded.ts'] },
  { layer: 'src/cli/', may: ['src/sdk/', 'src/server/', 'src/store/', 'src/contract/', 'src/domain/'] },
];

/** SQL in a string: a statement's keywords in any case. */
const SQL_TEXT = /\b(SELECT\b[\s\S]*\bFROM|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|CREATE\s+(TABLE|INDEX))\b/i;
/** A transaction's statement: its keyword in upper case anywhere, or alone in a string in any case ("Begin here" is prose). */
const TX_TEXT = [/\b(BEGIN|COMMIT|ROLLBACK)\b/, /^\s*(begin|commit|rollback)(\s+(immediate|deferred|exclusive|transaction|work))?\s*;?\s*$/i];
const isSql = (text) => SQL_TEXT.test(text) || TX_TEXT.some((re) => re.test(text));
/** Members of the store's handle (Db, Queryable) and of a request's context that reach it. */
const STORE_MEMBERS = new Set(['db', 'tx', 'prepare', 'exec']);

/** Where a module runs SQL: SQL text in its strings, or a use of the store's handle. */
export function sqlUses(fileName, text) {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found = [];
  const at = (node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  // a property's name as written, quoted ({ 'db': store }) or not
  const nameOf = (name) => (ts.isStringLiteralLike(name) ? name.text : name.getText(source));
  const visit = (node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
      if (isSql(node.text)) found.push(`line ${at(node)}: SQL text`);
    } else if (ts.isPropertyAccessExpression(node) && STORE_MEMBERS.has(node.name.text)) {
      found.push(`line ${at(node)}: .${node.name.text}`);
    } else if (ts.isElementAccessExpression(node) && ts.isStringLiteralLike(node.argumentExpression) && STORE_MEMBERS.has(node.argumentExpression.text)) {
      // ctx['db'] is ctx.db
      found.push(`line ${at(node)}: ['${node.argumentExpression.text}']`);
    } else if (ts.isBindingElement(node) && STORE_MEMBERS.has(nameOf(node.propertyName ?? node.name))) {
      found.push(`line ${at(node)}: { ${nameOf(node.propertyName ?? node.name)} }`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const ruleOf = (file) => LAYERS.find((r) => file.startsWith(r.layer));

function layerViolations(tree, onlyTyped) {
  const violations = [];
  for (const [file, deps] of Object.entries(tree)) {
    const rule = ruleOf(file);
    if (!rule || (onlyTyped && !rule.types)) continue;
    const own = rule.layer.endsWith('/') ? rule.layer : dirname(rule.layer) + '/';
    for (const d of deps ?? []) {
      const name = d.request?.replace(/^node:/, '');
      if (rule.forbid?.some((f) => name === f || name?.startsWith(f.endsWith('/') ? f : `${f}/`))) violations.push(`${file} imports ${d.request}${onlyTyped ? ' (types)' : ''}`);
      if (!d.id?.startsWith('src/')) continue;
      const longest = (prefixes) => Math.max(-1, ...prefixes.filter((p) => d.id.startsWith(p)).map((p) => p.length));
      const allowed = longest([own, ...rule.may]) > longest(rule.not ?? []);
      if (!allowed) violations.push(`${file} imports ${d.id}${onlyTyped ? ' (types)' : ''}`);
    }
  }
  return violations;
}

/**
 * Parses src/ under `root` (the repository by default) and returns its runtime cycles and what
 * breaks the rules of LAYERS: imports against the layers, SQL run where it may not be.
 */
export async function checkImports(root = repoRoot) {
  const opts = { cwd: root, context: root, tsconfig: join(root, 'tsconfig.json') };
  const tree = await parseDependencyTree('src/**/*.ts', { ...opts, transform: true });
  for (const id of Object.keys(tree)) if (!id.startsWith('src/')) delete tree[id];
  const cycles = parseCircular(tree);
  const violations = layerViolations(tree, false);
  // the layers whose type-only imports count too, parsed again without erasing types
  const typed = LAYERS.filter((r) => r.types).map((r) => `${r.layer}**/*.ts`);
  const withTypes = await parseDependencyTree(typed, { ...opts, transform: false });
  for (const v of layerViolations(withTypes, true)) if (!violations.includes(v.replace(' (types)', ''))) violations.push(v);
  for (const file of Object.keys(tree)) {
    if (ruleOf(file)?.sql !== false) continue;
    for (const use of sqlUses(file, readFileSync(join(root, file), 'utf8'))) violations.push(`${file} runs SQL (${use})`);
  }
  return { tree, files: Object.keys(tree).length, cycles, violations };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { files, cycles, violations } = await checkImports(process.argv[2] ?? repoRoot);
  for (const c of cycles) console.log(`cycle: ${c.join(' -> ')} -> ${c[0]}`);
  for (const v of violations) console.log(`layer: ${v}`);
  console.log(`${files} modules, ${cycles.length} cycles, ${violations.length} layer violations`);
  process.exit(cycles.length || violations.length ? 1 : 0);
}
