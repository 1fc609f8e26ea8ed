/**
 * The WAL file after a reader held a snapshot: it could not restart and grew meanwhile; once
 * the reader lets go and the WAL restarts, the file is cut back to WAL_SIZE_LIMIT instead of
 * staying that size on disk (`journal_size_limit`).
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqlite, type SqliteDb, WAL_SIZE_LIMIT } from '../../src/store/sqlite.js';
import { backend } from '../helpers/backend.js';

let dir: string;
let db: SqliteDb | undefined;
let held: Database.Database | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mpay-walsize-'));
});
afterEach(async () => {
  held?.close();
  held = undefined;
  await db?.close();
  db = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** `groups` group commits of 16 transactions, each inserting a ~3 KB row (one WAL frame or more). */
async function write(d: SqliteDb, groups: number): Promise<void> {
  const pad = 'x'.repeat(3000);
  for (let g = 0; g < groups; g++) await Promise.all(Array.from({ length: 16 }, () => d.tx((q) => q.run('INSERT INTO t (pad) VALUES (?)', [pad]))));
}

// SQLite's file only: the postgres project runs the store suites again, with nothing to add here
describe.skipIf(backend === 'postgres')('the WAL file after a reader held a snapshot', () => {
  it('is cut back to WAL_SIZE_LIMIT once the WAL restarts, with every row kept', async () => {
    const file = join(dir, 'mpay.db');
    db = await openSqlite(file);
    db.execScript('CREATE TABLE t (n INTEGER PRIMARY KEY, pad TEXT NOT NULL)');
    // another process stopped inside a read: its snapshot pins the WAL
    held = new Database(file);
    held.exec('BEGIN');
    expect(held.prepare('SELECT count(*) AS c FROM t').get()).toEqual({ c: 0 });
    await write(db, 400); // ~6 400 frames: ~26 MB of WAL that cannot restart
    const grown = statSync(`${file}-wal`).size;
    expect(grown).toBeGreaterThan(WAL_SIZE_LIMIT * 1.4);
    held.exec('COMMIT'); // the reader lets go
    await write(db, 100); // an automatic checkpoint copies everything, and the WAL restarts
    const after = statSync(`${file}-wal`).size;
    expect(after).toBeLessThanOrEqual(WAL_SIZE_LIMIT);
    expect((await db.get<{ c: number }>('SELECT count(*) AS c FROM t'))!.c).toBe(8000);
    expect(await db.get('PRAGMA integrity_check')).toEqual({ integrity_check: 'ok' });
  });
});
