// The server routes by a table generated from the contract and builds a resource's schemas when
// it first serves one of its endpoints (src/contract/loaders.ts): every endpoint of the contract
// must be in exactly one resource module, and the generated table must be the contract's.
import { describe, expect, it } from 'vitest';
import operations from '#generated/operations.json' with { type: 'json' };
import { endpoints, type AnyEndpoint } from '../../src/contract/index.js';
import { RESOURCE_LOADERS } from '../../src/contract/loaders.js';

describe('the contract by resource', () => {
  it('every endpoint is in exactly one resource module, the same object as in the endpoint table', async () => {
    const seen = new Map<string, string>();
    for (const [name, load] of Object.entries(RESOURCE_LOADERS)) {
      for (const e of await load()) {
        expect(seen.get(e.id), `${e.id} in ${name}`).toBeUndefined();
        seen.set(e.id, name);
        expect((endpoints as readonly AnyEndpoint[]).find((x) => x.id === e.id)).toBe(e);
      }
    }
    expect([...seen.keys()].sort()).toEqual(endpoints.map((e) => e.id).sort());
  });

  it('the generated route table is the contract’s, in its order', () => {
    expect(Object.keys(operations)).toEqual(endpoints.map((e) => e.id));
    for (const e of endpoints as readonly AnyEndpoint[]) {
      expect(operations[e.id]).toMatchObject({ method: e.method, path: e.path, auth: e.auth, sandbox: !!e.sandbox, multipart: !!e.multipart });
    }
  });
});
