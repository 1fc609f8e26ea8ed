/**
 * Migrations on a store that already holds rows: the migrations before one are applied by
 * hand, rows are written as they left the tables, then the migration runs.
 * - 620: every card token keeps its data, the tokens of one number may then be several, and
 *   the new match key is unique per merchant.
 * - 621: uploads a document of their merchant names count as attached; the others do not.
 * - 720: merchants, charges and payment links keep every row, none rewritten: no merchant
 *   override, charges without recorded rates or total (read as the defaults and their amount),
 *   links whose merchant pays the interest.
 * - 730: charges captured before it were captured whole: captured_amount = amount.
 * - 741: wallets and entries keep their balances, indexes, triggers and the foreign keys that
 *   point at them; a balance and a chargeback's debit may then be below zero, nothing else.
 * - 742: uploads keep every column and index; one may then belong to no submerchant.
 * - 770: refunds and chargebacks keep every row; the refunds have no return id, the
 *   chargebacks are of type chargeback without one; a return id is then unique.
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
  if (backend === 'sqlite') {
    // as the store opens it: foreign keys on, each migration in a transaction of its own
    const d = new Database(store.location);
    d.pragma('foreign_keys = ON');
    return {
      exec: async (sql) => void d.transaction(() => d.exec(sql)).immediate(),
      all: async (sql) => d.prepare(sql).all() as Record<string, unknown>[],
      close: async () => void d.close(),
    };
  }
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

/** Applies every migration below `version`, then `rows`, then the migration itself. */
async function upgrade(r: Raw, version: number, rows: string): Promise<void> {
  for (const m of MIGRATIONS.filter((x) => x.version < version)) await r.exec(m.sql(backend));
  await r.exec(rows);
  await r.exec(MIGRATIONS.find((x) => x.version === version)!.sql(backend));
}

const T = '2026-01-01T00:00:00.000Z';
const MERCHANT = `INSERT INTO merchants (id, name, created_at, updated_at) VALUES ('m1', 'Loja', '${T}', '${T}'), ('m2', 'Outra', '${T}', '${T}');`;

it('620 keeps every card token and lets one number have several', async () => {
  const r = await raw();
  try {
    await upgrade(
      r,
      620,
      `${MERCHANT}
      INSERT INTO card_tokens (token, merchant_id, fingerprint, brand, first_six, last_four, exp_month, exp_year, encrypted, created_at)
        VALUES ('tok_old', 'm1', 'fp1', 'visa', '411111', '1111', '12', '2030', 'blob', '${T}');`,
    );
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

it('621 counts an upload as attached when a document of its merchant names it, however spelled', async () => {
  const r = await raw();
  const file = (key: string, merchant: string) =>
    `INSERT INTO files (key, merchant_id, submerchant_id, file_name, size, mime, path, created_at) VALUES ('${key}', '${merchant}', 's-${merchant}', 'f.png', 10, 'image/png', '${key}', '${T}');`;
  const doc = (id: string, merchant: string, url: string) =>
    `INSERT INTO submerchant_documents (id, submerchant_id, merchant_id, type, file_url, file_name, file_size, mime_type, status, created_at, updated_at)
       VALUES ('${id}', 's-${merchant}', '${merchant}', 'cnpj_card', '${url}', 'f.png', 10, 'image/png', 'pending', '${T}', '${T}');`;
  const sub = (merchant: string) =>
    `INSERT INTO submerchants (id, parent_merchant_id, entity_type, trade_name, legal_name, tax_id, email, status, created_at, updated_at)
       VALUES ('s-${merchant}', '${merchant}', 'pj', 'Loja', 'Loja LTDA', '11222333000181', 'a@example.com', 'pending', '${T}', '${T}');`;
  try {
    await upgrade(
      r,
      621,
      [
        MERCHANT,
        sub('m1'),
        sub('m2'),
        file('a.png', 'm1'),
        file('b.png', 'm1'),
        file('c.png', 'm2'),
        doc('d1', 'm1', 'http://localhost:4010/v1/files/a.png'),
        // another merchant's document naming m2's upload does not keep it
        doc('d2', 'm1', 'http://127.0.0.1//v1/files/c.png'),
      ].join('\n'),
    );
    expect(await r.all('SELECT key, attached_at FROM files ORDER BY key')).toEqual([
      { key: 'a.png', attached_at: T },
      { key: 'b.png', attached_at: null },
      { key: 'c.png', attached_at: null },
    ]);
  } finally {
    await r.close();
  }
});

it('720 keeps every merchant, charge and link, rewriting none: no override, no recorded rates, merchant interest', async () => {
  const r = await raw();
  try {
    await upgrade(
      r,
      720,
      `${MERCHANT}
       INSERT INTO charges (id, merchant_id, amount, currency, status, payment_method, product_type, installments, customer, items, split_rules, parties, created_at, updated_at)
         VALUES ('c1', 'm1', 10000, 'BRL', 'captured', 'credit_card', 'digital', 3, '{}', '[]', '[]', '[]', '${T}', '${T}');
       INSERT INTO payment_links (id, merchant_id, title, product_type, allowed_payment_methods, max_installments, status, created_by, created_at, updated_at)
         VALUES ('l1', 'm1', 'Curso', 'digital', '["credit_card"]', 12, 'active', 'k1', '${T}', '${T}');`,
    );
    expect(await r.all('SELECT id, pricing FROM merchants ORDER BY id')).toEqual([
      { id: 'm1', pricing: null },
      { id: 'm2', pricing: null },
    ]);
    const [c] = await r.all('SELECT amount, total_amount, interest_amount, pricing FROM charges');
    expect({ ...c, amount: Number(c!.amount), interest_amount: Number(c!.interest_amount) }).toEqual({ amount: 10000, total_amount: null, interest_amount: 0, pricing: null });
    expect(await r.all('SELECT interest FROM payment_links')).toEqual([{ interest: 'merchant' }]);
  } finally {
    await r.close();
  }
});

it('730 gives every charge captured before it captured_amount = amount, and none to the others', async () => {
  const r = await raw();
  const charge = (id: string, status: string) =>
    `INSERT INTO charges (id, merchant_id, amount, currency, status, payment_method, product_type, installments, customer, items, split_rules, parties, created_at, updated_at, refunded_amount)
       VALUES ('${id}', 'm1', 12345, 'BRL', '${status}', 'credit_card', 'digital', 1, '{}', '[]', '[]', '[]', '${T}', '${T}', ${status === 'refunded' ? 12345 : 0});`;
  try {
    await upgrade(r, 730, [MERCHANT, charge('c1', 'captured'), charge('c2', 'refunded'), charge('c3', 'failed'), charge('c4', 'pending')].join('\n'));
    const rows = await r.all('SELECT id, captured_amount, authorized_at, voided_at, void_reason FROM charges ORDER BY id');
    // PostgreSQL answers BIGINT as text
    expect(rows.map((x) => ({ ...x, captured_amount: x.captured_amount === null ? null : Number(x.captured_amount) }))).toEqual([
      { id: 'c1', captured_amount: 12345, authorized_at: null, voided_at: null, void_reason: null },
      { id: 'c2', captured_amount: 12345, authorized_at: null, voided_at: null, void_reason: null },
      { id: 'c3', captured_amount: null, authorized_at: null, voided_at: null, void_reason: null },
      { id: 'c4', captured_amount: null, authorized_at: null, voided_at: null, void_reason: null },
    ]);
  } finally {
    await r.close();
  }
});

const WALLET = (id: string, balance: number) =>
  `INSERT INTO wallets (id, merchant_id, owner_type, owner_id, currency, balance, created_at, updated_at) VALUES ('${id}', 'm1', 'merchant', 'm1', 'BRL', ${balance}, '${T}', '${T}');`;
const ENTRY = (id: string, direction: string, amount: number, after: number, type: string, seq: number) =>
  `INSERT INTO wallet_entries (id, wallet_id, direction, amount, balance_after, reference_type, reference_id, description, created_at, seq)
     VALUES ('${id}', 'w1', '${direction}', ${amount}, ${after}, '${type}', 'r', 'd', '${T}', ${seq});`;

it('741 keeps wallets and entries whole, then lets a chargeback alone go below zero', async () => {
  const r = await raw();
  try {
    await upgrade(r, 741, [MERCHANT, WALLET('w1', 700), ENTRY('e1', 'credit', 1000, 1000, 'receivable', 1), ENTRY('e2', 'debit', 300, 700, 'withdrawal', 2)].join('\n'));
    // BIGINT columns read as strings on PostgreSQL
    const numbers = (rows: Record<string, unknown>[]) => rows.map((x) => Object.fromEntries(Object.entries(x).map(([k, v]) => [k, /^-?\d+$/.test(String(v)) ? Number(v) : v])));
    expect(numbers(await r.all('SELECT id, balance FROM wallets'))).toEqual([{ id: 'w1', balance: 700 }]);
    expect(numbers(await r.all('SELECT id, direction, amount, balance_after, seq FROM wallet_entries ORDER BY seq'))).toEqual([
      { id: 'e1', direction: 'credit', amount: 1000, balance_after: 1000, seq: 1 },
      { id: 'e2', direction: 'debit', amount: 300, balance_after: 700, seq: 2 },
    ]);
    await r.exec(ENTRY('e3', 'debit', 900, -200, 'chargeback', 3));
    await r.exec(ENTRY('e4', 'debit', 1500, -1700, 'chargeback_fee', 4));
    await r.exec(ENTRY('e5', 'credit', 100, -1600, 'receivable', 5));
    await expect(r.exec(ENTRY('e6', 'debit', 1, -1601, 'withdrawal', 6))).rejects.toThrow(/check/i);
    await r.exec("UPDATE wallets SET balance = -1600 WHERE id = 'w1'");
    await expect(r.exec("UPDATE wallets SET balance = -1000000000000001 WHERE id = 'w1'")).rejects.toThrow(/check/i);
    // the sums' triggers still add every entry; the foreign keys still point at the wallet
    expect(numbers(await r.all("SELECT entries FROM wallet_entry_sums WHERE wallet_id = 'w1' AND span = 'month'"))).toEqual([{ entries: 5 }]);
    await expect(r.exec(ENTRY('e7', 'credit', 1, 1, 'receivable', 7).replace("'w1'", "'nowhere'"))).rejects.toThrow(/foreign key/i);
    const indexes = (await r.all(
      backend === 'postgres'
        ? "SELECT indexname AS name FROM pg_indexes WHERE tablename = 'wallet_entries'"
        : "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'wallet_entries' AND sql IS NOT NULL",
    )).map((x) => x.name);
    expect(indexes).toEqual(expect.arrayContaining(['wallet_entries_time', 'wallet_entries_direction', 'wallet_entries_kind', 'wallet_entries_seq', 'wallet_entries_reference']));
  } finally {
    await r.close();
  }
});

it('742 keeps every upload and its indexes, and takes uploads of no submerchant', async () => {
  const r = await raw();
  try {
    await upgrade(
      r,
      742,
      `${MERCHANT}
      INSERT INTO submerchants (id, parent_merchant_id, entity_type, trade_name, legal_name, tax_id, email, status, created_at, updated_at)
        VALUES ('s1', 'm1', 'pj', 'Loja', 'Loja LTDA', '11222333000181', 'a@example.com', 'pending', '${T}', '${T}');
      INSERT INTO files (key, merchant_id, submerchant_id, file_name, size, mime, path, created_at, attached_at)
        VALUES ('a.png', 'm1', 's1', 'f.png', 10, 'image/png', 'a.png', '${T}', '${T}'), ('b.png', 'm1', 's1', 'g.png', 11, 'image/png', 'b.png', '${T}', NULL);`,
    );
    expect(await r.all('SELECT key, merchant_id, submerchant_id, file_name, mime, path, created_at, attached_at FROM files ORDER BY key')).toEqual([
      { key: 'a.png', merchant_id: 'm1', submerchant_id: 's1', file_name: 'f.png', mime: 'image/png', path: 'a.png', created_at: T, attached_at: T },
      { key: 'b.png', merchant_id: 'm1', submerchant_id: 's1', file_name: 'g.png', mime: 'image/png', path: 'b.png', created_at: T, attached_at: null },
    ]);
    await r.exec(`INSERT INTO files (key, merchant_id, submerchant_id, file_name, size, mime, path, created_at) VALUES ('c.pdf', 'm1', NULL, 'e.pdf', 12, 'application/pdf', 'c.pdf', '${T}')`);
    await expect(r.exec(`INSERT INTO files (key, merchant_id, submerchant_id, file_name, size, mime, path, created_at) VALUES ('d.pdf', 'm1', 'nope', 'e.pdf', 12, 'application/pdf', 'd.pdf', '${T}')`)).rejects.toThrow(/foreign key/i);
    const indexes = (await r.all(
      backend === 'postgres' ? "SELECT indexname AS name FROM pg_indexes WHERE tablename = 'files'" : "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'files' AND sql IS NOT NULL",
    )).map((x) => x.name);
    expect(indexes).toEqual(expect.arrayContaining(['files_merchant', 'files_submerchant', 'files_unattached']));
  } finally {
    await r.close();
  }
});

it('770 keeps every refund and chargeback: refunds without a return id, chargebacks of type chargeback; return ids unique', async () => {
  const r = await raw();
  const refund = (id: string, returnId: string | null = null) =>
    `INSERT INTO refunds (id, charge_id, merchant_id, amount, created_at${returnId ? ', return_id' : ''}) VALUES ('${id}', 'c1', 'm1', 100, '${T}'${returnId ? `, '${returnId}'` : ''});`;
  try {
    await upgrade(
      r,
      770,
      `${MERCHANT}
      INSERT INTO charges (id, merchant_id, amount, currency, status, payment_method, product_type, installments, customer, items, split_rules, parties, created_at, updated_at, refunded_amount, captured_amount)
        VALUES ('c1', 'm1', 12345, 'BRL', 'captured', 'pix', 'digital', 1, '{}', '[]', '[]', '[]', '${T}', '${T}', 200, 12345);
      ${refund('r1')}
      ${refund('r2')}
      INSERT INTO chargebacks (id, merchant_id, charge_id, amount, currency, reason, status, evidence_due_at, liabilities, created_at, updated_at)
        VALUES ('cb1', 'm1', 'c1', 500, 'BRL', 'fraud', 'open', '${T}', '[]', '${T}', '${T}');`,
    );
    const numbers = (rows: Record<string, unknown>[]) => rows.map((x) => ({ ...x, amount: Number(x.amount) }));
    expect(numbers(await r.all('SELECT id, charge_id, amount, created_at, return_id FROM refunds ORDER BY id'))).toEqual([
      { id: 'r1', charge_id: 'c1', amount: 100, created_at: T, return_id: null },
      { id: 'r2', charge_id: 'c1', amount: 100, created_at: T, return_id: null },
    ]);
    expect(numbers(await r.all('SELECT id, amount, reason, status, type, return_id FROM chargebacks'))).toEqual([
      { id: 'cb1', amount: 500, reason: 'fraud', status: 'open', type: 'chargeback', return_id: null },
    ]);
    const id = 'D12345678202009091000abcde123456';
    await r.exec(refund('r3', id));
    await expect(r.exec(refund('r4', id))).rejects.toThrow(/unique/i);
    await r.exec(refund('r5'));
    await r.exec(`UPDATE chargebacks SET type = 'med', return_id = '${id}' WHERE id = 'cb1'`);
    expect(await r.all("SELECT type, return_id FROM chargebacks WHERE id = 'cb1'")).toEqual([{ type: 'med', return_id: id }]);
  } finally {
    await r.close();
  }
});
