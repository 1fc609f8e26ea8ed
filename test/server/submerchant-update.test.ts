import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { addressBody, docBody, nextCnpj, nextCpf, ok, pfBody, pjBody } from '../helpers/onboarding.js';

let env: TestEnv;
beforeEach(async () => {
  env = await testEnv();
});
afterEach(async () => env.close());

const patch = (id: string, body: unknown) => env.call('PATCH', `/v1/submerchants/${id}`, body);
const changes = async (id: string) => ok(env, 'GET', `/v1/submerchants/${id}/changes`);
const keyId = async () => (await ok(env, 'GET', '/v1/api-keys')).find((k: { public_key: string }) => k.public_key === env.merchant.public_key).id;

/** A pf submerchant with its address and four documents: under_review. */
async function underReview() {
  const sub = await ok(env, 'POST', '/v1/submerchants', pfBody());
  await ok(env, 'POST', `/v1/submerchants/${sub.id}/addresses`, addressBody());
  for (const t of ['front_id', 'back_id', 'selfie_with_id', 'proof_of_residence']) await ok(env, 'POST', `/v1/submerchants/${sub.id}/documents`, docBody(t));
  expect((await ok(env, 'GET', `/v1/submerchants/${sub.id}`)).status).toBe('under_review');
  return sub;
}

describe('PATCH /v1/submerchants/{id}: correcting a submerchant', () => {
  it('a pending submerchant takes the corrections, and each change is recorded with its old and new value', async () => {
    const sub = await ok(env, 'POST', '/v1/submerchants', pfBody());
    const cpf = nextCpf();
    const formatted = `${cpf.slice(0, 3)}.${cpf.slice(3, 6)}.${cpf.slice(6, 9)}-${cpf.slice(9)}`;
    const r = await patch(sub.id, { legal_name: 'Ana Souza Lima', tax_id: formatted, average_ticket: 15000, mother_name: null });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toMatchObject({ id: sub.id, status: 'pending', legal_name: 'Ana Souza Lima', tax_id: cpf, average_ticket: '15000', mother_name: null, trade_name: 'Ana Doces' });
    expect(r.body.data.updated_at).toBe(env.clock.now().toISOString());
    expect(await ok(env, 'GET', `/v1/submerchants/${sub.id}`)).toEqual(r.body.data);
    const log = await changes(sub.id);
    expect(log).toEqual([
      {
        id: expect.any(String),
        submerchant_id: sub.id,
        status: 'pending',
        changes: [
          { field: 'legal_name', from: 'Ana Souza', to: 'Ana Souza Lima' },
          { field: 'tax_id', from: sub.tax_id, to: cpf },
          { field: 'mother_name', from: 'Maria Souza', to: null },
          { field: 'average_ticket', from: null, to: '15000' },
        ],
        changed_by: await keyId(),
        created_at: env.clock.now().toISOString(),
      },
    ]);
    // the same values again change nothing and record nothing
    const again = await patch(sub.id, { legal_name: 'Ana Souza Lima', tax_id: cpf });
    expect(again.status).toBe(200);
    expect(again.body.message).toBe('Submerchant unchanged');
    env.clock.advance(60_000);
    await patch(sub.id, { email: 'ana.lima@example.com' });
    const two = await changes(sub.id);
    expect(two.map((c: { changes: { field: string }[] }) => c.changes.map((x) => x.field))).toEqual([['email'], ['legal_name', 'tax_id', 'mother_name', 'average_ticket']]); // newest first
  });

  it('under review: the fields being reviewed are refused with 409 invalid_state naming them; the others change', async () => {
    const sub = await underReview();
    const frozen = await patch(sub.id, { tax_id: nextCpf(), legal_name: 'Outra', email: 'novo@example.com' });
    expect(frozen.status).toBe(409);
    expect(frozen.body.error).toBe('invalid_state');
    expect(frozen.body.details.map((d: { field: string }) => d.field)).toEqual(['legal_name', 'tax_id']);
    expect(frozen.body.message).toMatch(/under_review/);
    expect((await ok(env, 'GET', `/v1/submerchants/${sub.id}`)).email).toBe(sub.email); // nothing changed
    const open = await patch(sub.id, { email: 'novo@example.com', phone: '+55 11 98765-4321', soft_descriptor: 'ANA DOCES' });
    expect(open.status, JSON.stringify(open.body)).toBe(200);
    expect(open.body.data).toMatchObject({ status: 'under_review', email: 'novo@example.com', phone: '+5511987654321', soft_descriptor: 'ANA DOCES' });
    expect((await changes(sub.id))[0]).toMatchObject({ status: 'under_review', changes: [{ field: 'email' }, { field: 'phone' }, { field: 'soft_descriptor' }] });
    // sending a reviewed field with its current value is not a change, so it is not refused
    expect((await patch(sub.id, { tax_id: sub.tax_id, email: 'ana@example.com' })).status).toBe(200);
  });

  it('an approved or rejected submerchant is final: 409 invalid_state', async () => {
    const sub = await underReview();
    await ok(env, 'POST', `/v1/sandbox/submerchants/${sub.id}/review`, { decision: 'approve' });
    const r = await patch(sub.id, { email: 'x@example.com' });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ error: 'invalid_state' });
    expect(r.body.message).toContain('approved');
  });

  it('a correction is held to the age rule too', async () => {
    const pf = await ok(env, 'POST', '/v1/submerchants', pfBody());
    expect((await patch(pf.id, { birth_date: '2009-01-01' })).status).toBe(400);
  });

  it('refuses what the entity type does not take, a tax id of the other kind, a duplicate, an empty body; another merchant gets 404', async () => {
    const pj = await ok(env, 'POST', '/v1/submerchants', pjBody());
    const pf = await ok(env, 'POST', '/v1/submerchants', pfBody());
    expect((await patch(pj.id, {})).status).toBe(400);
    const birth = await patch(pj.id, { birth_date: '1985-04-12' });
    expect(birth.status).toBe(400);
    expect(birth.body.details).toEqual([{ field: 'birth_date', message: 'is only for entity_type pf (an individual)' }]);
    const kind = await patch(pj.id, { tax_id: nextCpf() });
    expect(kind.status).toBe(400);
    expect(kind.body.details[0]).toMatchObject({ field: 'tax_id' });
    expect(kind.body.details[0].message).toMatch(/is a CPF, but entity_type is pj/);
    const entity = await patch(pj.id, { entity_type: 'pf' });
    expect(entity.status).toBe(400);
    expect(entity.body.details).toContainEqual({ field: 'entity_type', message: 'is not a known field' });
    const dup = await patch(pf.id, { tax_id: (await ok(env, 'POST', '/v1/submerchants', pfBody())).tax_id });
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ error: 'conflict', details: [{ field: 'tax_id' }] });
    const required = await patch(pf.id, { email: null });
    expect(required.status).toBe(400);
    const other = await env.newMerchant('Outra Loja');
    const foreign = await env.call('PATCH', `/v1/submerchants/${pf.id}`, { email: 'x@example.com' }, { authorization: env.auth(other) });
    expect(foreign.status).toBe(404);
    expect((await changes(pf.id))).toEqual([]);
    const pjNew = await patch(pj.id, { tax_id: nextCnpj(), cnaes: [{ code: '4721-1/02', is_primary: true }] });
    expect(pjNew.status, JSON.stringify(pjNew.body)).toBe(200);
    expect(pjNew.body.data.cnaes).toEqual([{ code: '4721102', description: null, is_primary: true }]);
  });
});
