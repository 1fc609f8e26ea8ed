// Callers' types come from the contract (BodyOf, QueryOf, DataOf, ParamsOf), so
// src/ casts nothing to `never` to get past them and re-declares no response shape with
// `.data as { … }`. The few `as never` left are listed here, each with its reason: a new one
// fails this test (take the type from the contract instead); removing one means lowering its count here.
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceFiles as sources } from '../helpers/sources.js';

const root = join(import.meta.dirname, '../..');

/** file → the lines (1-based) where `pattern` occurs */
function occurrences(pattern: RegExp): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const f of sources(join(root, 'src'))) {
    const lines = readFileSync(f, 'utf8').split('\n');
    const at = lines.flatMap((l, i) => (pattern.test(l) ? [i + 1] : []));
    if (at.length) out[relative(root, f).split('\\').join('/')] = at;
  }
  return out;
}

const counts = (o: Record<string, number[]>) => Object.fromEntries(Object.entries(o).map(([f, at]) => [f, at.length]));

/** The `as never` that remain, per file, and why. */
const AS_NEVER_ALLOWED: Record<string, number> = {
  // the dispatcher hands each endpoint's handler the query and body it parsed with that endpoint's schemas
  'src/server/pipeline/index.ts': 1,
  // a saved recipient's details are stored as strings; the destination wants the pix key type union
  'src/server/services/withdrawals.ts': 1,
  // undici's connect.lookup and node's dns.lookup overloads
  'src/server/webhooks/delivery.ts': 1,
};

describe('casts in src/', () => {
  it('no `as never` beyond the listed ones', () => {
    const found = occurrences(/\bas never\b/);
    expect(counts(found), JSON.stringify(found)).toEqual(AS_NEVER_ALLOWED);
  });

  it('no response shape re-declared with `.data as { … }`: DataOf types every answer', () => {
    expect(occurrences(/\.data as \{/)).toEqual({});
  });
});
