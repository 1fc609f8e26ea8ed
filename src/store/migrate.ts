import type { Db, Queryable } from './db.js';
import { MIGRATIONS } from './migrations/index.js';

/**
 * Applies the versioned migrations not yet applied, each in its own write transaction, so
 * several processes opening one database at once apply each migration exactly once. `exec`
 * runs a migration's DDL script inside that transaction (`q` is its connection).
 * PostgreSQL callers hold an advisory lock around the whole call (see openPostgres).
 */
export async function migrate(db: Db, exec: (q: Queryable, sql: string) => void | Promise<void>): Promise<number> {
  // Read before writing: an up-to-date database (every CLI command opens one) is checked
  // without a write transaction, which would take the write lock and a group commit (~1.4 ms of
  // every embedded command, bench/startup).
  const table =
    db.dialect.name === 'sqlite'
      ? await db.get("SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
      : await db.get("SELECT 1 AS found FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'schema_migrations'");
  if (!table) {
    await db.run(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)',
    );
  }
  // Compare the sets, not the highest version: branches merge migrations out of order (a 3xx
  // can land after a 4xx is applied) and each one missing must still be applied.
  const done = new Set((await db.all<{ version: number }>('SELECT version FROM schema_migrations')).map((r) => Number(r.version)));
  const missing = MIGRATIONS.filter((m) => !done.has(m.version));
  if (!missing.length) return 0;
  let applied = 0;
  for (const m of missing) {
    await db.tx(async (q) => {
      const already = await q.get('SELECT version FROM schema_migrations WHERE version = ?', [m.version]);
      if (already) return;
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
