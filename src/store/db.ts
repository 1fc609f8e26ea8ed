/**
 * The storage interface. Services speak portable SQL through it (`?` placeholders, TEXT
 * timestamps in ISO 8601 UTC, INTEGER cents, 0/1 flags, JSON as TEXT); each implementation
 * maps that onto its engine. Dialect differences live in `Dialect` and nowhere else.
 */
export type SqlValue = string | number | bigint | boolean | null | Uint8Array;
export type Row = Record<string, any>;

export interface Dialect {
  name: 'sqlite' | 'postgres';
  /** Appended to a SELECT inside a write transaction to lock the rows read (empty for SQLite,
   *  whose BEGIN IMMEDIATE already holds the write lock). */
  forUpdate: string;
  /** Appended to a SELECT that claims work rows so concurrent workers skip each other's: the
   *  whole locking clause (' FOR UPDATE SKIP LOCKED'), not to be combined with forUpdate. */
  skipLocked: string;
}

export interface Queryable {
  readonly dialect: Dialect;
  all<T = Row>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  get<T = Row>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined>;
  run(sql: string, params?: readonly SqlValue[]): Promise<{ changes: number }>;
}

export interface Db extends Queryable {
  /**
   * A write transaction (SQLite: BEGIN IMMEDIATE; PostgreSQL: BEGIN + row locks). The callback
   * must not wait on anything but the database: no network calls inside a transaction.
   * Serialization failures are retried by the implementation.
   */
  tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /**
   * A value that changes whenever any transaction commits (in this process or another one),
   * for validating in-process caches: it names the state that plain reads (`get`, `all`
   * outside a transaction) see when it is read. Undefined when the store cannot tell cheaply
   * (then nothing may be cached).
   */
  changeToken?(): string | undefined;
}

export class UniqueViolation extends Error {
  constructor(readonly constraint: string) {
    super(`unique constraint violated: ${constraint}`);
  }
}

/**
 * The store cannot serve right now (connection refused or lost, too many connections, a
 * transaction that kept losing lock races): the request may be retried. The app answers
 * 503 service_unavailable with Retry-After, and /readyz fails.
 */
export class StoreUnavailable extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, { cause });
  }
}

export const json = {
  to(v: unknown): string | null {
    return v === undefined || v === null ? null : JSON.stringify(v);
  },
  from<T>(v: string | null | undefined, fallback: T): T {
    if (v === null || v === undefined) return fallback;
    return JSON.parse(v) as T;
  },
};
