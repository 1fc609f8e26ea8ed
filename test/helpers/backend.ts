/**
 * Which store the current vitest project runs on. vitest.config.ts defines a `sqlite` project
 * (every suite) and, when MPAY_TEST_DATABASE_URL names a PostgreSQL server, a `postgres`
 * project that runs the store, server and replica suites again with MPAY_TEST_BACKEND=postgres.
 * On PostgreSQL each store gets a schema of its own (dropped on cleanup), so test files run in
 * parallel on one server without seeing each other's rows.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Db } from '../../src/store/db.js';
import { openSqlite } from '../../src/store/sqlite.js';
import { openPostgres } from '../../src/store/postgres.js';

export type Backend = 'sqlite' | 'postgres';

export const backend: Backend = process.env.MPAY_TEST_BACKEND === 'postgres' ? 'postgres' : 'sqlite';

function serverUrl(): string {
  const url = process.env.MPAY_TEST_DATABASE_URL;
  if (!url) throw new Error('the postgres test project needs MPAY_TEST_DATABASE_URL');
  return url;
}

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: serverUrl() });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

export interface PgSchema {
  /** the server URL with `options=-c search_path=<schema>`: every connection works in the schema */
  url: string;
  schema: string;
  drop(): Promise<void>;
}

/** A new empty schema on the test server and a URL whose connections use it. */
export async function freshPgSchema(): Promise<PgSchema> {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`CREATE SCHEMA ${schema}`));
  const u = new URL(serverUrl());
  u.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: u.toString(),
    schema,
    drop: () => admin((c) => c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)).then(() => undefined),
  };
}

export interface TestStore {
  /** where a second store on the same data opens: the SQLite file or the PostgreSQL URL */
  location: string;
  /** a data directory (temp) for keys and files */
  dir: string;
  open(): Promise<Db>;
  cleanup(): Promise<void>;
}

/** A fresh, empty store location on the current backend (nothing opened yet). */
export async function testStore(): Promise<TestStore> {
  const dir = mkdtempSync(join(tmpdir(), 'mpay-store-'));
  if (backend === 'postgres') {
    const s = await freshPgSchema();
    return {
      location: s.url,
      dir,
      open: () => openPostgres(s.url),
      async cleanup() {
        await s.drop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const file = join(dir, 'mpay.db');
  return {
    location: file,
    dir,
    open: () => openSqlite(file),
    async cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
