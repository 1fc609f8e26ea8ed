import Database from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Db, Dialect, Queryable, Row, SqlValue } from './db.js';
import { UniqueViolation } from './db.js';
import { migrate } from './migrate.js';

const dialect: Dialect = { name: 'sqlite', forUpdate: '', skipLocked: '' };

/**
 * The driver's native module, named directly where a CommonJS `require` can resolve it (the
 * CLI's bundle, which carries better-sqlite3's JavaScript): the `bindings` package's search of
 * a dozen paths for it is skipped. The first place the resolver would look (the bundle's own
 * package's node_modules) is asked with one stat: the resolver reads package.json files on the
 * way (~1 ms of every embedded command, bench/startup). Elsewhere (ES modules) undefined, and the
 * driver searches.
 */
const NATIVE = 'better-sqlite3/build/Release/better_sqlite3.node';
function nativeBinding(): string | undefined {
  if (typeof require !== 'function') return undefined;
  const own = typeof __dirname === 'string' ? join(__dirname, '..', 'node_modules', NATIVE) : undefined;
  if (own && existsSync(own)) return own;
  try {
    return require.resolve(NATIVE);
  } catch {
    return undefined;
  }
}
const driverOptions = (): Database.Options => {
  const path = nativeBinding();
  return path ? { nativeBinding: path } : {};
};

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

/** A prepared statement, and for one that returns rows the function that makes a row object. */
interface Prepared {
  stmt: Database.Statement;
  row?: RowMaker;
}

type RowMaker = ((values: unknown[]) => Row) & { width: number };

/** Statements kept prepared per connection (as many as PgDb keeps texts). */
const STATEMENTS = 2_000;
const statementCache = () => new LRUCache<string, Prepared>({ max: STATEMENTS });

/**
 * Prepares a statement. One that returns rows answers arrays (better-sqlite3's raw mode),
 * turned into objects by a function compiled once for its columns: an object literal of a
 * fixed shape costs V8 a fraction of the property-by-property objects the driver builds
 * (a 32-column charge row is the hot case). Same object, same key order, a later
 * duplicate column winning as before; a column named __proto__ is an own property.
 */
function prepare(conn: Database.Database, sql: string): Prepared {
  const stmt = conn.prepare(sql);
  if (!stmt.reader) return { stmt };
  stmt.raw(true);
  return { stmt, row: rowMaker(stmt) };
}

function rowMaker(stmt: Database.Statement): RowMaker {
  const names = stmt.columns().map((c) => c.name);
  // a plain `"__proto__": …` in a literal would set the prototype: a computed key is an own property
  const body = names.map((n, i) => (n === '__proto__' ? `["__proto__"]: v[${i}]` : `${JSON.stringify(n)}: v[${i}]`)).join(', ');
  return Object.assign(new Function('v', `return { ${body} };`) as (values: unknown[]) => Row, { width: names.length });
}

/**
 * The row maker for values of this width. SQLite re-prepares a statement when the schema
 * changes under it (another process adding a column, say), and a `SELECT *` then answers
 * more or fewer columns: the maker is rebuilt from the statement's new columns.
 */
function makerFor(p: Prepared, values: unknown[]): RowMaker {
  if (p.row!.width !== values.length) p.row = rowMaker(p.stmt);
  return p.row!;
}

/** Work waiting for the connection: a plain read (or write) outside a transaction, or a transaction. */
type Job =
  | { kind: 'stmt'; run: () => unknown; resolve: (v: any) => void; reject: (e: unknown) => void }
  | { kind: 'tx'; fn: (q: Queryable) => Promise<unknown>; resolve: (v: any) => void; reject: (e: unknown) => void };

type TxJob = Extract<Job, { kind: 'tx' }>;

/** The WAL file's size once it restarts (bytes): what it is cut back to after it grew past it. */
export const WAL_SIZE_LIMIT = 16 * 1024 * 1024;

/** A group commit holds at most this many transactions… */
export const GROUP_MAX_TX = 256;
/** …and keeps the write lock at most this long (ms) before it commits. */
export const GROUP_MAX_MS = 20;

/**
 * The database holds personal data: its file is the owner's alone (0600), whatever the
 * directory's mode or the umask. Created that way when missing, narrowed when it exists.
 */
function ownerOnly(file: string): void {
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
  try {
    chmodSync(file, 0o600);
  } catch (e) {
    const mode = statSync(file).mode & 0o777;
    if ((e as NodeJS.ErrnoException).code !== 'EPERM' || (mode & 0o077) === 0) throw e;
    // another user's file that others may read: refuse rather than write personal data into it
    throw new Error(`${file} is readable by other users (mode 0${mode.toString(8)}) and this user cannot change that; run: chmod 600 ${file}`);
  }
}

/**
 * SQLite on a file: WAL, synchronous=FULL, a busy timeout so several processes can share the
 * file, BEGIN IMMEDIATE for every write transaction. One connection per process writes (a
 * second one reads, below).
 *
 * Transactions are group-committed: the transactions waiting for the connection when one
 * starts, and those that arrive while each turn of the event loop brings more, run one after
 * another inside a single SQLite transaction, each in a SAVEPOINT of its
 * own (a transaction that throws is rolled back to its savepoint and fails alone, once the
 * group has committed), and one COMMIT — one fsync of the WAL at synchronous=FULL — makes
 * them all durable. No transaction's promise resolves before that COMMIT returns, so nothing
 * is acknowledged before it is on disk; if the COMMIT fails, every transaction of the group
 * fails.
 *
 * Plain statements (reads outside a transaction) never see rows that are not committed and
 * never wait for a group: when no group is open they run at once on the connection; while one
 * is open they run on a second connection of the process that only reads (`query_only`), which
 * in WAL mode reads the last committed state of the file. So a request's reads (its key, its
 * card token) go on while a group is being written, and its transaction can join that group
 * instead of waiting for the COMMIT and starting the next one. (A database in memory has no
 * second connection: there, plain statements wait for the group to commit.)
 */
export class SqliteDb implements Db {
  readonly dialect = dialect;
  private readonly conn: Database.Database;
  /**
   * prepared statements by their text, the least recently used dropped past STATEMENTS: the
   * code's texts are a fixed set but for `IN (?, …)` lists, one text per list length
   */
  private readonly stmts = statementCache();
  /** the connection for plain statements while a group is open (opened on first need); null in memory */
  private reader: { conn: Database.Database; stmts: LRUCache<string, Prepared> } | null | undefined;
  private readonly jobs: Job[] = [];
  private draining = false;
  private readonly inner: Queryable;
  private readonly dataVersion: Database.Statement;
  /** the -shm file (the WAL index) open for reading the change token; null where there is none */
  private shm: number | null | undefined;
  private readonly shmHeader = Buffer.alloc(96);
  private closed = false;
  /** groups this connection committed (data_version counts only other connections' commits), and the transactions in them */
  readonly groups = { commits: 0, transactions: 0 };
  private readonly busyTimeoutMs: number;

  constructor(readonly file: string, opts: { busyTimeoutMs?: number } = {}) {
    if (file !== ':memory:') {
      mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
      ownerOnly(file);
    }
    this.conn = new Database(file, driverOptions());
    this.busyTimeoutMs = opts.busyTimeoutMs ?? 30_000;
    this.conn.pragma(`busy_timeout = ${this.busyTimeoutMs}`);
    this.conn.pragma('journal_mode = WAL');
    // SQLite gives -wal and -shm the database file's mode; set them too, in case they were left
    // behind by an older version with a wider one
    if (file !== ':memory:') for (const f of [`${file}-wal`, `${file}-shm`]) if (existsSync(f)) ownerOnly(f);
    this.conn.pragma('synchronous = FULL');
    this.conn.pragma('foreign_keys = ON');
    // reads of large lists walk indexes: a 32 MiB page cache and the file mapped (256 MiB)
    this.conn.pragma('cache_size = -32768');
    if (file !== ':memory:') this.conn.pragma('mmap_size = 268435456');
    // each transaction of a group runs in a savepoint, whose journal of the pages it changes
    // would otherwise spill to a temp file past 64 KiB: keep it (and any temp table) in memory
    this.conn.pragma('temp_store = MEMORY');
    // a reader that holds a snapshot (another process stopped inside a read) keeps the WAL
    // from restarting, and it grows for as long (hundreds of MB under load); SQLite never
    // shrinks the file by itself, so without a limit it stays that size on disk afterwards.
    // At the first commit after the WAL restarts, a file above the limit is cut back to it;
    // the steady WAL (~1000 pages, ~4.5 MB) stays well below, so this never cuts a WAL in use.
    this.conn.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT}`);
    this.dataVersion = this.conn.prepare('PRAGMA data_version').pluck();
    this.inner = {
      dialect,
      all: async (sql, params) => this.allSync(sql, params),
      get: async (sql, params) => this.getSync(sql, params),
      run: async (sql, params) => this.runSync(sql, params),
    };
  }

  private stmt(sql: string, on: 'writer' | 'reader' = 'writer'): Prepared {
    const stmts = on === 'writer' ? this.stmts : this.reader!.stmts;
    let s = stmts.get(sql);
    if (!s) {
      s = prepare(on === 'writer' ? this.conn : this.reader!.conn, sql);
      stmts.set(sql, s);
    }
    return s;
  }
  private allSync<T>(sql: string, params?: readonly SqlValue[], on: 'writer' | 'reader' = 'writer'): T[] {
    try {
      const p = this.stmt(sql, on);
      const rows = p.stmt.all(...bind(params)) as unknown[][];
      if (!p.row || rows.length === 0) return rows as T[];
      const row = makerFor(p, rows[0]!);
      return rows.map(row) as T[];
    } catch (e) {
      translate(e);
    }
  }
  private getSync<T>(sql: string, params?: readonly SqlValue[], on: 'writer' | 'reader' = 'writer'): T | undefined {
    try {
      const p = this.stmt(sql, on);
      const r = p.stmt.get(...bind(params)) as unknown[] | undefined;
      return (p.row && r ? makerFor(p, r)(r) : r) as T | undefined;
    } catch (e) {
      translate(e);
    }
  }
  private runSync(sql: string, params?: readonly SqlValue[]): { changes: number } {
    try {
      return { changes: this.stmt(sql).stmt.run(...bind(params)).changes };
    } catch (e) {
      translate(e);
    }
  }

  /**
   * A statement outside any transaction: at once on the connection when it is idle; while a
   * group is open, a read runs at once on the reading connection (the committed state), and
   * a write (an UPDATE … RETURNING through get, say), or any statement where there is no
   * reading connection, waits for the COMMIT.
   */
  private statement<T>(sql: string, run: (on: 'writer' | 'reader') => T): Promise<T> {
    const idle = !this.draining && this.jobs.length === 0;
    if (idle || (this.readerOpen() && this.readsOnly(sql))) {
      try {
        return Promise.resolve(run(idle ? 'writer' : 'reader'));
      } catch (e) {
        return Promise.reject(e);
      }
    }
    return new Promise<T>((resolve, reject) => {
      this.jobs.push({ kind: 'stmt', run: () => run('writer'), resolve, reject });
    });
  }

  /** Whether the statement only reads (SQLite says, from the statement prepared on the writing connection). */
  private readsOnly(sql: string): boolean {
    try {
      return this.stmt(sql).stmt.readonly;
    } catch {
      // a statement that does not prepare fails the same way when it runs, after the COMMIT
      return false;
    }
  }

  /**
   * Opens the reading connection on first need. False for a database in memory, once closed,
   * and when it cannot be opened now (no file descriptor left, say): statements then wait for
   * the COMMIT as they would without one, and the next group tries again.
   */
  private readerOpen(): boolean {
    if (this.reader === undefined) {
      if (this.file === ':memory:') this.reader = null;
      else if (this.closed) return false;
      else {
        let conn: Database.Database | undefined;
        try {
          conn = new Database(this.file, driverOptions());
          conn.pragma(`busy_timeout = ${this.busyTimeoutMs}`);
          conn.pragma('query_only = ON');
          conn.pragma('cache_size = -32768');
          // no memory mapping here (mmap_size 0): SQLite unmaps a mapped file whenever another
          // connection has committed since its last read, and maps it again at its next page.
          // This connection reads between the writer's commits, so under a write load that was
          // an munmap and an mmap (and the page faults after them) at nearly every read, where
          // pread reads only the pages it needs
          conn.pragma('temp_store = MEMORY');
        } catch {
          conn?.close();
          return false;
        }
        this.reader = { conn, stmts: statementCache() };
      }
    }
    return this.reader !== null;
  }

  all<T = Row>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
    return this.statement(sql, (on) => this.allSync<T>(sql, params, on));
  }
  get<T = Row>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined> {
    return this.statement(sql, (on) => this.getSync<T>(sql, params, on));
  }
  /** A write outside a transaction is a transaction of one statement (it joins a group commit). */
  run(sql: string, params?: readonly SqlValue[]): Promise<{ changes: number }> {
    return this.tx(async (q) => q.run(sql, params));
  }

  tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.closed) return reject(new Error('the store is closed'));
      this.jobs.push({ kind: 'tx', fn, resolve, reject });
      if (!this.draining) void this.drain();
    });
  }

  /**
   * Changes whenever a transaction commits, on this connection or on any other (another
   * process sharing the file): a value to validate an in-process cache of rows with. While a
   * group is being written it is the committed state's, the one plain statements read then
   * (on the reading connection); in memory, where they wait for the COMMIT, it is undefined
   * (no cache may be trusted then).
   *
   * It is read from the WAL-index header in the -shm file, which every connection to the
   * database maps and SQLite rewrites at every commit (and when the WAL restarts): one pread
   * of 96 bytes, where `PRAGMA data_version` opens and closes a read transaction (its shm locks)
   * per call. When the header cannot be read whole (a commit publishing it: its two copies
   * differ) or there is no -shm, data_version answers instead.
   */
  changeToken(): string | undefined {
    // while a group is open, plain statements read the committed state on the reading
    // connection, and the token is that state's; without one they wait for the COMMIT
    if (this.closed || (this.draining && !this.readerOpen())) return undefined;
    const header = this.walIndexHeader();
    if (header === undefined) return `v${this.dataVersion.get() as number}:${this.groups.commits}`;
    // the same header and commit count as last time: the same string (no new one per request)
    if (header !== this.lastHeader || this.groups.commits !== this.lastCommits) {
      this.lastHeader = header;
      this.lastCommits = this.groups.commits;
      this.lastToken = `w${header}:${this.groups.commits}`;
    }
    return this.lastToken;
  }
  private lastHeader = '';
  private lastCommits = -1;
  private lastToken = '';

  /**
   * The WAL-index header: two copies of 48 bytes (iVersion, iChange — counted up at every
   * commit —, isInit, the page size, mxFrame, nPage, the last frame's checksum, the salts, the
   * header's checksum). SQLite writes the second copy first and readers trust the header only
   * when both agree: the same rule here. Undefined when they differ or the index is not set up.
   */
  private walIndexHeader(): string | undefined {
    if (this.shm === undefined) {
      // opened once: this connection keeps the -shm in place for as long as it is open
      try {
        this.shm = this.file === ':memory:' ? null : openSync(`${this.file}-shm`, 'r');
      } catch {
        this.shm = null;
      }
    }
    if (this.shm === null) return undefined;
    const h = this.shmHeader;
    if (readSync(this.shm, h, 0, 96, 0) !== 96 || h[12] !== 1 || h.compare(h, 48, 96, 0, 48) !== 0) return undefined;
    // unchanged since the last read: the string made then
    if (this.shmText !== '' && h.compare(this.shmLast, 0, 48, 0, 48) === 0) return this.shmText;
    h.copy(this.shmLast, 0, 0, 48);
    this.shmText = h.toString('latin1', 0, 48);
    return this.shmText;
  }
  private readonly shmLast = Buffer.alloc(48);
  private shmText = '';

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.jobs.length) {
        const first = this.jobs[0]!;
        if (first.kind === 'stmt') {
          this.jobs.shift();
          try {
            first.resolve(first.run());
          } catch (e) {
            first.reject(e);
          }
          continue;
        }
        await this.group();
      }
    } finally {
      this.draining = false;
    }
  }

  /**
   * One group commit: the queued transactions, each in a savepoint. Every one of them settles
   * after the COMMIT, the ones that threw (rolled back to their savepoint) too: what a caller
   * does on a failure — read the row another transaction of the group won a UNIQUE race with,
   * say — then sees the group committed, as plain statements on the reading connection see
   * only committed rows. At most GROUP_MAX_TX transactions, failed ones included.
   */
  private async group(): Promise<void> {
    /** the group's transactions in order: each with its value, or with the error it threw */
    const ran: { job: TxJob; ok: boolean; value: unknown }[] = [];
    const started = performance.now();
    try {
      this.conn.exec('BEGIN IMMEDIATE');
    } catch (e) {
      // the write lock could not be had (another process kept it past the busy timeout)
      for (const j of this.takeTx(Infinity)) j.reject(e);
      return;
    }
    let yielded = false;
    for (;;) {
      const batch = this.takeTx(GROUP_MAX_TX - ran.length);
      if (!batch.length) {
        // let requests already under way reach their transactions before the fsync: a turn of
        // the event loop (its I/O: requests read and run up to their transactions), and another
        // for as long as each brings the group more (up to GROUP_MAX_TX and GROUP_MAX_MS), so
        // under load a group holds about every request in flight, each sharing its fsync and
        // the index pages every commit rewrites; the first turn that brings none commits
        if (yielded || ran.length === 0 || ran.length >= GROUP_MAX_TX || performance.now() - started > GROUP_MAX_MS) break;
        yielded = true;
        await new Promise((r) => setImmediate(r));
        continue;
      }
      yielded = false; // this turn brought some: the next may too
      for (const job of batch) {
        this.conn.exec('SAVEPOINT tx');
        try {
          const value = await job.fn(this.inner);
          this.conn.exec('RELEASE tx');
          ran.push({ job, ok: true, value });
        } catch (e) {
          if (!this.conn.inTransaction) {
            // the engine rolled the whole transaction back (I/O error, disk full): the group is lost
            job.reject(e);
            for (const r of ran) r.job.reject(r.ok ? e : r.value);
            for (const j of batch.slice(batch.indexOf(job) + 1)) j.reject(e);
            return;
          }
          this.conn.exec('ROLLBACK TO tx');
          this.conn.exec('RELEASE tx');
          ran.push({ job, ok: false, value: e });
        }
      }
    }
    try {
      this.conn.exec('COMMIT');
    } catch (e) {
      if (this.conn.inTransaction) this.conn.exec('ROLLBACK');
      for (const r of ran) r.job.reject(r.ok ? e : r.value);
      return;
    }
    this.groups.commits++;
    for (const r of ran) {
      if (r.ok) {
        this.groups.transactions++;
        r.job.resolve(r.value);
      } else r.job.reject(r.value);
    }
  }

  /** Takes up to n queued transactions, in order, leaving statements queued. */
  private takeTx(n: number): TxJob[] {
    const out: TxJob[] = [];
    for (let i = 0; i < this.jobs.length && out.length < n; ) {
      const j = this.jobs[i]!;
      if (j.kind === 'tx') {
        out.push(j);
        this.jobs.splice(i, 1);
      } else i++;
    }
    return out;
  }

  /** Runs raw DDL; used by migrations only. */
  execScript(sql: string): void {
    this.conn.exec(sql);
  }

  async close(): Promise<void> {
    while (this.draining || this.jobs.length) await new Promise((r) => setImmediate(r));
    this.closed = true;
    // once only: a second close() must not close a descriptor number reused since
    if (typeof this.shm === 'number') closeSync(this.shm);
    this.shm = null;
    this.reader?.conn.close();
    this.reader = null;
    this.conn.close();
  }
}

export async function openSqlite(file: string): Promise<SqliteDb> {
  const db = new SqliteDb(file);
  await migrate(db, (_q, sql) => db.execScript(sql));
  return db;
}
