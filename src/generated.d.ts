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

declare module '#generated/operations.json' {
  /** every operation's method, path and credentials, by id (src/cli/spec/generate.ts): what the SDK client calls with */
  const operations: Record<string, { method: import('./contract/endpoint.js').HttpMethod; path: string; auth: import('./contract/endpoint.js').AuthKind }>;
  export default operations;
}

declare module '#generated/checkout-assets.json' {
  /** the hosted checkout page's script and style sheet, bundled from src/server/checkout/browser/ */
  const assets: { js: string; css: string };
  export default assets;
}
