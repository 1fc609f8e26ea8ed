import { LRUCache } from 'lru-cache';
import pg from 'pg';
import type { Db, Dialect, Queryable, Row, SqlValue } from './db.js';
import { StoreUnavailable, UniqueViolation } from './db.js';
import { migrate } from './migrate.js';

const dialect: Dialect = { name: 'postgres', forUpdate: ' FOR UPDATE', skipLocked: ' FOR UPDATE SKIP LOCKED' };

/** SQLSTATEs after which a whole transaction is worth running again. */
const SERIALIZATION_FAILURE = '40001';
const DEADLOCK_DETECTED = '40P01';
const UNIQUE_VIOLATION = '23505';

/** How many times `tx()` runs a transaction that lost a serialization race or a deadlock. */
const MAX_ATTEMPTS = 6;
/**
 * How many times `tx()` runs a transaction that hit a unique violation. Under READ COMMITTED a
 * check-then-insert (SELECT … FOR UPDATE finds nothing, INSERT) can lose to a concurrent
 * transaction inserting the same key; PostgreSQL reports 23505 only once the winner has
 * committed, so one more run sees the winner's row and takes the other branch. SQLite's
 * BEGIN IMMEDIATE serializes writers and never gets there. A violation that persists is a
 * real duplicate and surfaces as `UniqueViolation`.
 */
const MAX_UNIQUE_ATTEMPTS = 2;

function toSafeNumber(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n) && Number.isInteger(n)) throw new RangeError(`integer ${text} is beyond the safe range`);
  return n;
}

/**
 * BIGINT (int8, also what COUNT(*) returns) and NUMERIC (what SUM over BIGINT returns) come
 * back as JS numbers, like SQLite gives them: the store only holds integer cents and counts,
 * all within Number.MAX_SAFE_INTEGER. A value beyond that throws instead of losing precision.
 */
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === pg.types.builtins.INT8 || oid === pg.types.builtins.NUMERIC) return (v: string) => (v === null ? null : toSafeNumber(v));
    return pg.types.getTypeParser(oid, format as 'text');
  }) as pg.CustomTypesConfig['getTypeParser'],
};

/**
 * Rewrites the portable `?` placeholders as `$1, $2, …`. A `?` inside a string literal
 * ('…', with '' as the escape), a quoted identifier ("…"), a -- line comment or a block
 * comment is left alone.
 */
export function toPgPlaceholders(sql: string): string {
  let out = '';
  let n = 0;
  let i = 0;
  const len = sql.length;
  while (i < len) {
    const c = sql[i]!;
    if (c === "'" || c === '"') {
      const end = closing(sql, i + 1, c);
      out += sql.slice(i, end);
      i = end;
    } else if (c === '-' && sql[i + 1] === '-') {
      const nl = sql.indexOf('\n', i);
      const end = nl === -1 ? len : nl;
      out += sql.slice(i, end);
      i = end;
    } else if (c === '/' && sql[i + 1] === '*') {
      const close = sql.indexOf('*/', i + 2);
      const end = close === -1 ? len : close + 2;
      out += sql.slice(i, end);
      i = end;
    } else if (c === '?') {
      out += `$${++n}`;
      i++;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** Index just past the quote that closes a literal opened before `from` ('' / "" escape a quote). */
function closing(sql: string, from: number, quote: string): number {
  let i = from;
  for (;;) {
    const j = sql.indexOf(quote, i);
    if (j === -1) return sql.length;
    if (sql[j + 1] === quote) {
      i = j + 2;
      continue;
    }
    return j + 1;
  }
}

function bind(params: readonly SqlValue[] | undefined): unknown[] {
  if (!params) return [];
  return params.map((p) => {
    if (typeof p === 'boolean') return p ? 1 : 0; // flags are INTEGER 0/1 on both engines
    if (typeof p === 'bigint') return p.toString();
    if (p instanceof Uint8Array && !Buffer.isBuffer(p)) return Buffer.from(p.buffer, p.byteOffset, p.byteLength);
    return p;
  });
}

function codeOf(e: unknown): string | undefined {
  return (e as { code?: unknown })?.code as string | undefined;
}

/**
 * Errors that say the database cannot serve now rather than that the statement is wrong:
 * connection exceptions (08…), too many connections (53300), the server shutting down or
 * crashed (57P01–57P03), a pool that could not get a connection in time, a socket error.
 */
function unavailable(e: unknown): boolean {
  const code = codeOf(e);
  if (typeof code === 'string') {
    if (code.startsWith('08') || code === '53300' || code === '57P01' || code === '57P02' || code === '57P03') return true;
    if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE'].includes(code)) return true;
  }
  const msg = (e as Error)?.message ?? '';
  return /timeout exceeded when trying to connect|Connection terminated/i.test(msg);
}

function translate(e: unknown): unknown {
  if (e instanceof StoreUnavailable || e instanceof UniqueViolation) return e;
  if (unavailable(e)) return new StoreUnavailable(`the database is unavailable: ${(e as Error)?.message ?? e}`, e);
  if (codeOf(e) === UNIQUE_VIOLATION && !(e instanceof UniqueViolation)) {
    const err = e as { constraint?: string; table?: string };
    const v = new UniqueViolation(err.constraint ?? err.table ?? 'unique');
    (v as { cause?: unknown }).cause = e;
    return v;
  }
  return e;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Runner = Pick<pg.PoolClient, 'query'> | pg.Pool;

class PgQueryable implements Queryable {
  readonly dialect = dialect;
  constructor(
    private readonly on: Runner,
    private readonly texts: LRUCache<string, string>,
  ) {}

  private async query(sql: string, params?: readonly SqlValue[]): Promise<pg.QueryResult> {
    let text = this.texts.get(sql);
    if (text === undefined) this.texts.set(sql, (text = toPgPlaceholders(sql)));
    try {
      return await this.on.query({ text, values: bind(params) });
    } catch (e) {
      throw translate(e);
    }
  }
  async all<T = Row>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
    return (await this.query(sql, params)).rows as T[];
  }
  async get<T = Row>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined> {
    return (await this.query(sql, params)).rows[0] as T | undefined;
  }
  async run(sql: string, params?: readonly SqlValue[]): Promise<{ changes: number }> {
    return { changes: (await this.query(sql, params)).rowCount ?? 0 };
  }
  /** Runs a script of several statements (simple query protocol, no parameters): migrations. */
  async exec(sql: string): Promise<void> {
    try {
      await this.on.query(sql);
    } catch (e) {
      throw translate(e);
    }
  }
}

export interface PgOptions {
  /** most connections this process holds (default 10) */
  max?: number;
  /** how long to wait for a connection before failing with StoreUnavailable (default 10 s) */
  connectTimeoutMs?: number;
  /** statement_timeout in ms for every connection (default: none) */
  statementTimeoutMs?: number;
}

/**
 * PostgreSQL through a `pg` Pool. Plain statements run on any pooled connection in
 * autocommit; `tx()` holds one connection for BEGIN … COMMIT at READ COMMITTED, where the
 * services' conditional updates (`… WHERE balance >= ?`) and `q.dialect.forUpdate` row locks
 * give the same guarantees as SQLite's single writer. Deadlocks and serialization failures
 * roll back and run the transaction again, a bounded number of times.
 */
export class PgDb implements Db {
  readonly dialect = dialect;
  readonly pool: pg.Pool;
  private readonly plain: PgQueryable;
  /** statements as PostgreSQL takes them ($n placeholders), by their portable text */
  private readonly texts = new LRUCache<string, string>({ max: 2_000 });
  private closed = false;

  constructor(readonly url: string, opts: PgOptions = {}) {
    this.pool = new pg.Pool({
      connectionString: url,
      max: opts.max ?? 10,
      // a database that does not answer fails the request (503) instead of hanging it
      connectionTimeoutMillis: opts.connectTimeoutMs ?? 10_000,
      types,
      ...(opts.statementTimeoutMs ? { statement_timeout: opts.statementTimeoutMs } : {}),
    });
    // An idle connection that the server drops (restart, failover) must not kill the process;
    // the pool discards it and the next query opens a fresh one.
    this.pool.on('error', () => undefined);
    this.plain = new PgQueryable(this.pool, this.texts);
  }

  all<T = Row>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
    return this.plain.all<T>(sql, params);
  }
  get<T = Row>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined> {
    return this.plain.get<T>(sql, params);
  }
  run(sql: string, params?: readonly SqlValue[]): Promise<{ changes: number }> {
    return this.plain.run(sql, params);
  }

  async tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      let client: pg.PoolClient;
      try {
        client = await this.pool.connect();
      } catch (e) {
        throw translate(e);
      }
      let broken: Error | undefined;
      try {
        await client.query('BEGIN');
        const out = await fn(new PgQueryable(client, this.texts));
        await client.query('COMMIT');
        return out;
      } catch (e) {
        try {
          await client.query('ROLLBACK');
        } catch (rb) {
          broken = rb as Error; // the connection is unusable: destroy it rather than reuse it
        }
        const err = translate(e);
        const code = err instanceof UniqueViolation ? UNIQUE_VIOLATION : codeOf(err);
        const lockRace = code === SERIALIZATION_FAILURE || code === DEADLOCK_DETECTED;
        const again = (lockRace && attempt < MAX_ATTEMPTS) || (code === UNIQUE_VIOLATION && attempt < MAX_UNIQUE_ATTEMPTS);
        if (!again) throw lockRace ? new StoreUnavailable('the transaction kept losing lock races; retry', err) : err;
      } finally {
        client.release(broken);
      }
      // jittered backoff, connection back in the pool meanwhile
      await sleep(Math.min(200, 5 * 2 ** attempt) * Math.random());
    }
  }

  /** Runs `fn` on one connection holding the session advisory lock `key` (released after). */
  async withSessionLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [key]);
      try {
        return await fn();
      } finally {
        await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [key]);
      }
    } finally {
      client.release();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }
}

/**
 * Opens a PostgreSQL store and applies the migrations it lacks. Several processes opening one
 * database at once queue on a session advisory lock (keyed by the schema the connection
 * works in), so each migration is applied exactly once and none of them sees a half-migrated
 * schema.
 */
export async function openPostgres(url: string, opts: PgOptions = {}): Promise<PgDb> {
  const db = new PgDb(url, opts);
  try {
    const row = await db.get<{ schema: string | null }>('SELECT current_schema() AS schema');
    if (!row?.schema) throw new Error('the connection has no schema to work in (check search_path in the database URL)');
    await db.withSessionLock(`mpay migrations ${row.schema}`, () => migrate(db, (q, sql) => (q as PgQueryable).exec(sql)));
  } catch (e) {
    await db.close();
    throw e;
  }
  return db;
}
