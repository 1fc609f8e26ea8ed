/**
 * Types of the files scripts/build.mjs generates into generated/ (outside src/, gitignored) and
 * src/ imports as `#generated/*` (package.json "imports"). Declared here so that the sources
 * type-check on a fresh clone, before any build.
 */
declare module '#generated/spec.json' {
  /** the CLI's operation specs, from the contract (src/cli/spec/generate.ts) */
  const specs: import('./cli/spec/types.js').OperationSpec[];
  export default specs;
}

declare module '#generated/spec-groups.js' {
  /** the command groups of the specs, in the order their first operation comes (src/cli/spec/generate.ts) */
  export const words: string[];
  /** one group's operation specs, in the specs' order; none for a word that is no group */
  export function groupSpecs(word: string): import('./cli/spec/types.js').OperationSpec[];
}

declare module '#generated/presentation.json' {
  /** the CLI's command groups and nested tables, from the contract's presentations (src/cli/spec/generate.ts) */
  const presentation: import('./cli/spec/types.js').PresentationSpec;
  export default presentation;
}

declare module '#generated/operations.json' {
  /** every operation's route, by id, in the contract's order (src/cli/spec/generate.ts): what the SDK client calls and the server routes with */
  const operations: Record<string, import('./contract/endpoint.js').OperationRoute>;
  export default operations;
}

declare module '#generated/checkout-assets.json' {
  /** the hosted checkout page's script and style sheet, bundled from src/server/checkout/browser/ */
  const assets: { js: string; css: string };
  export default assets;
}
