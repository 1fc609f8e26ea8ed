import Database from 'better-sqlite3';
import { AsyncLocalStorage } from 'node:async_hooks';
import { closeSync, fsync, mkdirSync, openSync } from 'node:fs';
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
 * Inside `deferDurability(fn)`, writes do not wait for their fsync one by one: the caller
 * awaits one `durable()` at the end (the app does, before it answers a request). WAL order
 * makes that enough: once the last commit is on disk, every earlier one is.
 */
const deferred = new AsyncLocalStorage<{ wrote: boolean }>();

export function deferDurability<T>(fn: () => Promise<T>): Promise<T> {
  return deferred.run({ wrote: false }, fn);
}

/**
 * SQLite on a file: WAL, a busy timeout so several processes can share the file, BEGIN
 * IMMEDIATE for every write transaction. One connection per process; an async mutex keeps one
 * transaction at a time on it, and plain reads wait for a transaction in progress so they
 * never see its uncommitted rows.
 *
 * Durability is a group commit: SQLite commits with synchronous=NORMAL (the WAL frames are
 * written, not fsync'd), and `tx()` / a writing `run()` resolves only after an fsync of the
 * WAL file that started after its COMMIT. The fsync runs on the libuv thread pool, so the
 * event loop keeps serving while the disk syncs, and every commit made meanwhile shares the
 * next fsync. What a caller is told is done is on disk, as with synchronous=FULL; a reader
 * may see a commit whose fsync is still in flight (its writer has not been answered yet).
 */
export class SqliteDb implements Db {
  readonly dialect = dialect;
  private readonly conn: Database.Database;
  private readonly stmts = new Map<string, Database.Statement>();
  private queue: Promise<unknown> = Promise.resolve();
  private readonly inner: Queryable;
  private walFd: number | null = null;
  private syncRunning: Promise<void> | null = null;
  private syncNext: Promise<void> | null = null;

  constructor(readonly file: string, opts: { busyTimeoutMs?: number } = {}) {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    this.conn = new Database(file);
    this.conn.pragma(`busy_timeout = ${opts.busyTimeoutMs ?? 30_000}`);
    this.conn.pragma('journal_mode = WAL');
    // NORMAL: commits do not fsync; durable() does, once for every commit made meanwhile
    this.conn.pragma(file === ':memory:' ? 'synchronous = FULL' : 'synchronous = NORMAL');
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
  async run(sql: string, params?: readonly SqlValue[]): Promise<{ changes: number }> {
    const r = await this.exclusive(() => this.runSync(sql, params));
    if (r.changes > 0) await this.afterWrite();
    return r;
  }

  async tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
    const out = await this.exclusive(async () => {
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
    await this.afterWrite();
    return out;
  }

  /** commits made on this connection, and how many of them the last finished fsync covers */
  private commits = 0;
  private syncedCommits = 0;

  private afterWrite(): Promise<void> {
    this.commits++;
    const d = deferred.getStore();
    if (d) {
      d.wrote = true;
      return Promise.resolve();
    }
    return this.durable();
  }

  deferDurability<T>(fn: () => Promise<T>): Promise<T> {
    return deferDurability(fn);
  }

  /**
   * Resolves once an fsync of the WAL that started after this call has finished: the commits
   * made before the call are on disk. Calls made while an fsync runs share the next one.
   */
  durable(): Promise<void> {
    if (this.file === ':memory:') return Promise.resolve();
    if (!this.syncRunning) {
      this.syncRunning = this.syncWal().finally(() => {
        this.syncRunning = null;
      });
      return this.syncRunning;
    }
    this.syncNext ??= this.syncRunning.then(
      () => {
        this.syncNext = null;
        return this.durable();
      },
      () => {
        this.syncNext = null;
        return this.durable();
      },
    );
    return this.syncNext;
  }

  private syncWal(): Promise<void> {
    if (this.walFd === null) {
      try {
        this.walFd = openSync(`${this.file}-wal`, 'r');
      } catch (e) {
        // no WAL file: nothing was committed through it since the last checkpoint removed it
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return Promise.resolve();
        throw e;
      }
    }
    const fd = this.walFd;
    const covers = this.commits;
    return new Promise((resolve, reject) =>
      fsync(fd, (err) => {
        if (err) return reject(err);
        this.syncedCommits = Math.max(this.syncedCommits, covers);
        resolve();
      }),
    );
  }

  /** Runs raw DDL; used by migrations only. */
  execScript(sql: string): void {
    this.conn.exec(sql);
  }

  async close(): Promise<void> {
    await this.queue;
    if (this.commits > this.syncedCommits) await this.durable().catch(() => undefined);
    await this.syncNext?.catch(() => undefined);
    await this.syncRunning?.catch(() => undefined);
    this.conn.close();
    if (this.walFd !== null) closeSync(this.walFd);
    this.walFd = null;
  }
}

export async function openSqlite(file: string): Promise<SqliteDb> {
  const db = new SqliteDb(file);
  await migrate(db, (sql) => db.execScript(sql));
  return db;
}
