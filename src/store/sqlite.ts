import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Db, Dialect, Queryable, Row, SqlValue } from './db.js';
import { UniqueViolation } from './db.js';
import { migrate } from './migrate.js';

const dialect: Dialect = { name: 'sqlite', forUpdate: '', skipLocked: '' };

function bind(params: readonly SqlValue[] | undefined): unknown[] {
  if (!params) return [];
  return params.map((p) => (typeof p === 'boolean' ? (p ? 1 : 0) : p));
}

function translate(e: unknown): never {
  const err = e as { code?: string; message?: string };
  if (err?.code === 'SQLITE_CONSTRAINT_UNIQUE' || err?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    const m = /UNIQUE constraint failed: (.*)$/.exec(err.message ?? '');
    throw new UniqueViolation(m?.[1] ?? 'unique');
  }
  throw e;
}

/**
 * SQLite on a file: WAL, synchronous=FULL, a busy timeout so several processes can share the
 * file, BEGIN IMMEDIATE for every write transaction. One connection per process; an async
 * mutex keeps one transaction at a time on it, and plain reads wait for a transaction in
 * progress so they never see its uncommitted rows.
 */
export class SqliteDb implements Db {
  readonly dialect = dialect;
  private readonly conn: Database.Database;
  private readonly stmts = new Map<string, Database.Statement>();
  private queue: Promise<unknown> = Promise.resolve();
  private readonly inner: Queryable;

  constructor(readonly file: string, opts: { busyTimeoutMs?: number } = {}) {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    this.conn = new Database(file);
    this.conn.pragma(`busy_timeout = ${opts.busyTimeoutMs ?? 30_000}`);
    this.conn.pragma('journal_mode = WAL');
    this.conn.pragma('synchronous = FULL');
    this.conn.pragma('foreign_keys = ON');
    // reads of large lists walk indexes: a 32 MiB page cache and the file mapped (256 MiB)
    this.conn.pragma('cache_size = -32768');
    if (file !== ':memory:') this.conn.pragma('mmap_size = 268435456');
    const self = this;
    this.inner = {
      dialect,
      all: async (sql, params) => self.allSync(sql, params),
      get: async (sql, params) => self.getSync(sql, params),
      run: async (sql, params) => self.runSync(sql, params),
    };
  }

  private stmt(sql: string): Database.Statement {
    let s = this.stmts.get(sql);
    if (!s) {
      s = this.conn.prepare(sql);
      this.stmts.set(sql, s);
    }
    return s;
  }
  private allSync<T>(sql: string, params?: readonly SqlValue[]): T[] {
    try {
      return this.stmt(sql).all(...bind(params)) as T[];
    } catch (e) {
      translate(e);
    }
  }
  private getSync<T>(sql: string, params?: readonly SqlValue[]): T | undefined {
    try {
      return this.stmt(sql).get(...bind(params)) as T | undefined;
    } catch (e) {
      translate(e);
    }
  }
  private runSync(sql: string, params?: readonly SqlValue[]): { changes: number } {
    try {
      return { changes: this.stmt(sql).run(...bind(params)).changes };
    } catch (e) {
      translate(e);
    }
  }

  private exclusive<T>(fn: () => Promise<T> | T): Promise<T> {
    const next = this.queue.then(fn, fn);
    this.queue = next.catch(() => undefined);
    return next;
  }

  all<T = Row>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
    return this.exclusive(() => this.allSync<T>(sql, params));
  }
  get<T = Row>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined> {
    return this.exclusive(() => this.getSync<T>(sql, params));
  }
  run(sql: string, params?: readonly SqlValue[]): Promise<{ changes: number }> {
    return this.exclusive(() => this.runSync(sql, params));
  }

  tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
    return this.exclusive(async () => {
      this.conn.exec('BEGIN IMMEDIATE');
      try {
        const out = await fn(this.inner);
        this.conn.exec('COMMIT');
        return out;
      } catch (e) {
        if (this.conn.inTransaction) this.conn.exec('ROLLBACK');
        throw e;
      }
    });
  }

  /** Runs raw DDL; used by migrations only. */
  execScript(sql: string): void {
    this.conn.exec(sql);
  }

  async close(): Promise<void> {
    await this.queue;
    this.conn.close();
  }
}

export async function openSqlite(file: string): Promise<SqliteDb> {
  const db = new SqliteDb(file);
  await migrate(db, (_q, sql) => db.execScript(sql));
  return db;
}
