import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { endpoints, type AnyEndpoint } from '../../src/contract/index.js';
import { testEnv, type TestEnv } from '../helpers/server.js';

/** Production is not the sandbox (issue 18, items 16 and 17). */
let prod: TestEnv;
beforeEach(async () => {
  prod = await testEnv({ mode: 'production' });
});
afterEach(async () => {
  await prod.close();
});

const sandboxOps = (endpoints as readonly AnyEndpoint[]).filter((e) => e.sandbox);

describe('/openapi.json in production (18.16)', () => {
  it('leaves out the sandbox operations, which do not exist there, and keeps every other one', async () => {
    expect(sandboxOps.length).toBeGreaterThan(0);
    const doc = await (await prod.rt.app.request('/openapi.json')).json();
    const ops = Object.values(doc.paths as Record<string, Record<string, { operationId: string; 'x-sandbox-only'?: boolean }>>).flatMap((p) => Object.values(p));
    const ids = ops.map((o) => o.operationId);
    for (const e of sandboxOps) expect(ids, e.id).not.toContain(e.id);
    expect(ops.some((o) => o['x-sandbox-only'])).toBe(false);
    expect(ids.sort()).toEqual((endpoints as readonly AnyEndpoint[]).filter((e) => !e.sandbox).map((e) => e.id).sort());
    // no path left without operations
    for (const [p, item] of Object.entries(doc.paths as Record<string, object>)) expect(Object.keys(item).length, p).toBeGreaterThan(0);
  });

  it('the sandbox document still lists them, marked x-sandbox-only', async () => {
    const sandbox = await testEnv();
    try {
      const doc = await (await sandbox.rt.app.request('/openapi.json')).json();
      const ids = Object.values(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap((p) => Object.values(p)).map((o) => o.operationId);
      for (const e of sandboxOps) expect(ids).toContain(e.id);
    } finally {
      await sandbox.close();
    }
  });
});
