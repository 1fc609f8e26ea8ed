import { join } from 'node:path';
import type { Db, Queryable, SqlValue } from '../../src/store/db.js';
import { openSqlite, type SqliteDb } from '../../src/store/sqlite.js';
import { testEnv, type TestEnv } from './server.js';

const WRITE = /^\s*(INSERT|UPDATE|DELETE)\b/i;

/** A Db that hands every call to the store `target()` names: the base of the tests' wrappers (no change token). */
export abstract class ForwardingDb implements Db {
  protected abstract target(): Db;
  get dialect() {
    return this.target().dialect;
  }
  all<T>(sql: string, params?: readonly SqlValue[]) {
    return this.target().all<T>(sql, params);
  }
  get<T>(sql: string, params?: readonly SqlValue[]) {
    return this.target().get<T>(sql, params);
  }
  run(sql: string, params?: readonly SqlValue[]) {
    return this.target().run(sql, params);
  }
  tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
    return this.target().tx(fn);
  }
  close() {
    return this.target().close();
  }
}

/**
 * A Db that crashes on purpose: once armed with `failAt = k`, the k-th write inside a
 * transaction throws, as a process dying between two writes would stop the transaction.
 */
export class FaultyDb extends ForwardingDb {
  failAt: number | null = null;
  writes = 0;
  constructor(readonly inner: SqliteDb) {
    super();
  }
  protected target(): Db {
    return this.inner;
  }
  arm(k: number) {
    this.writes = 0;
    this.failAt = k;
  }
  disarm() {
    this.failAt = null;
  }
  private tick(sql: string) {
    if (!WRITE.test(sql)) return;
    this.writes++;
    if (this.failAt !== null && this.writes === this.failAt) throw new Error(`injected crash before write ${this.failAt}: ${sql.trim().split(/\s+/).slice(0, 3).join(' ')}`);
  }
  override tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
    return this.inner.tx((q) =>
      fn({
        dialect: q.dialect,
        all: (sql, p) => q.all(sql, p),
        get: async (sql, p) => {
          this.tick(sql);
          return q.get(sql, p);
        },
        run: async (sql, p) => {
          this.tick(sql);
          return q.run(sql, p);
        },
      }),
    );
  }
}

/** testEnv() on a FaultyDb over SQLite (snapshot() reads SQLite's catalogue). */
export async function faultyEnv(opts: Omit<Parameters<typeof testEnv>[0] & {}, 'openDb'> = {}): Promise<TestEnv & { fdb: FaultyDb }> {
  let fdb: FaultyDb | undefined;
  const env = await testEnv({ ...opts, openDb: async (dir) => (fdb = new FaultyDb(await openSqlite(join(dir, 'mpay.db')))) });
  return Object.assign(env, { fdb: fdb! });
}

/** Every row of every table (but the idempotency cache), in a stable order. */
export async function snapshot(db: Db): Promise<Record<string, unknown[]>> {
  const tables = await db.all<{ name: string }>(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT IN ('idempotency_keys', 'schema_migrations') ORDER BY name",
  );
  const out: Record<string, unknown[]> = {};
  for (const { name } of tables) {
    const rows = await db.all<Record<string, unknown>>(`SELECT * FROM ${name}`);
    out[name] = rows.map((r) => JSON.stringify(r)).sort();
  }
  return out;
}
