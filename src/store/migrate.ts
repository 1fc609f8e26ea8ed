import type { Db, Queryable } from './db.js';
import { MIGRATIONS } from './migrations/index.js';

/**
 * Applies the versioned migrations not yet applied, each in its own write transaction, so
 * several processes opening one database at once apply each migration exactly once. `exec`
 * runs a migration's DDL script inside that transaction (`q` is its connection).
 * PostgreSQL callers hold an advisory lock around the whole call (see openPostgres).
 */
export async function migrate(db: Db, exec: (q: Queryable, sql: string) => void | Promise<void>): Promise<number> {
  await db.run(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)',
  );
  const latest = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;
  const row = await db.get<{ v: number | null }>('SELECT MAX(version) AS v FROM schema_migrations');
  if ((row?.v ?? 0) >= latest) return 0;
  let applied = 0;
  for (const m of MIGRATIONS) {
    await db.tx(async (q) => {
      const done = await q.get('SELECT version FROM schema_migrations WHERE version = ?', [m.version]);
      if (done) return;
      await exec(q, m.sql(db.dialect.name));
      await q.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)', [
        m.version,
        m.name,
        new Date().toISOString(),
      ]);
      applied++;
    });
  }
  return applied;
}
