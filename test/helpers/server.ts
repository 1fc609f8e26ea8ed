import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Db } from '../../src/store/db.js';
import { openRuntime, type Runtime } from '../../src/server/runtime.js';
import { ManualClock } from './clock.js';
import { createMerchant, type NewMerchant } from '../../src/server/services/merchants.js';
import { openPostgres } from '../../src/store/postgres.js';
import { openSqlite } from '../../src/store/sqlite.js';
import { backend, freshPgSchema } from './backend.js';

export type TestSettings = NonNullable<Parameters<typeof testEnv>[0]>;

export interface TestEnv {
  rt: Runtime;
  /** what the env was built with */
  settings: TestSettings;
  dir: string;
  clock: ManualClock;
  merchant: NewMerchant;
  /** app.request with the merchant's credentials */
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any; headers: Headers }>;
  auth(m?: { public_key: string; secret_key: string }): string;
  newMerchant(name?: string): Promise<NewMerchant>;
  close(): Promise<void>;
}

export function basic(pk: string, sk: string): string {
  return 'Basic ' + Buffer.from(`${pk}:${sk}`).toString('base64');
}

/**
 * A real app on a real store, with a manual clock and one merchant: a SQLite file in a temp dir,
 * or, in the `postgres` vitest project, a fresh schema on the test server (dropped on close).
 */
export async function testEnv(
  opts: {
    rateLimit?: import('../../src/server/context.js').AppDeps['rateLimit'];
    /** AppDeps.checkoutRateLimit (default: the hosted checkout's defaults; null: none) */
    checkoutRateLimit?: import('../../src/server/context.js').AppDeps['checkoutRateLimit'];
    /** AppDeps.trustProxy: the proxies whose X-Forwarded-For is believed (default: none) */
    trustProxy?: import('../../src/server/context.js').AppDeps['trustProxy'];
    /** AppDeps.log (default: none) */
    log?: import('../../src/server/context.js').AppDeps['log'];
    /** AppDeps.validateResponses (default on: every answer checked against the contract) */
    validateResponses?: boolean;
    /** AppDeps.publicBaseUrl (default: the origin each request was addressed to) */
    publicBaseUrl?: string;
    /** AppDeps.uploadLimits; default: no upload rate (like the other rate limits), the quota and retention as a server has them */
    uploadLimits?: import('../../src/server/context.js').AppDeps['uploadLimits'];
    mode?: 'sandbox' | 'production';
    /** a store of the test's own making (e.g. one that injects faults), instead of the backend's */
    openDb?: (dir: string) => Promise<Db>;
    /** the backend's store as the runtime sees it, through a wrapper of the test's making */
    wrapDb?: (db: Db) => Db;
    /** AppDeps.readMemo (default on, as in production) */
    readMemo?: boolean;
    /** when requests run the due work (default: the service's window, test/helpers/due.ts has others) */
    due?: import('../../src/server/pipeline/due.js').DuePolicy;
    /** the server's pricing (default: the defaults) */
    pricing?: import('../../src/domain/pricing.js').Pricing;
  } = {},
): Promise<TestEnv> {
  const dir = mkdtempSync(join(tmpdir(), 'mpay-test-'));
  const clock = new ManualClock();
  const pgSchema = backend === 'postgres' && !opts.openDb ? await freshPgSchema() : undefined;
  const opened = opts.openDb
    ? await opts.openDb(dir)
    : pgSchema
      ? await openPostgres(pgSchema.url)
      : opts.wrapDb
        ? await openSqlite(join(dir, 'mpay.db'))
        : undefined;
  const db = opened && opts.wrapDb ? opts.wrapDb(opened) : opened;
  const rt = await openRuntime({ dataDir: dir, clock, validateResponses: opts.validateResponses ?? true, rateLimit: opts.rateLimit ?? null, checkoutRateLimit: opts.checkoutRateLimit, trustProxy: opts.trustProxy, log: opts.log, publicBaseUrl: opts.publicBaseUrl, uploadLimits: opts.uploadLimits ?? { rate: null }, mode: opts.mode, db, readMemo: opts.readMemo, due: opts.due, pricing: opts.pricing });
  const newMerchant = (name = 'Loja Teste') => rt.deps.db.tx((q) => createMerchant(q, rt.deps, name, clock.now()));
  const merchant = await newMerchant();
  const auth = (m = merchant) => basic(m.public_key, m.secret_key);
  return {
    rt,
    settings: opts,
    dir,
    clock,
    merchant,
    auth,
    newMerchant,
    async call(method, path, body, headers = {}) {
      const init: RequestInit = { method, headers: { authorization: auth(), ...headers } };
      if (body !== undefined) {
        init.body = typeof body === 'string' ? body : JSON.stringify(body);
        (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
      }
      const res = await rt.app.request(path, init);
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        /* not JSON */
      }
      return { status: res.status, body: parsed as any, headers: res.headers };
    },
    async close() {
      await rt.close();
      await pgSchema?.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A test that needs other settings than its file's env: that env closed, and a new one built with
 * its settings and `settings` over them (a runtime's settings are fixed once it is built).
 */
export async function reopen(env: TestEnv, settings: TestSettings): Promise<TestEnv> {
  await env.close();
  return testEnv({ ...env.settings, ...settings });
}
