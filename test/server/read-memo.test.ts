/**
 * The charge reads' memo (src/server/readMemo.ts): a GET of a charge or of a page of charges
 * made again while the database's change token reads the same is answered with the bytes made
 * then, without the handler's reads; any commit — through this app or by another connection —
 * makes the next read go to the store. Everything else in the pipeline still runs.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ReadMemo } from '../../src/server/readMemo.js';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { backend } from '../helpers/backend.js';
import { cardCharge } from '../helpers/money.js';

let env: TestEnv;
afterEach(async () => env?.close());

const idle = () => new Promise((r) => setImmediate(r));

async function raw(path: string, auth = env.auth()): Promise<{ status: number; text: string }> {
  const res = await env.rt.app.request(path, { headers: { authorization: auth } });
  return { status: res.status, text: await res.text() };
}

/** the store's reads made while `fn` runs */
async function readsDuring(fn: () => Promise<unknown>): Promise<number> {
  const { db } = env.rt.deps;
  const get = vi.spyOn(db, 'get');
  const all = vi.spyOn(db, 'all');
  try {
    await fn();
    return get.mock.calls.length + all.mock.calls.length;
  } finally {
    get.mockRestore();
    all.mockRestore();
  }
}

describe.runIf(backend === 'sqlite')('charge reads answered again at the same database state (SQLite)', () => {
  it('a GET of a charge or of a page made again with nothing written since reads nothing from the store; with the memo off it reads', async () => {
    for (const readMemo of [true, false]) {
      env = await testEnv({ readMemo });
      const id = (await cardCharge(env, 1990)).body.data.id;
      for (const path of [`/v1/charges/${id}`, '/v1/charges', '/v1/charges?per_page=1']) {
        await idle();
        const first = await raw(path);
        expect(first.status).toBe(200);
        let again = { status: 0, text: '' };
        const reads = await readsDuring(async () => (again = await raw(path)));
        expect(again).toEqual(first);
        if (readMemo) expect(reads, path).toBe(0);
        else expect(reads, path).toBeGreaterThan(0);
      }
      await env.close();
    }
    env = undefined as never;
  });

  it('a commit by another connection shows at the next read, of the charge and of every page', async () => {
    env = await testEnv();
    const id = (await cardCharge(env, 1990)).body.data.id;
    await idle();
    const before = JSON.parse((await raw(`/v1/charges/${id}`)).text).data;
    expect(before.metadata).toBeNull();
    expect(JSON.parse((await raw('/v1/charges')).text).data).toHaveLength(1);

    const other = new Database(join(env.dir, 'mpay.db'));
    other.prepare('UPDATE charges SET metadata = ? WHERE id = ?').run(JSON.stringify({ order: '42' }), id);
    expect(JSON.parse((await raw(`/v1/charges/${id}`)).text).data.metadata).toEqual({ order: '42' });
    expect(JSON.parse((await raw('/v1/charges')).text).data[0].metadata).toEqual({ order: '42' });

    // a row added by another process, with no other column of the page's rows changed
    const row = other.prepare('SELECT * FROM charges WHERE id = ?').get(id) as Record<string, unknown>;
    const copy = { ...row, id: '0190a8a2-7c1e-7b3e-9f00-0000000000aa', created_at: '2099-01-01T00:00:00.000Z' };
    other.prepare(`INSERT INTO charges (${Object.keys(copy).join(', ')}) VALUES (${Object.keys(copy).map(() => '?').join(', ')})`).run(...Object.values(copy));
    other.close();
    const page = JSON.parse((await raw('/v1/charges')).text);
    expect(page.data.map((c: { id: string }) => c.id)).toEqual([copy.id, id]);
    expect(page.pagination.total).toBe(2);
  });

  it('a write through the app shows at the next read', async () => {
    env = await testEnv();
    const id = (await cardCharge(env, 1990)).body.data.id;
    await idle();
    expect(JSON.parse((await raw(`/v1/charges/${id}`)).text).data.refunded_amount).toBe(0);
    expect((await env.call('POST', `/v1/charges/${id}/refund`, { amount: 500 })).status).toBe(200);
    await idle();
    expect(JSON.parse((await raw(`/v1/charges/${id}`)).text).data.refunded_amount).toBe(500);
    expect(JSON.parse((await raw('/v1/charges')).text).data[0].refunded_amount).toBe(500);
  });
});

describe('what the memo keeps apart (both backends)', () => {
  it('answers are per merchant, per path and per query string; a refusal is not kept', async () => {
    env = await testEnv();
    const a = (await cardCharge(env, 1990)).body.data.id;
    const b = (await cardCharge(env, 2990)).body.data.id;
    await idle();
    expect(JSON.parse((await raw(`/v1/charges/${a}`)).text).data.amount).toBe(1990);
    expect(JSON.parse((await raw(`/v1/charges/${b}`)).text).data.amount).toBe(2990);
    expect(JSON.parse((await raw('/v1/charges')).text).data).toHaveLength(2);
    expect(JSON.parse((await raw('/v1/charges?per_page=1')).text).data).toHaveLength(1);
    expect(JSON.parse((await raw('/v1/charges?per_page=1&page=2')).text).data[0].id).toBe(a);
    const other = await env.newMerchant('Outra');
    expect((await raw(`/v1/charges/${a}`, env.auth(other))).status).toBe(404);
    expect(JSON.parse((await raw('/v1/charges', env.auth(other))).text).data).toEqual([]);
    // still the first merchant's answers
    expect(JSON.parse((await raw('/v1/charges')).text).data).toHaveLength(2);
    expect((await raw('/v1/charges?per_page=500')).status).toBe(400);
    expect((await raw('/v1/charges?per_page=500')).status).toBe(400);
  });
});

describe('ReadMemo', () => {
  it('gives a body only at the token it was kept with, and starts again from empty past its size', () => {
    const m = new ReadMemo(10);
    m.set('k', 't1', 'abcd');
    expect(m.get('k', 't1')).toBe('abcd');
    expect(m.get('k', 't2')).toBeUndefined();
    m.set('k', 't2', 'efgh');
    expect(m.get('k', 't1')).toBeUndefined();
    expect(m.get('k', 't2')).toBe('efgh');
    m.set('j', 't2', 'ijkl');
    expect(m.size).toBe(2);
    m.set('i', 't2', 'mnop');
    expect(m.size).toBe(1);
    expect(m.get('i', 't2')).toBe('mnop');
  });
});
