// The import structure of src/, checked with dpdm (a dependency parser built on TypeScript's):
//  - no import cycles between modules as they run (type-only imports are erased by the compiler
//    and are not edges: a command's run.ts may import its options type from its index.ts);
//  - each layer imports only the layers below it (docs/architecture.md, "Layers").
//
//   node scripts/check-imports.mjs     # prints what it found; exit 1 on any cycle or violation
import { parseDependencyTree, parseCircular } from 'dpdm';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * What each layer may import from src/ (besides itself), the first matching prefix winning.
 * The CLI sits on top and may import every layer.
 */
export const LAYERS = [
  { layer: 'src/domain/', may: [] },
  { layer: 'src/contract/', may: ['src/domain/'] },
  { layer: 'src/store/', may: ['src/domain/'] },
  // services and webhook delivery never reach back into the routes (or the app that mounts them)
  { layer: 'src/server/services/', may: ['src/server/', 'src/store/', 'src/contract/', 'src/domain/'], not: ['src/server/routes/', 'src/server/app.ts', 'src/server/runtime.ts', 'src/server/due.ts'] },
  { layer: 'src/server/webhooks/', may: ['src/server/', 'src/store/', 'src/contract/', 'src/domain/'], not: ['src/server/routes/', 'src/server/services/', 'src/server/app.ts', 'src/server/runtime.ts'] },
  { layer: 'src/server/', may: ['src/store/', 'src/contract/', 'src/domain/'] },
  // mpay/embedded is the one SDK module that may load the service; the SDK ('mpay') never does
  { layer: 'src/sdk/embedded.ts', may: ['src/server/', 'src/contract/', 'src/domain/'] },
  { layer: 'src/sdk/', may: ['src/contract/', 'src/domain/'], not: ['src/sdk/embedded.ts'] },
  { layer: 'src/cli/', may: ['src/sdk/', 'src/server/', 'src/store/', 'src/contract/', 'src/domain/'] },
];

/** Parses src/ and returns its runtime cycles and the imports that break the layer rules. */
export async function checkImports() {
  const tree = await parseDependencyTree('src/**/*.ts', { cwd: root, context: root, transform: true, tsconfig: join(root, 'tsconfig.json') });
  for (const id of Object.keys(tree)) if (!id.startsWith('src/')) delete tree[id];
  const cycles = parseCircular(tree);
  const violations = [];
  for (const [file, deps] of Object.entries(tree)) {
    const rule = LAYERS.find((r) => file.startsWith(r.layer));
    if (!rule) continue;
    const own = rule.layer.endsWith('/') ? rule.layer : dirname(rule.layer) + '/';
    for (const d of deps ?? []) {
      if (!d.id?.startsWith('src/')) continue;
      const allowed = (d.id.startsWith(own) || rule.may.some((p) => d.id.startsWith(p))) && !(rule.not ?? []).some((p) => d.id.startsWith(p));
      if (!allowed) violations.push(`${file} imports ${d.id}`);
    }
  }
  return { tree, files: Object.keys(tree).length, cycles, violations };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { files, cycles, violations } = await checkImports();
  for (const c of cycles) console.log(`cycle: ${c.join(' -> ')} -> ${c[0]}`);
  for (const v of violations) console.log(`layer: ${v}`);
  console.log(`${files} modules, ${cycles.length} cycles, ${violations.length} layer violations`);
  process.exit(cycles.length || violations.length ? 1 : 0);
}
