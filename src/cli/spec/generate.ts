/**
 * Build step: turns the contract's endpoint table and its resources' presentations into the
 * CLI's operation specs and presentation (JSON), so the CLI can build its command tree, help and
 * tables without loading zod or the contract. Run by scripts/build.mjs.
 */
import * as z from 'zod';
import { endpoints, type AnyEndpoint } from '../../contract/index.js';
import { RESOURCE_LOADERS, type ResourceName } from '../../contract/loaders.js';
import type { CliPresentation, OperationRoute } from '../../contract/endpoint.js';
import { resources, sharedPresentation } from '../../contract/presentation.js';
import { moneyFields, PAGE_MAX, PER_PAGE_DEFAULT, PER_PAGE_MAX, unitOf } from '../../contract/common.js';
import { copyFields, hintOf, type FieldHint } from '../../contract/hints.js';
import type { OperationId } from '../../sdk/client.js';
import type { FlagSpec, FlagType, OperationSpec, PresentationSpec } from './types.js';

type JS = {
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  default?: unknown;
  'x-unit'?: string;
  type?: string | string[];
  properties?: Record<string, JS>;
  required?: string[];
  items?: JS;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JS[];
  oneOf?: JS[];
  description?: string;
  /** the contract's hint of the field (src/contract/hints.ts) */
  'x-hint'?: FieldHint;
  /** words a whole-number field also takes: a field that is a number in some branches of a union and one of these words in others */
  'x-choices'?: string[];
};

export const kebab = (s: string) =>
  s
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/_/g, '-')
    .toLowerCase();

function typeOf(s: JS): { type: FlagType; choices?: string[] } {
  if (s.enum) return { type: 'string', choices: s.enum.map(String) };
  if (s.const !== undefined) return { type: 'string', choices: [String(s.const)] };
  const t = Array.isArray(s.type) ? s.type.find((x) => x !== 'null') : s.type;
  if (t === 'integer') return { type: 'integer' };
  if (t === 'number') return { type: 'number' };
  if (t === 'boolean') return { type: 'boolean' };
  if (t === 'string') return { type: 'string' };
  if (t === 'array') {
    const it = s.items ?? {};
    const itType = Array.isArray(it.type) ? it.type[0] : it.type;
    if (itType === 'string' || it.enum) return { type: 'string[]', choices: it.enum?.map(String) };
    return { type: 'json' };
  }
  return { type: 'json' };
}

const branchesOf = (s: JS): JS[] | undefined => {
  const b = s.oneOf ?? s.anyOf;
  if (!b?.length) return undefined;
  const objects = b.filter((x) => x.type === 'object' || x.properties || x.oneOf || x.anyOf);
  return objects.length === b.length ? b : undefined;
};

const isWords = (v: JS) => Boolean(v.enum) || v.const !== undefined;
const isWhole = (v: JS) => v.type === 'integer';

/** The branches' descriptions as one: each distinct one once, led by the branches it is of
 *  (their `payment_method`) when they differ. */
function joinDescriptions(vs: JS[], labels: (string | undefined)[]): string | undefined {
  const byText = new Map<string, string[]>();
  vs.forEach((v, i) => {
    if (v.description === undefined) return;
    const ls = byText.get(v.description) ?? [];
    if (labels[i] !== undefined && !ls.includes(labels[i])) ls.push(labels[i]);
    byText.set(v.description, ls);
  });
  if (byText.size <= 1) return [...byText.keys()][0];
  return [...byText].map(([text, ls]) => (ls.length ? `${ls.join(', ')}: ${text}` : text)).join('; ');
}

/** A union of object shapes (e.g. one body per payment_method) as one shape: every field of
 *  every branch, choices joined, required only where every branch requires it. A field that is
 *  one of some words in a branch and a whole number in another takes either (the words as
 *  `x-choices`), its description saying which branch means what. */
export function mergeUnion(branches: JS[], labels: (string | undefined)[] = []): JS {
  const flat: JS[] = [];
  const flatLabels: (string | undefined)[] = [];
  branches.forEach((b, i) => {
    flat.push(branchesOf(b) ? mergeUnion(branchesOf(b)!) : b);
    const method = b.properties?.payment_method?.const;
    flatLabels.push(labels[i] ?? (typeof method === 'string' ? method : undefined));
  });
  const props: Record<string, JS[]> = {};
  const propLabels: Record<string, (string | undefined)[]> = {};
  flat.forEach((b, i) => {
    for (const [k, v] of Object.entries(b.properties ?? {})) {
      (props[k] ??= []).push(v);
      (propLabels[k] ??= []).push(flatLabels[i]);
    }
  });
  const merged: Record<string, JS> = {};
  for (const [k, vs] of Object.entries(props)) {
    const objs = vs.filter((v) => v.type === 'object' && v.properties);
    if (objs.length === vs.length && vs.length > 1) merged[k] = mergeUnion(vs, propLabels[k]);
    else if (vs.every(isWords)) {
      merged[k] = { type: 'string', enum: [...new Set(vs.flatMap((v) => v.enum ?? [v.const]))] };
    } else if (vs.every((v) => isWords(v) || isWhole(v)) && vs.some(isWords)) {
      const whole = vs.find(isWhole)!;
      const words = [...new Set(vs.filter(isWords).flatMap((v) => v.enum ?? [v.const]))].map(String);
      merged[k] = { ...whole, 'x-choices': words, description: joinDescriptions(vs, propLabels[k]!) };
    } else {
      const description = joinDescriptions(vs, propLabels[k]!);
      merged[k] = description === undefined ? vs[0]! : { ...vs[0]!, description };
    }
  }
  const required = Object.keys(merged).filter((k) => flat.every((b) => (b.required ?? []).includes(k)));
  return { type: 'object', properties: merged, required };
}

function walk(s: JS, path: string[], into: 'body' | 'query', required: boolean, out: FlagSpec[], names: Readonly<Record<string, string>> = {}): void {
  const branches = branchesOf(s);
  if (branches) s = mergeUnion(branches);
  const t = Array.isArray(s.type) ? s.type.find((x) => x !== 'null') : s.type;
  if (t === 'object' && s.properties && Object.keys(s.properties).length) {
    for (const [k, v] of Object.entries(s.properties)) walk(v, [...path, k], into, required && (s.required ?? []).includes(k), out, names);
    return;
  }
  // a nullable field (`anyOf: [T, null]`) is a flag of type T whose value `null` clears it
  const notNull = s.anyOf?.filter((x) => x.type !== 'null');
  const nullableOf = s.anyOf?.length === 2 && notNull?.length === 1;
  // (or `type: [T, 'null']`, as the schema of a plain type made nullable comes)
  const nullable = nullableOf || (Array.isArray(s.type) && s.type.includes('null'));
  const leaf = s.anyOf?.length === 1 ? s.anyOf[0]! : nullableOf ? notNull![0]! : s;
  const { type, choices } = typeOf(leaf);
  const hint = s['x-hint'] ?? leaf['x-hint'];
  const f: FlagSpec = {
    flag: names[path.join('.')] ?? path.map(kebab).join('.'),
    path,
    in: into,
    type,
    choices: choices ?? leaf['x-choices'] ?? (hint?.values ? [...hint.values] : undefined),
    required,
    description: s.description ?? leaf.description,
  };
  if (nullable && type !== 'json') f.nullable = true;
  if (hint?.format) f.format = hint.format;
  if (leaf['x-unit']) f.unit = leaf['x-unit'];
  // ranges worth checking locally (not the ±2^53 every integer carries)
  if (typeof leaf.minimum === 'number' && Math.abs(leaf.minimum) < Number.MAX_SAFE_INTEGER) f.minimum = leaf.minimum;
  if (typeof leaf.maximum === 'number' && Math.abs(leaf.maximum) < Number.MAX_SAFE_INTEGER) f.maximum = leaf.maximum;
  if (type === 'string' && !choices) {
    if (typeof leaf.minLength === 'number') f.minLength = leaf.minLength;
    if (typeof leaf.maxLength === 'number') f.maxLength = leaf.maxLength;
  }
  if (type === 'string[]' && typeof leaf.minItems === 'number' && leaf.minItems > 0) f.minItems = leaf.minItems;
  if (leaf.default !== undefined) f.default = leaf.default;
  out.push(f);
}

/**
 * JSON Schema of a contract schema, with `x-unit` on numbers whose contract error names their
 * unit ("must be an integer number of cents" → cents, "… of days" → days): the CLI's help and
 * checks say `--amount` is in cents because the contract does.
 */
function jsonSchema(schema: z.ZodType): JS {
  return z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
    override: (ctx) => {
      const unit = unitOf(ctx.zodSchema);
      if (unit) (ctx.jsonSchema as JS)['x-unit'] = unit;
      const hint = hintOf(ctx.zodSchema);
      if (hint) (ctx.jsonSchema as JS)['x-hint'] = hint;
    },
  }) as JS;
}

/** The id of an operation of the contract; a name of none is an error of the contract (the build stops). */
function operationId(name: string, where: string): OperationId {
  const id = endpoints.find((e) => e.id === name)?.id;
  if (id === undefined) throw new Error(`${where} names no operation of the contract: ${name}`);
  return id;
}

/** Each endpoint's resource presentation, by endpoint id (src/contract/presentation.ts). */
function presentationsById(): Map<string, CliPresentation> {
  const byId = new Map<string, CliPresentation>();
  for (const [name, r] of Object.entries(resources)) {
    for (const e of r.endpoints) {
      if (byId.has(e.id)) throw new Error(`${e.id} is in two resources of src/contract/presentation.ts (one is ${name})`);
      byId.set(e.id, r.presentation);
    }
  }
  return byId;
}

/** `importance` names the endpoint's columns, each once, and nothing else. */
function checkImportance(where: string, columns: readonly string[], importance: readonly string[] | undefined): void {
  if (!importance) return;
  const sorted = (xs: readonly string[]) => JSON.stringify([...xs].sort());
  if (sorted(columns) !== sorted(importance)) throw new Error(`${where}: importance must order the columns (${columns.join(', ')}), not ${importance.join(', ')}`);
}

export function generateSpecs(): OperationSpec[] {
  const specs: OperationSpec[] = [];
  const presentationOf = presentationsById();
  for (const e of endpoints) {
    if (!e.cli) continue;
    const presentation = presentationOf.get(e.id);
    if (!presentation) throw new Error(`${e.id} is in no resource of src/contract/presentation.ts`);
    checkImportance(`${e.id}'s cli`, e.cli.columns ?? [], e.cli.importance);
    const flags: FlagSpec[] = [];
    if (e.body) {
      let js = jsonSchema(e.body);
      const branches = branchesOf(js);
      if (branches) js = mergeUnion(branches);
      for (const [k, v] of Object.entries(js.properties ?? {})) walk(v, [k], 'body', (js.required ?? []).includes(k), flags, e.cli.flagNames);
    }
    if (e.query) {
      const js = jsonSchema(e.query);
      for (const [k, v] of Object.entries(js.properties ?? {})) {
        if (k === 'page' || k === 'per_page') continue;
        walk(v, [k], 'query', (js.required ?? []).includes(k), flags, e.cli.flagNames);
      }
    }
    for (const f of flags) {
      const leaf = f.path[f.path.length - 1]!;
      const about = f.description === undefined ? (presentation.fields?.[leaf] ?? sharedPresentation.fields?.[leaf]) : undefined;
      if (about !== undefined) f.about = about;
    }
    specs.push({
      id: e.id,
      method: e.method,
      path: e.path,
      auth: e.auth,
      summary: e.summary,
      message: e.message,
      command: [...e.cli.command],
      example: e.cli.example,
      ...(e.cli.moreExamples ? { moreExamples: [...e.cli.moreExamples] } : {}),
      columns: [...(e.cli.columns ?? [])],
      ...(e.cli.importance ? { importance: [...e.cli.importance] } : {}),
      money: moneyFields(e.response),
      copy: copyFields(e.response),
      list: !!e.list,
      ...(e.pages ? { pages: e.pages } : {}),
      multipart: !!e.multipart,
      raw: !!e.raw,
      waitWith: e.cli.waitWith === undefined ? undefined : operationId(e.cli.waitWith, `${e.id}'s cli.waitWith`),
      sandbox: !!e.sandbox,
      hasBody: !!e.body,
      params: [...e.path.matchAll(/\{([a-z_]+)\}/gi)].map((m) => m[1]!),
      flags,
      ...(e.list || e.pages ? { pagination: { pageMax: PAGE_MAX, perPageMax: PER_PAGE_MAX, perPageDefault: PER_PAGE_DEFAULT } } : {}),
    });
  }
  return specs;
}

/**
 * What the CLI presents besides its operations: every resource's command groups (each described
 * once, each a group of the operations' commands) and nested tables (each list name once).
 */
export function generatePresentation(specs: readonly OperationSpec[]): PresentationSpec {
  const out: PresentationSpec = { groups: {}, nested: {} };
  const commandGroups = new Set(specs.flatMap((s) => s.command.slice(0, -1).map((_, i) => s.command.slice(0, i + 1).join(' '))));
  const all: [string, CliPresentation][] = [...Object.entries(resources).map(([name, r]): [string, CliPresentation] => [name, r.presentation]), ['shared', sharedPresentation]];
  for (const [name, p] of all) {
    for (const [group, text] of Object.entries(p.groups ?? {})) {
      if (group in out.groups) throw new Error(`command group "${group}" is described twice (again by ${name})`);
      if (!commandGroups.has(group)) throw new Error(`${name} describes command group "${group}", which no operation's command is in`);
      out.groups[group] = text;
    }
    for (const [list, t] of Object.entries(p.nested ?? {})) {
      if (list in out.nested) throw new Error(`the nested table "${list}" is defined twice (again by ${name})`);
      checkImportance(`${name}'s nested ${list}`, t.columns, t.importance);
      out.nested[list] = { columns: [...t.columns], importance: [...(t.importance ?? t.columns)] };
    }
  }
  return out;
}

/**
 * Every operation by id, in the contract's order: its method, path and credentials (all the SDK
 * client needs to call one), whether it is a sandbox route or a multipart upload, and the
 * resource module that defines it (src/contract/loaders.ts) — so that neither the client nor the
 * server's router builds the contract's schemas (zod) to find a route. An endpoint of no
 * resource module, or of two, stops the build.
 */
export async function generateOperations(): Promise<Record<string, OperationRoute>> {
  const resourceOf = new Map<string, ResourceName>();
  for (const [name, load] of Object.entries(RESOURCE_LOADERS) as [ResourceName, () => Promise<readonly AnyEndpoint[]>][]) {
    for (const e of await load()) {
      if (resourceOf.has(e.id)) throw new Error(`${e.id} is in two resource modules: ${resourceOf.get(e.id)} and ${name}`);
      resourceOf.set(e.id, name);
    }
  }
  const ops: Record<string, OperationRoute> = {};
  for (const e of endpoints as readonly AnyEndpoint[]) {
    const resource = resourceOf.get(e.id);
    if (!resource) throw new Error(`${e.id} is in no resource module of src/contract/loaders.ts`);
    ops[e.id] = { method: e.method, path: e.path, auth: e.auth, sandbox: !!e.sandbox, multipart: !!e.multipart, resource };
  }
  if (resourceOf.size !== Object.keys(ops).length) throw new Error('src/contract/loaders.ts has endpoints that src/contract/index.ts does not list');
  if (Object.values(resources).reduce((n, r) => n + r.endpoints.length, 0) !== resourceOf.size) throw new Error('src/contract/presentation.ts and src/contract/loaders.ts list different endpoints');
  for (const [name, r] of Object.entries(resources)) {
    for (const e of r.endpoints) {
      if (resourceOf.get(e.id) !== name) throw new Error(`src/contract/presentation.ts puts ${e.id} in ${name}; src/contract/loaders.ts in ${resourceOf.get(e.id)}`);
    }
  }
  return ops;
}

/**
 * The same specs as a module of command groups, each group's array made by a function of its own:
 * V8 compiles (and the CLI's code cache holds) only the groups a command runs, not the whole
 * table at every start-up (bench/startup). `words` are the groups in the order their first
 * operation comes in the specs, each group's operations in their order: a tree built from them
 * group after group is the tree built from the specs.
 */
export function specGroupsModule(specs: OperationSpec[]): string {
  const words = [...new Set(specs.map((s) => s.command[0]!))];
  const groups = words.map((w) => `  ${JSON.stringify(w)}: () => ${JSON.stringify(specs.filter((s) => s.command[0] === w))},`);
  return `// Generated by scripts/build.mjs (src/cli/spec/generate.ts): the CLI's operation specs by command group.
export const words = ${JSON.stringify(words)};
const groups = {
${groups.join('\n')}
};
/** the operations of one command group (a fresh array), none for a word that is no group */
export const groupSpecs = (word) => (Object.hasOwn(groups, word) ? groups[word]() : []);
`;
}

if (process.argv[2]) {
  const { writeFileSync, mkdirSync } = await import('node:fs');
  const { dirname, join } = await import('node:path');
  mkdirSync(dirname(process.argv[2]), { recursive: true });
  const specs = generateSpecs();
  writeFileSync(process.argv[2], JSON.stringify(specs, null, 1) + '\n');
  writeFileSync(join(dirname(process.argv[2]), 'spec-groups.js'), specGroupsModule(specs));
  writeFileSync(join(dirname(process.argv[2]), 'presentation.json'), JSON.stringify(generatePresentation(specs), null, 1) + '\n');
  writeFileSync(join(dirname(process.argv[2]), 'operations.json'), JSON.stringify(await generateOperations(), null, 1) + '\n');
}
