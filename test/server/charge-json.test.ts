/**
 * GET /v1/charges/{id} and GET /v1/charges serve a charge's record as JSON text remembered
 * while its row reads the same (services/charges/view.ts chargeJson): the body must be byte for
 * byte the JSON.stringify of the envelope built from the rows as stored, served the first time
 * and again, and a change to any column — made outside the app too — must show at the next read.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { cardCharge, chargeBody } from '../helpers/money.js';
import type { ChargeRow } from '../../src/server/services/charges/rows.js';
import { chargeRecord } from '../../src/server/services/charges/view.js';

let env: TestEnv;
beforeEach(async () => {
  env = await testEnv();
});
afterEach(async () => env.close());

async function raw(path: string): Promise<{ status: number; text: string; body: any }> {
  const res = await env.rt.app.request(path, { headers: { authorization: env.auth() } });
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) };
}

async function storedRows(): Promise<ChargeRow[]> {
  return env.rt.deps.db.all<ChargeRow>('SELECT * FROM charges WHERE merchant_id = ? ORDER BY created_at DESC, id DESC', [env.merchant.merchant_id]);
}

/** The bodies as the pipeline built them before: JSON.stringify of the envelope of chargeRecord(row). */
async function expectBodiesAsStored(ids: string[]): Promise<void> {
  const rows = await storedRows();
  for (const id of ids) {
    const r = await raw(`/v1/charges/${id}`);
    expect(r.status).toBe(200);
    const row = rows.find((x) => x.id === id)!;
    expect(r.text).toBe(JSON.stringify({ success: true, message: r.body.message, data: chargeRecord(row) }));
  }
  for (const qs of ['', '?per_page=2', '?per_page=2&page=2', '?status=captured']) {
    const r = await raw(`/v1/charges${qs}`);
    expect(r.status).toBe(200);
    const shown = rows.filter((x) => !qs.includes('status=captured') || x.status === 'captured');
    const page = Number(/page=(\d+)/.exec(qs.replace('per_page', ''))?.[1] ?? 1);
    const per = Number(/per_page=(\d+)/.exec(qs)?.[1] ?? 20);
    const data = shown.slice((page - 1) * per, page * per).map(chargeRecord);
    expect(r.text, qs).toBe(JSON.stringify({ success: true, message: r.body.message, data, pagination: r.body.pagination }));
  }
}

it('records are served byte for byte as stored, the first time and again, and every column change shows at the next read', async () => {
  const ids = [
    (await cardCharge(env, 1990)).body.data.id,
    (await cardCharge(env, 3000, 3, { metadata: { order: 'a"b\\c\n\u0001é😀', n: 1.5, ok: true, none: null } })).body.data.id,
    (await cardCharge(env, 1500, 1, {}, '4000000000000002')).body.data.id, // declined: failed, with a reason
    (await env.call('POST', '/v1/charges', chargeBody(2500, { payment_method: 'pix' }))).body.data.id,
  ];
  for (const id of ids) expect(id).toBeTruthy();
  await env.call('POST', `/v1/charges/${ids[0]}/refund`, { amount: 500 });
  await expectBodiesAsStored(ids);
  // served again (the remembered texts): the same bytes
  await expectBodiesAsStored(ids);

  // a column changed outside the app's services, without touching updated_at: seen at the next read
  const { db } = env.rt.deps;
  await db.run('UPDATE charges SET failure_reason = ? WHERE id = ?', ['changed by another writer', ids[2]]);
  await db.run('UPDATE charges SET customer = ? WHERE id = ?', [JSON.stringify({ name: 'Bia Lima', email: 'bia@example.com', tax_id: '52998224725', phone: '+5511987654321', type: 'individual' }), ids[0]]);
  await db.run('UPDATE charges SET metadata = NULL WHERE id = ?', [ids[1]]);
  expect((await raw(`/v1/charges/${ids[2]}`)).body.data.failure_reason).toBe('changed by another writer');
  expect((await raw(`/v1/charges/${ids[0]}`)).body.data.customer.name).toBe('Bia Lima');
  expect((await raw('/v1/charges')).body.data.find((c: { id: string }) => c.id === ids[1]).metadata).toBeNull();
  await expectBodiesAsStored(ids);

  // a refund through the API: the record moves on
  await env.call('POST', `/v1/charges/${ids[0]}/refund`, { amount: 300 });
  expect((await raw(`/v1/charges/${ids[0]}`)).body.data.refunded_amount).toBe(800);
  await expectBodiesAsStored(ids);
});

it("another merchant's charge is still a 404, remembered text or not", async () => {
  const id = (await cardCharge(env, 1990)).body.data.id;
  expect((await raw(`/v1/charges/${id}`)).status).toBe(200);
  const other = await env.newMerchant('Outra');
  const res = await env.rt.app.request(`/v1/charges/${id}`, { headers: { authorization: env.auth(other) } });
  expect(res.status).toBe(404);
  const list = await env.rt.app.request('/v1/charges', { headers: { authorization: env.auth(other) } });
  expect(((await list.json()) as { data: unknown[] }).data).toEqual([]);
});

it('a POST answers its charge byte for byte as its event holds it and as stored (the decided record serialised once)', async () => {
  const posts = [
    await cardCharge(env, 1990),
    await cardCharge(env, 3000, 3, { metadata: { order: 'a"b\\c\n\u0001é😀', n: 1.5 } }),
    await cardCharge(env, 1500, 1, {}, '4000000000000002'), // declined: charge.failed
    await env.call('POST', '/v1/charges', chargeBody(2500, { payment_method: 'pix' })), // pending: no decided record
  ];
  const rows = await storedRows();
  for (const p of posts) {
    expect(p.status).toBe(201);
    const c = p.body.data;
    const row = rows.find((x) => x.id === c.id)!;
    // the answer's data, serialised as the pipeline does, is the record of the row as stored
    expect(JSON.stringify(c)).toBe(JSON.stringify(chargeRecord(row)));
    const last = await env.rt.deps.db.get<{ type: string; data: string }>('SELECT type, data FROM events WHERE charge_id = ? ORDER BY created_at DESC, id DESC LIMIT 1', [c.id]);
    expect(last!.type).toBe(c.status === 'pending' ? 'charge.pending' : c.status === 'captured' ? 'charge.captured' : 'charge.failed');
    expect(last!.data).toBe(JSON.stringify(c));
  }
});
