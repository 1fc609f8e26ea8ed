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
import { listen } from '../../src/server/http.js';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { backend } from '../helpers/backend.js';
import { cardCharge, chargeBody } from '../helpers/money.js';

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

  it('a commit by another process between the token read and the handler\'s reads is never served later', async () => {
    env = await testEnv();
    const id = (await cardCharge(env, 1990)).body.data.id;
    await idle();
    const { db } = env.rt.deps;
    const other = new Database(join(env.dir, 'mpay.db'));
    const all = db.all.bind(db);
    let fired = false;
    // another process inserts a charge right after the list has read its counters (the token was read before)
    const spy = vi.spyOn(db, 'all').mockImplementation(async (sql, params) => {
      const out = await all(sql, params);
      if (!fired && sql.includes('FROM charge_counts')) {
        fired = true;
        const row = other.prepare('SELECT * FROM charges WHERE id = ?').get(id) as Record<string, unknown>;
        const copy = { ...row, id: '0190a8a2-7c1e-7b3e-9f00-0000000000ab', created_at: '2099-01-01T00:00:00.000Z' };
        other.prepare(`INSERT INTO charges (${Object.keys(copy).join(', ')}) VALUES (${Object.keys(copy).map(() => '?').join(', ')})`).run(...Object.values(copy));
      }
      return out as never;
    });
    const torn = JSON.parse((await raw('/v1/charges')).text);
    spy.mockRestore();
    other.close();
    expect(fired).toBe(true);
    // that answer mixes two states (its counters from before the insert, its rows from after)…
    expect(torn.pagination.total).toBe(1);
    expect(torn.data).toHaveLength(2);
    // …and is not served again: the next read is of the state after the insert
    const next = JSON.parse((await raw('/v1/charges')).text);
    expect(next.pagination.total).toBe(2);
    expect(next.data).toHaveLength(2);
  });

  it("another merchant asking for a remembered charge at the same database state gets a 404", async () => {
    env = await testEnv();
    const other = await env.newMerchant('Outra'); // before the reads: no commit between them
    const id = (await cardCharge(env, 1990)).body.data.id;
    await idle();
    expect((await raw(`/v1/charges/${id}`)).status).toBe(200);
    expect(JSON.parse((await raw('/v1/charges')).text).data).toHaveLength(1);
    const token = env.rt.deps.db.changeToken!();
    expect((await raw(`/v1/charges/${id}`, env.auth(other))).status).toBe(404);
    expect(JSON.parse((await raw('/v1/charges', env.auth(other))).text).data).toEqual([]);
    expect(env.rt.deps.db.changeToken!()).toBe(token);
    // and the first merchant's answers are still its own
    expect((await raw(`/v1/charges/${id}`)).status).toBe(200);
  });

  it('a long query string is answered, not kept', async () => {
    env = await testEnv();
    await cardCharge(env, 1990);
    await idle();
    const path = `/v1/charges?page=${'0'.repeat(600)}1`;
    const first = await raw(path);
    expect(first.status).toBe(200);
    expect(await readsDuring(() => raw(path))).toBeGreaterThan(0);
    expect(await readsDuring(() => raw('/v1/charges?page=1'))).toBeGreaterThan(0);
    expect(await readsDuring(() => raw('/v1/charges?page=1'))).toBe(0);
  });

  it('a GET answered from the memo reads the change token once (the auth cache and the memo share it)', async () => {
    env = await testEnv();
    const id = (await cardCharge(env, 1990)).body.data.id;
    await idle();
    expect((await raw(`/v1/charges/${id}`)).status).toBe(200);
    const { db } = env.rt.deps;
    const token = vi.spyOn(db, 'changeToken');
    try {
      let again = { status: 0, text: '' };
      expect(await readsDuring(async () => (again = await raw(`/v1/charges/${id}`)))).toBe(0);
      expect(again.status).toBe(200);
      expect(token).toHaveBeenCalledTimes(1);
    } finally {
      token.mockRestore();
    }
  });

  it("a read whose own due work commits (the merchant's clock passed a PIX expiry) answers the state after it, not the memo's", async () => {
    env = await testEnv();
    const r = await env.call('POST', '/v1/charges', chargeBody(5000, { payment_method: 'pix', payment_details: { expires_in: 600 } }));
    const id = r.body.data.id;
    await idle();
    // kept at this state, the key too: the next request's authentication needs no await
    expect(JSON.parse((await raw(`/v1/charges/${id}`)).text).data.status).toBe('pending');
    expect(JSON.parse((await raw(`/v1/charges/${id}`)).text).data.status).toBe('pending');
    env.clock.advance(601_000);
    const after = JSON.parse((await raw(`/v1/charges/${id}`)).text).data;
    expect(after).toMatchObject({ status: 'failed', failure_code: 'pix_expired' });
  });

  it('an answer served again over HTTP is the same bytes with the same Content-Length, accents and all', async () => {
    env = await testEnv();
    const body = chargeBody(1990, { payment_method: 'pix' }) as { customer: Record<string, unknown> };
    body.customer.name = 'João Conceição Ñandú 🙂';
    const id = (await env.call('POST', '/v1/charges', body)).body.data.id;
    const server = await listen(env.rt, '127.0.0.1', 0);
    try {
      for (const path of [`/v1/charges/${id}`, '/v1/charges']) {
        await idle();
        const answers = [];
        for (let i = 0; i < 3; i++) {
          const res = await fetch(server.url + path, { headers: { authorization: env.auth() } });
          const bytes = new Uint8Array(await res.arrayBuffer());
          expect(Number(res.headers.get('content-length')), path).toBe(bytes.byteLength);
          answers.push(bytes);
        }
        expect(Buffer.from(answers[1]!).equals(Buffer.from(answers[0]!)), path).toBe(true);
        expect(Buffer.from(answers[2]!).equals(Buffer.from(answers[0]!)), path).toBe(true);
        expect(new TextDecoder().decode(answers[2])).toContain('João Conceição Ñandú 🙂');
      }
    } finally {
      await server.close();
    }
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
  it('answers are per merchant, per path and per query string', async () => {
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
  });
});

describe('ReadMemo', () => {
  it('gives a body only at the token it was kept with; an answer at a new token empties it of the others', () => {
    const m = new ReadMemo();
    m.set('k', 't1', 'abcd');
    m.set('j', 't1', 'efgh');
    expect(m.get('k', 't1')).toBe('abcd');
    expect(m.get('k', 't2')).toBeUndefined();
    m.set('k', 't2', 'ijkl');
    expect(m.size).toBe(1);
    expect(m.get('j', 't1')).toBeUndefined();
    expect(m.get('j', 't2')).toBeUndefined();
    expect(m.get('k', 't2')).toBe('ijkl');
  });

  it('counts keys and bodies against its size, and starts again from empty past it', () => {
    const m = new ReadMemo(20);
    m.set('k1', 't', 'abcd'); // 6
    m.set('k2', 't', 'efgh'); // 12
    m.set('k3', 't', 'ijkl'); // 18
    expect(m.size).toBe(3);
    m.set('k4', 't', 'mnop'); // 24 > 20: empty first
    expect(m.size).toBe(1);
    expect(m.get('k4', 't')).toBe('mnop');
    // a long key alone fills it
    m.set('x'.repeat(30), 't', '');
    expect(m.size).toBe(1);
    expect(m.get('k4', 't')).toBeUndefined();
  });
});
