/**
 * The contract of `idempotency: 'in-transaction'` (src/contract/endpoint.ts): such an endpoint's
 * handler writes only through the one transaction the idempotency stage hands it, where its
 * Idempotency-Key is claimed and its answer kept — one commit a request. A write beside that
 * transaction (on the runtime's store, or in a second transaction) could commit while the key's
 * claim is lost, and a retry would run the operation twice. Every endpoint that declares the form
 * is called here with a key, on a store that records what it is asked; an endpoint that declares
 * it and has no case below fails the test, so a new one is checked when it is declared.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { endpoints } from '../../src/contract/index.js';
import type { Db, Queryable, SqlValue } from '../../src/store/db.js';
import { ForwardingDb } from '../helpers/faulty.js';
import { SameInstantDue } from '../helpers/due.js';
import { chargeBody, tokenize } from '../helpers/money.js';
import { testEnv, type TestEnv } from '../helpers/server.js';

const WRITE = /^\s*(INSERT|UPDATE|DELETE)\b/i;

/** The runtime's store, recording while `on`: transactions begun, and writes made outside one. */
class RecordingDb extends ForwardingDb {
  on = false;
  transactions = 0;
  outside: string[] = [];
  constructor(private readonly inner: Db) {
    super();
  }
  protected target(): Db {
    return this.inner;
  }
  override get<T>(sql: string, params?: readonly SqlValue[]) {
    this.note(sql);
    return super.get<T>(sql, params);
  }
  override run(sql: string, params?: readonly SqlValue[]) {
    this.note(sql);
    return super.run(sql, params);
  }
  override tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
    if (this.on) this.transactions++;
    return super.tx(fn);
  }
  changeToken() {
    return this.inner.changeToken?.();
  }
  private note(sql: string) {
    if (this.on && WRITE.test(sql)) this.outside.push(sql.trim().split(/\s+/).slice(0, 3).join(' '));
  }
}

let env: TestEnv;
let db: RecordingDb;
beforeEach(async () => {
  // the due work runs before a request, in transactions of its own, ahead of the idempotency
  // stage: a request at the same instant as an idle run skips it (the clock stands still)
  env = await testEnv({ due: new SameInstantDue(), wrapDb: (inner) => (db = new RecordingDb(inner)) });
});
afterEach(async () => env.close());

const payer = { street: 'Av. Paulista', number: '1000', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP', zip_code: '01310-100' };

/** An authorised card charge, for capture and void. */
async function authorised(): Promise<string> {
  const token = await tokenize(env);
  const r = await env.call('POST', '/v1/charges', chargeBody(5000, { payment_method: 'credit_card', capture: false, payment_details: { token } }));
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data.id;
}

/** Per endpoint declared in-transaction: requests that exercise it (its setup made first, unrecorded). */
const cases: Record<string, Array<{ name: string; request: () => Promise<{ path: string; body?: unknown }> }>> = {
  'charges.create': [
    { name: 'a card charge', request: async () => ({ path: '/v1/charges', body: chargeBody(5000, { payment_method: 'credit_card', payment_details: { token: await tokenize(env) } }) }) },
    { name: 'an authorisation', request: async () => ({ path: '/v1/charges', body: chargeBody(5000, { payment_method: 'credit_card', capture: false, payment_details: { token: await tokenize(env) } }) }) },
    { name: 'a PIX charge', request: async () => ({ path: '/v1/charges', body: chargeBody(5000, { payment_method: 'pix' }) }) },
    {
      name: 'a boleto',
      request: async () => {
        const base = chargeBody(5000) as { customer: Record<string, unknown> };
        return { path: '/v1/charges', body: { ...base, customer: { ...base.customer, address: payer }, payment_method: 'boleto', payment_details: { due_date: '2026-12-31' } } };
      },
    },
  ],
  'charges.capture': [
    { name: 'a whole capture', request: async () => ({ path: `/v1/charges/${await authorised()}/capture`, body: {} }) },
    { name: 'a partial capture', request: async () => ({ path: `/v1/charges/${await authorised()}/capture`, body: { amount: 3000 } }) },
  ],
  'charges.void': [{ name: 'a void', request: async () => ({ path: `/v1/charges/${await authorised()}/void` }) }],
};

const declared = endpoints.filter((e) => e.idempotency === 'in-transaction').map((e) => e.id);

describe("endpoints declared idempotency: 'in-transaction'", () => {
  it('each has a case here', () => {
    expect(declared.length).toBeGreaterThan(0);
    expect(declared.filter((id) => !cases[id])).toEqual([]);
  });

  const all = Object.entries(cases).flatMap(([id, list]) => list.map((c) => [id, c.name, c.request] as const));
  it.each(all)('%s (%s) writes in one transaction, the key claimed in it', async (id, name, request) => {
    expect(declared).toContain(id);
    const { path, body } = await request();
    // the due work of this instant run, unrecorded, and found idle
    await env.call('GET', '/v1/merchant');
    db.on = true;
    const key = `in-tx-${id}-${name.replace(/\s+/g, '-')}`;
    const r = await env.call('POST', path, body, { 'Idempotency-Key': key });
    db.on = false;
    expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
    expect(db.outside).toEqual([]);
    expect(db.transactions).toBe(1);
    // the key was claimed and the answer kept by that transaction: the same request replays it
    const again = await env.call('POST', path, body, { 'Idempotency-Key': key });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(r.body);
  });
});
