/**
 * transition(): the lifecycle table is checked before any SQL, and the move is a compare-and-set
 * of the stored status inside the caller's transaction — run on both store engines.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { uuidv7 } from '../../src/domain/ids.js';
import { InvalidTransitionError, LIFECYCLES, type Lifecycle } from '../../src/domain/lifecycle.js';
import type { Db, Queryable } from '../../src/store/db.js';
import { LIFECYCLE_COLUMNS, LostTransitionError, transition, tryTransition } from '../../src/store/transition.js';
import { backend, testStore, type TestStore } from '../helpers/backend.js';

let store: TestStore;
let db: Db;

beforeEach(async () => {
  store = await testStore();
  db = await store.open();
});
afterEach(async () => {
  await db.close();
  await store.cleanup();
});

/** A merchant and one active webhook endpoint, written straight into the store. */
async function endpoint(): Promise<string> {
  const ts = new Date().toISOString();
  const merchantId = uuidv7();
  const id = uuidv7();
  await db.run('INSERT INTO merchants (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)', [merchantId, 'm', ts, ts]);
  await db.run(
    `INSERT INTO webhook_endpoints (id, merchant_id, url, secret_enc, events, status, created_at, updated_at)
     VALUES (?, ?, 'https://example.com/h', 'x', '[]', 'active', ?, ?)`,
    [id, merchantId, ts, ts],
  );
  return id;
}

const stored = (id: string) => db.get<{ status: string; disabled_reason: string | null }>('SELECT status, disabled_reason FROM webhook_endpoints WHERE id = ?', [id]);

/** A Queryable that records the statements it is given. */
function recording(q: Queryable): { q: Queryable; sql: string[] } {
  const sql: string[] = [];
  return {
    sql,
    q: {
      dialect: q.dialect,
      all: (s, p) => (sql.push(s), q.all(s, p)),
      get: (s, p) => (sql.push(s), q.get(s, p)),
      run: (s, p) => (sql.push(s), q.run(s, p)),
    },
  };
}

describe(`transition() (${backend})`, () => {
  it('moves the row and sets the other columns in the same statement', async () => {
    const id = await endpoint();
    await db.tx((q) => transition(q, 'webhook_endpoint', id, 'active', 'disabled', { disabled_reason: 'test', updated_at: new Date().toISOString() }));
    expect(await stored(id)).toEqual({ status: 'disabled', disabled_reason: 'test' });
  });

  it('a move the lifecycle does not allow throws before any SQL runs', async () => {
    const id = await endpoint();
    const r = recording(db);
    // charge: refunded is final; webhook endpoint: active → active is no move
    await expect(transition(r.q, 'charge', id, 'refunded', 'captured')).rejects.toThrow(InvalidTransitionError);
    await expect(transition(r.q, 'webhook_endpoint', id, 'active', 'active')).rejects.toThrow("cannot move webhook endpoint from 'active' to 'active'");
    await expect(tryTransition(r.q, 'webhook_delivery', id, 'scheduled', 'scheduled')).rejects.toThrow(InvalidTransitionError);
    expect(r.sql).toEqual([]);
    expect(await stored(id)).toEqual({ status: 'active', disabled_reason: null });
  });

  it('a lost race (the status changed after it was read) is detected and rolls the transaction back', async () => {
    const id = await endpoint();
    const seen = (await stored(id))!.status; // read 'active'
    // another transaction moves it first
    await db.tx((q) => transition(q, 'webhook_endpoint', id, 'active', 'disabled', { disabled_reason: 'first' }));
    // the stale mover: tryTransition answers false, transition throws and the caller's earlier write rolls back
    expect(await db.tx((q) => tryTransition(q, 'webhook_endpoint', id, seen, 'disabled', { disabled_reason: 'second' }))).toBe(false);
    await expect(
      db.tx(async (q) => {
        await q.run('UPDATE webhook_endpoints SET url = ? WHERE id = ?', ['https://example.com/changed', id]);
        await transition(q, 'webhook_endpoint', id, seen, 'disabled', { disabled_reason: 'second' });
      }),
    ).rejects.toThrow(LostTransitionError);
    expect(await stored(id)).toEqual({ status: 'disabled', disabled_reason: 'first' });
    expect((await db.get<{ url: string }>('SELECT url FROM webhook_endpoints WHERE id = ?', [id]))!.url).toBe('https://example.com/h');
  });

  it('refuses to set the status column through `set` or a column name that is not one', async () => {
    const id = await endpoint();
    await expect(transition(db, 'webhook_endpoint', id, 'active', 'disabled', { status: 'active' })).rejects.toThrow("cannot set column 'status'");
    await expect(transition(db, 'webhook_endpoint', id, 'active', 'disabled', { 'url = url; --': 'x' })).rejects.toThrow('cannot set column');
    expect((await stored(id))!.status).toBe('active');
  });

  it('every lifecycle names a status column that exists in the store', async () => {
    for (const l of Object.keys(LIFECYCLES) as Lifecycle[]) {
      const { table, column } = LIFECYCLE_COLUMNS[l];
      await expect(db.all(`SELECT id, ${column} FROM ${table} WHERE 1 = 0`), `${l}: ${table}.${column}`).resolves.toEqual([]);
    }
  });

  it('webhook_deliveries.state has a lifecycle: the states the store allows are its states', async () => {
    const id = await endpoint();
    const ts = new Date().toISOString();
    const merchant = (await db.get<{ merchant_id: string }>('SELECT merchant_id FROM webhook_endpoints WHERE id = ?', [id]))!.merchant_id;
    const eventId = uuidv7();
    await db.run("INSERT INTO events (id, merchant_id, type, data, created_at) VALUES (?, ?, 'charge.captured', '{}', ?)", [eventId, merchant, ts]);
    const deliveryId = uuidv7();
    await db.run(
      `INSERT INTO webhook_deliveries (id, merchant_id, event_id, endpoint_id, event_type, state, attempts, max_attempts, origin_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, 'charge.captured', 'scheduled', 0, 10, ?, ?, ?)`,
      [deliveryId, merchant, eventId, id, ts, ts, ts],
    );
    for (const [from, to] of [
      ['scheduled', 'failed'],
      ['failed', 'scheduled'],
      ['scheduled', 'cancelled'],
      ['cancelled', 'scheduled'],
      ['scheduled', 'delivered'],
      ['delivered', 'scheduled'],
    ] as const) {
      await db.tx((q) => transition(q, 'webhook_delivery', deliveryId, from, to, { updated_at: ts }));
      expect((await db.get<{ state: string }>('SELECT state FROM webhook_deliveries WHERE id = ?', [deliveryId]))!.state).toBe(to);
    }
  });
});
