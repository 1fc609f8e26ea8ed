/**
 * Migration 620 on a store that already holds card tokens: every token keeps its data, the
 * tokens of one number may then be several, and the new match key is unique per merchant.
 * The migrations before it are applied by hand, a token row is written as they left the
 * table, then 620 runs.
 */
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import { backend, testStore, type TestStore } from '../helpers/backend.js';

let store: TestStore;
beforeEach(async () => {
  store = await testStore();
});
afterEach(async () => store.cleanup());

interface Raw {
  exec(sql: string): Promise<void>;
  all(sql: string): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

async function raw(): Promise<Raw> {
  if (backend === 'postgres') {
    const c = new pg.Client({ connectionString: store.location });
    await c.connect();
    return {
      exec: async (sql) => void (await c.query(sql)),
      all: async (sql) => (await c.query(sql)).rows,
      close: () => c.end(),
    };
  }
  const d = new Database(store.location);
  return {
    exec: async (sql) => void d.exec(sql),
    all: async (sql) => d.prepare(sql).all() as Record<string, unknown>[],
    close: async () => void d.close(),
  };
}

it('620 keeps every card token and lets one number have several', async () => {
  const r = await raw();
  try {
    for (const m of MIGRATIONS.filter((x) => x.version < 620)) await r.exec(m.sql(backend));
    await r.exec(`
      INSERT INTO merchants (id, name, created_at, updated_at) VALUES ('m1', 'Loja', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z');
      INSERT INTO card_tokens (token, merchant_id, fingerprint, brand, first_six, last_four, exp_month, exp_year, encrypted, created_at)
        VALUES ('tok_old', 'm1', 'fp1', 'visa', '411111', '1111', '12', '2030', 'blob', '2026-01-01T00:00:00.000Z');`);
    await r.exec(MIGRATIONS.find((x) => x.version === 620)!.sql(backend));
    expect(await r.all('SELECT token, merchant_id, fingerprint, card_key, brand, first_six, last_four, exp_month, exp_year, encrypted FROM card_tokens')).toEqual([
      { token: 'tok_old', merchant_id: 'm1', fingerprint: 'fp1', card_key: null, brand: 'visa', first_six: '411111', last_four: '1111', exp_month: '12', exp_year: '2030', encrypted: 'blob' },
    ]);
    const insert = (token: string, key: string) =>
      r.exec(`INSERT INTO card_tokens (token, merchant_id, fingerprint, card_key, brand, first_six, last_four, exp_month, exp_year, encrypted, created_at)
        VALUES ('${token}', 'm1', 'fp1', '${key}', 'visa', '411111', '1111', '01', '2031', 'blob2', '2026-01-02T00:00:00.000Z')`);
    await insert('tok_new', 'k1'); // the same number (fingerprint) again
    await expect(insert('tok_dup', 'k1')).rejects.toThrow(/unique|UNIQUE/);
    expect(await r.all('SELECT token FROM card_tokens ORDER BY token')).toEqual([{ token: 'tok_new' }, { token: 'tok_old' }]);
  } finally {
    await r.close();
  }
});
