import { join } from 'node:path';
import { uuidv7 } from '../domain/ids.js';
import { DEFAULT_PRICING, type Pricing } from '../domain/pricing.js';
import { openSqlite } from '../store/sqlite.js';
import type { Db } from '../store/db.js';
import { defaultFileStore, type FileStore } from '../store/files.js';
import { createApp } from './app.js';
import { newCaches } from './services/caches.js';
import { WindowDuePolicy, type DuePolicy } from './pipeline/due.js';
import { systemClock, type Clock } from './clock.js';
import type { AppDeps, Mode } from './context.js';
import { Keyring } from './keyring.js';
import { keyUnkeyedRequestHashes } from './services/withdrawals.js';

export interface RuntimeOptions {
  dataDir: string;
  mode?: Mode;
  /** the server's pricing, already checked (src/contract/resources/pricing.ts parsePricing); default: the defaults */
  pricing?: Pricing;
  clock?: Clock;
  log?: AppDeps['log'];
  publicBaseUrl?: string;
  rateLimit?: AppDeps['rateLimit'];
  checkoutRateLimit?: AppDeps['checkoutRateLimit'];
  uploadLimits?: AppDeps['uploadLimits'];
  trustProxy?: AppDeps['trustProxy'];
  validateResponses?: boolean;
  /** AppDeps.readMemo: charge reads served again from an answer made at the same database state (default true) */
  readMemo?: boolean;
  /** an already-open store (tests); default: `databaseUrl`, else SQLite in the data directory */
  db?: Db;
  /** a PostgreSQL URL (postgres://…): the store every replica shares; migrations applied on open */
  databaseUrl?: string;
  /** where uploads go; default: the database on PostgreSQL, `<dataDir>/uploads` on SQLite */
  files?: FileStore;
  /** when requests run their merchant's due work (default: WindowDuePolicy, src/server/pipeline/due.ts) */
  due?: DuePolicy;
}

export interface Runtime {
  deps: AppDeps;
  app: ReturnType<typeof createApp>;
  close(): Promise<void>;
}

/** Opens the store and keys of a data directory and builds the app on them. */
export async function openRuntime(o: RuntimeOptions): Promise<Runtime> {
  const db =
    o.db ??
    (o.databaseUrl
      ? await (await import('../store/postgres.js')).openPostgres(o.databaseUrl) // pg loads only when used
      : await openSqlite(join(o.dataDir, 'mpay.db')));
  const deps: AppDeps = {
    db,
    clock: o.clock ?? systemClock,
    ids: () => uuidv7(),
    keyring: Keyring.fromEnvOrDir(o.dataDir),
    dataDir: o.dataDir,
    files: o.files ?? defaultFileStore(db, o.dataDir),
    mode: o.mode ?? 'sandbox',
    pricing: o.pricing ?? DEFAULT_PRICING,
    log: o.log,
    publicBaseUrl: o.publicBaseUrl,
    rateLimit: o.rateLimit,
    checkoutRateLimit: o.checkoutRateLimit,
    uploadLimits: o.uploadLimits,
    trustProxy: o.trustProxy,
    validateResponses: o.validateResponses,
    readMemo: o.readMemo,
    caches: newCaches(),
    due: o.due ?? new WindowDuePolicy(),
  };
  // withdrawals written by an older version hold a plain digest of their request: key them
  const keyed = await keyUnkeyedRequestHashes(deps);
  if (keyed > 0) deps.log?.({ level: 'info', msg: 'keyed the request hashes of withdrawals written by an older version', rows: keyed });
  const app = createApp(deps);
  return { deps, app, close: () => db.close() };
}
