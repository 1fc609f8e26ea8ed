import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cnpjCheckDigits } from '../../src/domain/taxid.js';
import { realPng } from '../helpers/files.js';
import { basic, testEnv, type TestEnv } from '../helpers/server.js';
import { addressBody, cpf, docBody, events, nextCnpj, nextCpf, ok, partnerBody, pfBody, pjBody } from '../helpers/onboarding.js';

let env: TestEnv;
beforeEach(async () => {
  env = await testEnv();
});
afterEach(async () => {
  await env.close();
});

const PJ_DOCS = ['social_contract', 'cnpj_card', 'proof_of_residence_company'];
const PF_DOCS = ['front_id', 'back_id', 'selfie_with_id', 'proof_of_residence'];
const PARTNER_DOCS = ['partner_front_id', 'partner_back_id', 'partner_selfie_with_id', 'partner_proof_of_residence'];

async function createPj(over: Record<string, unknown> = {}) {
  return ok(env, 'POST', '/v1/submerchants', pjBody(over));
}
async function createPf(over: Record<string, unknown> = {}) {
  return ok(env, 'POST', '/v1/submerchants', pfBody(over));
}

describe('POST /v1/submerchants', () => {
  it('creates a pj by default, with its wallet, money as strings of cents and the created event, in one go', async () => {
    const body = pjBody({
      soft_descriptor: 'PADARIABOA',
      average_ticket: 15000,
      monthly_revenue: 4500000,
      mcc: '5462',
      cnaes: [
        { code: '1091-1/02', description: 'Padaria e confeitaria', is_primary: true },
        { code: '4721102', description: 'Comércio varejista de pães' },
      ],
    });
    const r = await env.call('POST', '/v1/submerchants', body);
    expect(r.status).toBe(201);
    const s = r.body.data;
    expect(s).toMatchObject({
      parent_merchant_id: env.merchant.merchant_id,
      entity_type: 'pj',
      status: 'pending',
      tax_id: body.tax_id,
      average_ticket: '15000',
      monthly_revenue: '4500000',
      mcc: '5462',
      soft_descriptor: 'PADARIABOA',
      birth_date: null,
      reviewed_at: null,
      product_categories: [],
    });
    expect(s.cnaes).toEqual([
      { code: '1091102', description: 'Padaria e confeitaria', is_primary: true },
      { code: '4721102', description: 'Comércio varejista de pães', is_primary: false },
    ]);
    const wallet = await env.rt.deps.db.get<{ id: string; owner_type: string; balance: number; merchant_id: string }>(
      'SELECT id, owner_type, balance, merchant_id FROM wallets WHERE owner_id = ?',
      [s.id],
    );
    expect(wallet).toMatchObject({ id: s.wallet_id, owner_type: 'submerchant', balance: 0, merchant_id: env.merchant.merchant_id });
    const ev = await events(env, 'submerchant.created');
    expect(ev).toHaveLength(1);
    expect(ev[0]!.resource_id).toBe(s.id);
    expect(ev[0]!.data.tax_id).toBe(body.tax_id);
  });

  it('gets and lists with the filters status, entity_type and tax_id, newest first', async () => {
    const a = await createPj();
    const b = await createPf();
    env.clock.advance(1000);
    const c = await createPj();
    const got = await env.call('GET', `/v1/submerchants/${a.id}`);
    expect(got.status).toBe(200);
    expect(got.body.data).toEqual(a);

    const all = await env.call('GET', '/v1/submerchants');
    expect(all.body.data.map((s: any) => s.id)).toEqual([c.id, b.id, a.id]);
    expect(all.body.pagination).toEqual({ page: 1, perPage: 20, total: 3, totalPages: 1 });
    const pj = await env.call('GET', '/v1/submerchants?entity_type=pj');
    expect(pj.body.data.map((s: any) => s.id)).toEqual([c.id, a.id]);
    const pf = await env.call('GET', '/v1/submerchants?entity_type=pf&status=pending');
    expect(pf.body.data.map((s: any) => s.id)).toEqual([b.id]);
    const none = await env.call('GET', '/v1/submerchants?status=approved');
    expect(none.body.data).toEqual([]);
    // a formatted tax id finds the bare one
    const t = a.tax_id as string;
    const formatted = `${t.slice(0, 2)}.${t.slice(2, 5)}.${t.slice(5, 8)}/${t.slice(8, 12)}-${t.slice(12)}`;
    const byTax = await env.call('GET', `/v1/submerchants?tax_id=${encodeURIComponent(formatted)}`);
    expect(byTax.body.data.map((s: any) => s.id)).toEqual([a.id]);
    const paged = await env.call('GET', '/v1/submerchants?per_page=2&page=2');
    expect(paged.body.data.map((s: any) => s.id)).toEqual([a.id]);
    expect(paged.body.pagination).toEqual({ page: 2, perPage: 2, total: 3, totalPages: 2 });
    const bad = await env.call('GET', '/v1/submerchants?status=active');
    expect(bad.status).toBe(400);
    expect(bad.body.details[0].field).toBe('status');
  });

  it('pf takes a CPF with real check digits; a CNPJ, a wrong check digit or repeated digits are refused', async () => {
    const good = cpf('529982247');
    expect(good).toBe('52998224725');
    const r = await env.call('POST', '/v1/submerchants', pfBody({ tax_id: good }));
    expect(r.status).toBe(201);
    expect(r.body.data.entity_type).toBe('pf');
    const cases: [string, RegExp][] = [
      ['52998224724', /check digits/],
      ['11111111111', /all digits are the same/],
      ['5299822472', /CPF \(11 digits\) or a CNPJ|CPF of 11 digits/],
      [nextCnpj(), /is a CNPJ/],
    ];
    for (const [tax_id, msg] of cases) {
      const bad = await env.call('POST', '/v1/submerchants', pfBody({ tax_id }));
      expect(bad.status, tax_id).toBe(400);
      expect(bad.body.error).toBe('validation_error');
      expect(bad.body.details[0].field).toBe('tax_id');
      expect(bad.body.details[0].message).toMatch(msg);
    }
  });

  it('pj takes a CNPJ (numeric or alphanumeric) with real check digits; a CPF, a wrong digit or repeated digits are refused', async () => {
    const numeric = await env.call('POST', '/v1/submerchants', pjBody({ tax_id: '11222333000181' }));
    expect(numeric.status).toBe(201);
    const alpha = await env.call('POST', '/v1/submerchants', pjBody({ tax_id: '12ABC34501DE35' }));
    expect(alpha.status).toBe(201);
    expect(alpha.body.data.tax_id).toBe('12ABC34501DE35');
    const base = 'AB1CD2EF0001';
    const lower = await env.call('POST', '/v1/submerchants', pjBody({ tax_id: `ab.1cd.2ef/0001-${cnpjCheckDigits(base)}` }));
    expect(lower.status).toBe(201);
    expect(lower.body.data.tax_id).toBe(base + cnpjCheckDigits(base));
    const cases: [string, RegExp][] = [
      ['11222333000182', /check digits/],
      ['12ABC34501DE36', /check digits/],
      ['00000000000000', /all characters are the same/],
      ['52998224725', /is a CPF/],
      ['1122233300018', /CPF \(11 digits\) or a CNPJ/],
    ];
    for (const [tax_id, msg] of cases) {
      const bad = await env.call('POST', '/v1/submerchants', pjBody({ tax_id }));
      expect(bad.status, tax_id).toBe(400);
      expect(bad.body.details[0].field).toBe('tax_id');
      expect(bad.body.details[0].message).toMatch(msg);
    }
  });

  it('accepts a formatted CPF and stores it bare', async () => {
    const r = await env.call('POST', '/v1/submerchants', pfBody({ tax_id: '529.982.247-25' }));
    expect(r.status).toBe(201);
    expect(r.body.data.tax_id).toBe('52998224725');
  });

  it('refuses a second submerchant with the same tax_id for the merchant (409), but another merchant may use it', async () => {
    const tax_id = nextCnpj();
    await createPj({ tax_id });
    const dup = await env.call('POST', '/v1/submerchants', pjBody({ tax_id }));
    expect(dup.status).toBe(409);
    expect(dup.body.error).toBe('conflict');
    const other = await env.newMerchant('Outra');
    const r = await env.call('POST', '/v1/submerchants', pjBody({ tax_id }), { authorization: env.auth(other) });
    expect(r.status).toBe(201);
  });

  it('requires trade_name, legal_name, tax_id and email, and checks the e-mail', async () => {
    const r = await env.call('POST', '/v1/submerchants', {});
    expect(r.status).toBe(400);
    expect(r.body.details.map((d: any) => d.field).sort()).toEqual(['email', 'legal_name', 'tax_id', 'trade_name']);
    const e = await env.call('POST', '/v1/submerchants', pjBody({ email: 'not-an-email' }));
    expect(e.status).toBe(400);
    expect(e.body.details).toEqual([{ field: 'email', message: 'must be a valid e-mail address' }]);
    const unknown = await env.call('POST', '/v1/submerchants', pjBody({ colour: 'blue' }));
    expect(unknown.status).toBe(400);
    expect(unknown.body.details).toEqual([{ field: 'colour', message: 'is not a known field' }]);
    const et = await env.call('POST', '/v1/submerchants', pjBody({ entity_type: 'ltda' }));
    expect(et.status).toBe(400);
    expect(et.body.details[0].field).toBe('entity_type');
  });

  it('mcc must be 4 digits', async () => {
    expect((await env.call('POST', '/v1/submerchants', pjBody({ mcc: '5411' }))).status).toBe(201);
    for (const mcc of ['541', '54111', '54a1', 5411]) {
      const r = await env.call('POST', '/v1/submerchants', pjBody({ mcc }));
      expect(r.status, String(mcc)).toBe(400);
      expect(r.body.details[0].field).toBe('mcc');
    }
  });

  it('cnaes: 7-digit codes, exactly one primary, no duplicates', async () => {
    const okOne = await env.call('POST', '/v1/submerchants', pjBody({ cnaes: [{ code: '4781400', is_primary: true }] }));
    expect(okOne.status).toBe(201);
    expect(okOne.body.data.cnaes).toEqual([{ code: '4781400', description: null, is_primary: true }]);
    const cases: [unknown, string, RegExp][] = [
      [[{ code: '478140', is_primary: true }], 'cnaes[0].code', /7-digit/],
      [[{ code: '4781400' }], 'cnaes', /found 0/],
      [[{ code: '4781400', is_primary: true }, { code: '4721102', is_primary: true }], 'cnaes', /found 2/],
      [[{ code: '4781400', is_primary: true }, { code: '4781-4/00' }], 'cnaes[1].code', /listed twice/],
    ];
    for (const [cnaes, field, msg] of cases) {
      const r = await env.call('POST', '/v1/submerchants', pjBody({ cnaes }));
      expect(r.status, JSON.stringify(cnaes)).toBe(400);
      expect(r.body.details[0].field).toBe(field);
      expect(r.body.details[0].message).toMatch(msg);
    }
  });

  it('average_ticket and monthly_revenue are integer cents', async () => {
    for (const bad of [150.5, -1, '15000']) {
      const r = await env.call('POST', '/v1/submerchants', pjBody({ average_ticket: bad }));
      expect(r.status, String(bad)).toBe(400);
      expect(r.body.details[0].field).toBe('average_ticket');
      const m = await env.call('POST', '/v1/submerchants', pjBody({ monthly_revenue: bad }));
      expect(m.status).toBe(400);
      expect(m.body.details[0].field).toBe('monthly_revenue');
    }
    const zero = await createPj({ average_ticket: 0 });
    expect(zero.average_ticket).toBe('0');
    expect(zero.monthly_revenue).toBeNull();
  });

  it('birth_date and mother_name are for pf only; the date must be real and not in the future', async () => {
    const pf = await createPf({ birth_date: '1990-02-28', mother_name: 'Maria' });
    expect(pf).toMatchObject({ birth_date: '1990-02-28', mother_name: 'Maria' });
    for (const f of ['birth_date', 'mother_name']) {
      const r = await env.call('POST', '/v1/submerchants', pjBody({ [f]: f === 'birth_date' ? '1990-01-01' : 'Maria' }));
      expect(r.status).toBe(400);
      expect(r.body.details[0]).toEqual({ field: f, message: 'is only for entity_type pf (an individual)' });
    }
    for (const d of ['1990-02-30', '12/04/1985', '2027-01-01']) {
      const r = await env.call('POST', '/v1/submerchants', pfBody({ birth_date: d }));
      expect(r.status, d).toBe(400);
      expect(r.body.details[0].field).toBe('birth_date');
    }
  });
});

describe('addresses', () => {
  it('first address is primary, billing and BR by default; a later one can take primary; CEP and UF normalised', async () => {
    const s = await createPj();
    const r = await env.call('POST', `/v1/submerchants/${s.id}/addresses`, addressBody({ zip_code: '01310-100', state: 'sp' }));
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ submerchant_id: s.id, type: 'billing', country: 'BR', is_primary: true, zip_code: '01310100', state: 'SP', complement: null });
    const second = await ok(env, 'POST', `/v1/submerchants/${s.id}/addresses`, addressBody({ type: 'business', street: 'Rua Augusta' }));
    expect(second.is_primary).toBe(false);
    env.clock.advance(1000);
    const third = await ok(env, 'POST', `/v1/submerchants/${s.id}/addresses`, addressBody({ is_primary: true, city: 'Campinas' }));
    expect(third.is_primary).toBe(true);
    const list = await env.call('GET', `/v1/submerchants/${s.id}/addresses`);
    expect(list.status).toBe(200);
    expect(list.body.data.map((a: any) => [a.id, a.is_primary])).toEqual([
      [third.id, true],
      [second.id, false],
      [r.body.data.id, false],
    ]);
  });

  it('refuses a state that is not one of the 27 UFs, a CEP that is not 8 digits, another country or type', async () => {
    const s = await createPj();
    const cases: [Record<string, unknown>, string][] = [
      [{ state: 'XX' }, 'state'],
      [{ state: 'São Paulo' }, 'state'],
      [{ zip_code: '0131010' }, 'zip_code'],
      [{ zip_code: '01310-10a' }, 'zip_code'],
      // no CEP is all zeros
      [{ zip_code: '00000000' }, 'zip_code'],
      [{ zip_code: '00000-000' }, 'zip_code'],
      [{ country: 'AR' }, 'country'],
      [{ type: 'home' }, 'type'],
      [{ street: '' }, 'street'],
    ];
    for (const [over, field] of cases) {
      const r = await env.call('POST', `/v1/submerchants/${s.id}/addresses`, addressBody(over));
      expect(r.status, JSON.stringify(over)).toBe(400);
      expect(r.body.details[0].field).toBe(field);
    }
    for (const uf of ['AC', 'DF', 'TO', 'RS']) {
      expect((await env.call('POST', `/v1/submerchants/${s.id}/addresses`, addressBody({ state: uf }))).status).toBe(201);
    }
    const missing = await env.call('POST', `/v1/submerchants/${s.id}/addresses`, { street: 'x' });
    expect(missing.body.details.map((d: any) => d.field).sort()).toEqual(['city', 'neighborhood', 'number', 'state', 'zip_code']);
  });
});

describe('legal representatives', () => {
  it('adds a pf partner with defaults; the same document again updates it (200) without a duplicate', async () => {
    const s = await createPj();
    const doc = nextCpf();
    const r = await env.call('POST', `/v1/submerchants/${s.id}/legal-representatives`, {
      name: 'Ana Souza',
      document: doc,
      birth_date: '1985-04-12',
      mother_name: 'Maria Souza',
      participation_percentage: 60,
    });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({
      submerchant_id: s.id,
      document: doc,
      entity_type: 'pf',
      role: 'legal_representative',
      is_admin: false,
      participation_percentage: 60,
      legal_name: null,
    });
    env.clock.advance(1000);
    const formatted = `${doc.slice(0, 3)}.${doc.slice(3, 6)}.${doc.slice(6, 9)}-${doc.slice(9)}`;
    const again = await env.call('POST', `/v1/submerchants/${s.id}/legal-representatives`, {
      name: 'Ana Souza Lima',
      document: formatted,
      is_admin: true,
      email: 'ana@padaria.com.br',
    });
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({
      id: r.body.data.id,
      name: 'Ana Souza Lima',
      is_admin: true,
      email: 'ana@padaria.com.br',
      birth_date: '1985-04-12',
      participation_percentage: 60,
      created_at: r.body.data.created_at,
    });
    expect(again.body.data.updated_at > r.body.data.updated_at).toBe(true);
    const list = await env.call('GET', `/v1/submerchants/${s.id}/legal-representatives`);
    expect(list.body.data).toHaveLength(1);
    const rows = await env.rt.deps.db.all('SELECT id FROM legal_representatives WHERE submerchant_id = ?', [s.id]);
    expect(rows).toHaveLength(1);
  });

  it('the UNIQUE (submerchant_id, document) constraint backs the idempotency', async () => {
    const s = await createPj();
    const p = await ok(env, 'POST', `/v1/submerchants/${s.id}/legal-representatives`, partnerBody());
    await expect(
      env.rt.deps.db.run(
        `INSERT INTO legal_representatives (id, submerchant_id, merchant_id, name, document, entity_type, role, created_at, updated_at)
         VALUES ('x', ?, ?, 'dup', ?, 'pf', 'partner', 't', 't')`,
        [s.id, env.merchant.merchant_id, p.document],
      ),
    ).rejects.toThrow(/unique/i);
  });

  it('concurrent first calls with one document end in one record', async () => {
    const s = await createPj();
    const body = partnerBody();
    const rs = await Promise.all([1, 2, 3].map(() => env.call('POST', `/v1/submerchants/${s.id}/legal-representatives`, body)));
    expect(rs.map((r) => r.status).sort()).toEqual([200, 200, 201]);
    expect(new Set(rs.map((r) => r.body.data.id)).size).toBe(1);
  });

  it('is only for pj submerchants: a pf gets 422 with a clear message', async () => {
    const pf = await createPf();
    const r = await env.call('POST', `/v1/submerchants/${pf.id}/legal-representatives`, partnerBody());
    expect(r.status).toBe(422);
    expect(r.body.error).toBe('business_rule');
    expect(r.body.message).toMatch(/only be added to a pj .*pf/);
    const list = await env.call('GET', `/v1/submerchants/${pf.id}/legal-representatives`);
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([]);
  });

  it('a pj partner needs a CNPJ and legal_name and takes no birth_date or mother_name; a pf partner needs a CPF', async () => {
    const s = await createPj();
    const url = `/v1/submerchants/${s.id}/legal-representatives`;
    const cnpj = nextCnpj();
    const pj = await env.call('POST', url, { name: 'Carlos Lima', document: cnpj, entity_type: 'pj', legal_name: 'Holding Lima SA', participation_percentage: 40 });
    expect(pj.status).toBe(201);
    expect(pj.body.data).toMatchObject({ entity_type: 'pj', legal_name: 'Holding Lima SA', birth_date: null });
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ name: 'X', document: nextCnpj(), entity_type: 'pj' }, 'legal_name', /required when entity_type is pj/],
      [{ name: 'X', document: nextCnpj(), entity_type: 'pj', legal_name: 'X SA', birth_date: '1980-01-01' }, 'birth_date', /only for entity_type pf/],
      [{ name: 'X', document: nextCnpj(), entity_type: 'pj', legal_name: 'X SA', mother_name: 'M' }, 'mother_name', /only for entity_type pf/],
      [{ name: 'X', document: nextCnpj() }, 'document', /is a CNPJ/],
      [{ name: 'X', document: nextCpf(), entity_type: 'pj', legal_name: 'X SA' }, 'document', /is a CPF/],
      [{ name: 'X', document: '52998224724' }, 'document', /check digits/],
      [{ name: 'X', document: nextCpf(), legal_name: 'X' }, 'legal_name', /only for entity_type pj/],
      [{ name: 'X', document: nextCpf(), birth_date: '2999-01-01' }, 'birth_date', /future/],
      [{ name: 'X', document: nextCpf(), role: 'boss' }, 'role', /must be one of/],
      [{ document: nextCpf() }, 'name', /required/],
    ];
    for (const [body, field, msg] of cases) {
      const r = await env.call('POST', url, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.details[0].field).toBe(field);
      expect(r.body.details[0].message).toMatch(msg);
    }
  });

  it('participation_percentage is 0 to 100 and the partners together hold at most 100 (422 naming the current sum)', async () => {
    const s = await createPj();
    const url = `/v1/submerchants/${s.id}/legal-representatives`;
    for (const bad of [-1, 100.5, 33.333, '50']) {
      const r = await env.call('POST', url, partnerBody({ participation_percentage: bad }));
      expect(r.status, String(bad)).toBe(400);
      expect(r.body.details[0].field).toBe('participation_percentage');
    }
    const a = await ok(env, 'POST', url, partnerBody({ participation_percentage: 33.33 }));
    const b = await ok(env, 'POST', url, partnerBody({ participation_percentage: 36.67 }));
    expect(b.participation_percentage).toBe(36.67);
    const over = await env.call('POST', url, partnerBody({ participation_percentage: 30.01 }));
    expect(over.status).toBe(422);
    expect(over.body.error).toBe('business_rule');
    expect(over.body.message).toContain('already hold 70%');
    expect(over.body.details[0].field).toBe('participation_percentage');
    const exact = await env.call('POST', url, partnerBody({ participation_percentage: 30 }));
    expect(exact.status).toBe(201);
    // an update counts the others only: a can go from 33.33 to 33.33 (no change) but not to 40
    expect((await env.call('POST', url, { name: 'A', document: a.document, participation_percentage: 33.33 })).status).toBe(200);
    const up = await env.call('POST', url, { name: 'A', document: a.document, participation_percentage: 40 });
    expect(up.status).toBe(422);
    expect(up.body.message).toContain('already hold 66.67%');
    const zero = await env.call('POST', url, partnerBody({ participation_percentage: 0 }));
    expect(zero.status).toBe(201);
  });
});

describe('concurrency', () => {
  it('concurrent partners never take the total above 100%, and concurrent documents of one type leave exactly one current', async () => {
    const s = await createPj();
    const rs = await Promise.all(
      [1, 2, 3, 4, 5].map(() => env.call('POST', `/v1/submerchants/${s.id}/legal-representatives`, partnerBody({ participation_percentage: 30 }))),
    );
    expect(rs.filter((r) => r.status === 201)).toHaveLength(3);
    expect(rs.filter((r) => r.status === 422)).toHaveLength(2);
    const sum = await env.rt.deps.db.get<{ s: number }>('SELECT SUM(participation_bp) AS s FROM legal_representatives WHERE submerchant_id = ?', [s.id]);
    expect(sum?.s).toBe(9000);

    const ds = await Promise.all([1, 2, 3, 4].map(() => env.call('POST', `/v1/submerchants/${s.id}/documents`, docBody('cnpj_card'))));
    expect(ds.map((d) => d.status)).toEqual([201, 201, 201, 201]);
    const list = (await env.call('GET', `/v1/submerchants/${s.id}/documents?type=cnpj_card`)).body.data;
    expect(list.filter((d: any) => d.status === 'pending')).toHaveLength(1);
    expect(list.filter((d: any) => d.status === 'replaced')).toHaveLength(3);
  });
});

describe('documents', () => {
  it('adds a document (pending) with the created event; the types allowed follow the entity type', async () => {
    const pj = await createPj();
    const r = await env.call('POST', `/v1/submerchants/${pj.id}/documents`, docBody('social_contract', { number: '123', notes: 'ok', expires_at: '2027-01-01T00:00:00Z' }));
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({
      submerchant_id: pj.id,
      type: 'social_contract',
      status: 'pending',
      legal_representative_id: null,
      number: '123',
      notes: 'ok',
      expires_at: '2027-01-01T00:00:00.000Z',
      verified_at: null,
      mime_type: 'application/pdf',
    });
    expect((await events(env, 'document.created')).map((e) => e.resource_id)).toEqual([r.body.data.id]);
    expect((await env.call('POST', `/v1/submerchants/${pj.id}/documents`, docBody('contract_amendment'))).status).toBe(201);
    for (const t of PF_DOCS) {
      const bad = await env.call('POST', `/v1/submerchants/${pj.id}/documents`, docBody(t));
      expect(bad.status, t).toBe(422);
      expect(bad.body.details[0].field).toBe('type');
      expect(bad.body.message).toContain('not accepted for a pj submerchant');
    }
    const pf = await createPf();
    for (const t of PF_DOCS) expect((await env.call('POST', `/v1/submerchants/${pf.id}/documents`, docBody(t))).status).toBe(201);
    for (const t of [...PJ_DOCS, 'contract_amendment', 'partner_front_id']) {
      const body = docBody(t, t.startsWith('partner_') ? { legal_representative_id: pf.id } : {});
      const bad = await env.call('POST', `/v1/submerchants/${pf.id}/documents`, body);
      expect(bad.status, t).toBe(422);
      expect(bad.body.message).toContain('not accepted for a pf submerchant');
    }
    const unknown = await env.call('POST', `/v1/submerchants/${pf.id}/documents`, docBody('passport'));
    expect(unknown.status).toBe(400);
    expect(unknown.body.details[0].field).toBe('type');
  });

  it('legal_representative_id is required for partner_ types, forbidden otherwise, and must be a partner of this submerchant', async () => {
    const s = await createPj();
    const other = await createPj();
    const p = await ok(env, 'POST', `/v1/submerchants/${s.id}/legal-representatives`, partnerBody());
    const q = await ok(env, 'POST', `/v1/submerchants/${other.id}/legal-representatives`, partnerBody());
    const url = `/v1/submerchants/${s.id}/documents`;
    const good = await env.call('POST', url, docBody('partner_front_id', { legal_representative_id: p.id }));
    expect(good.status).toBe(201);
    expect(good.body.data.legal_representative_id).toBe(p.id);
    const missing = await env.call('POST', url, docBody('partner_front_id'));
    expect(missing.status).toBe(400);
    expect(missing.body.details).toEqual([{ field: 'legal_representative_id', message: 'is required for document type partner_front_id' }]);
    const forbidden = await env.call('POST', url, docBody('cnpj_card', { legal_representative_id: p.id }));
    expect(forbidden.status).toBe(400);
    expect(forbidden.body.details[0].field).toBe('legal_representative_id');
    expect(forbidden.body.details[0].message).toMatch(/only for partner_ document types/);
    const foreign = await env.call('POST', url, docBody('partner_back_id', { legal_representative_id: q.id }));
    expect(foreign.status).toBe(404);
    expect(foreign.body.details[0].field).toBe('legal_representative_id');
    const random = await env.call('POST', url, docBody('partner_back_id', { legal_representative_id: '0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f' }));
    expect(random.status).toBe(404);
    expect(random.body.message).toBe(foreign.body.message);
  });

  it('accepts application/pdf, image/png and image/jpeg with a matching extension; refuses other types and mismatches', async () => {
    const s = await createPj();
    const url = `/v1/submerchants/${s.id}/documents`;
    const goods: [string, string][] = [
      ['application/pdf', 'a.PDF'],
      ['image/png', 'b.png'],
      ['image/jpeg', 'c.jpg'],
      ['image/jpeg', 'd.jpeg'],
    ];
    for (const [mime_type, file_name] of goods) {
      const r = await env.call('POST', url, docBody('cnpj_card', { mime_type, file_name }));
      expect(r.status, file_name).toBe(201);
    }
    const bads: [Record<string, unknown>, string, RegExp][] = [
      [{ mime_type: 'image/gif', file_name: 'a.gif' }, 'mime_type', /must be one of/],
      [{ mime_type: 'text/html', file_name: 'a.html' }, 'mime_type', /must be one of/],
      [{ mime_type: 'application/pdf', file_name: 'a.png' }, 'file_name', /does not match/],
      [{ mime_type: 'image/png', file_name: 'contrato' }, 'file_name', /must have an extension/],
      [{ mime_type: 'image/png', file_name: 'a.exe' }, 'file_name', /not accepted/],
      [{ file_size: 0 }, 'file_size', /at least 1/],
      [{ file_size: 10 * 1024 * 1024 + 1 }, 'file_size', /at most/],
      [{ file_url: 'ftp://x/y.pdf' }, 'file_url', /http/],
      [{ file_url: 'not a url' }, 'file_url', /http/],
      [{ expires_at: '2026-01-01T00:00:00Z' }, 'expires_at', /future/],
      [{ expires_at: '2026-13-01' }, 'expires_at', /ISO 8601/],
    ];
    for (const [over, field, msg] of bads) {
      const r = await env.call('POST', url, docBody('cnpj_card', over));
      expect(r.status, JSON.stringify(over)).toBe(400);
      expect(r.body.details[0].field).toBe(field);
      expect(r.body.details[0].message).toMatch(msg);
    }
    expect((await env.call('POST', url, docBody('cnpj_card', { file_size: 10 * 1024 * 1024 }))).status).toBe(201);
  });

  it('a second document of the same type replaces the first (new record, both events, one transaction); partner documents per partner', async () => {
    const s = await createPj();
    const url = `/v1/submerchants/${s.id}/documents`;
    const first = await ok(env, 'POST', url, docBody('cnpj_card'));
    const other = await ok(env, 'POST', url, docBody('social_contract'));
    env.clock.advance(1000);
    const second = await ok(env, 'POST', url, docBody('cnpj_card', { file_name: 'novo.pdf' }));
    expect(second.id).not.toBe(first.id);
    expect(second.status).toBe('pending');
    const list = await env.call('GET', url);
    const byId = Object.fromEntries(list.body.data.map((d: any) => [d.id, d.status]));
    expect(byId).toEqual({ [first.id]: 'replaced', [second.id]: 'pending', [other.id]: 'pending' });
    const replaced = await events(env, 'document.replaced');
    expect(replaced.map((e) => [e.resource_id, e.data.status, e.data.replaced_by])).toEqual([[first.id, 'replaced', second.id]]);
    expect((await events(env, 'document.created')).map((e) => e.resource_id)).toEqual([first.id, other.id, second.id]);
    const filtered = await env.call('GET', `${url}?status=replaced`);
    expect(filtered.body.data.map((d: any) => d.id)).toEqual([first.id]);
    const byType = await env.call('GET', `${url}?type=cnpj_card`);
    expect(byType.body.data.map((d: any) => d.id)).toEqual([second.id, first.id]);

    // partner documents: the same type for another partner does not replace
    const p1 = await ok(env, 'POST', `/v1/submerchants/${s.id}/legal-representatives`, partnerBody());
    const p2 = await ok(env, 'POST', `/v1/submerchants/${s.id}/legal-representatives`, partnerBody());
    const a = await ok(env, 'POST', url, docBody('partner_front_id', { legal_representative_id: p1.id }));
    const b = await ok(env, 'POST', url, docBody('partner_front_id', { legal_representative_id: p2.id }));
    const a2 = await ok(env, 'POST', url, docBody('partner_front_id', { legal_representative_id: p1.id }));
    const st = Object.fromEntries((await env.call('GET', `${url}?type=partner_front_id`)).body.data.map((d: any) => [d.id, d.status]));
    expect(st).toEqual({ [a.id]: 'replaced', [b.id]: 'pending', [a2.id]: 'pending' });
    const byPartner = await env.call('GET', `${url}?legal_representative_id=${p1.id}`);
    expect(byPartner.body.data.map((d: any) => d.id)).toEqual([a2.id, a.id]);
  });

  it('a replacement that fails leaves the previous document untouched (no half-written state)', async () => {
    const s = await createPj();
    const url = `/v1/submerchants/${s.id}/documents`;
    const first = await ok(env, 'POST', url, docBody('cnpj_card'));
    // the event insert fails inside the transaction: the new row and the replacement roll back
    const db = env.rt.deps.db;
    if (db.dialect.name === 'postgres') {
      await db.run(
        `CREATE FUNCTION fail_doc_event() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.type = 'document.created' THEN RAISE EXCEPTION 'boom'; END IF; RETURN NEW; END $$`,
      );
      await db.run('CREATE TRIGGER fail_events BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION fail_doc_event()');
    } else {
      await db.run(`CREATE TRIGGER fail_events BEFORE INSERT ON events WHEN NEW.type = 'document.created' BEGIN SELECT RAISE(ABORT, 'boom'); END`);
    }
    const r = await env.call('POST', url, docBody('cnpj_card'));
    expect(r.status).toBe(500);
    if (db.dialect.name === 'postgres') {
      await db.run('DROP TRIGGER fail_events ON events');
      await db.run('DROP FUNCTION fail_doc_event()');
    } else {
      await db.run('DROP TRIGGER fail_events');
    }
    const list = await env.call('GET', url);
    expect(list.body.data.map((d: any) => [d.id, d.status])).toEqual([[first.id, 'pending']]);
    expect(await events(env, 'document.replaced')).toEqual([]);
  });

  it("a file_url on this service must be one of this submerchant's uploads with the declared type and size", async () => {
    const s = await createPj();
    const other = await createPj();
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), Buffer.from('IHDR'), Buffer.alloc(20)]);
    const fd = new FormData();
    fd.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'rg.png');
    const up = await env.rt.app.request(`/v1/submerchants/${s.id}/upload`, { method: 'POST', body: fd, headers: { authorization: env.auth() } });
    expect(up.status).toBe(201);
    const file = (await up.json()).data;
    const url = `/v1/submerchants/${s.id}/documents`;
    const good = await env.call('POST', url, docBody('cnpj_card', { file_url: file.url, file_name: 'rg.png', mime_type: 'image/png', file_size: png.length }));
    expect(good.status).toBe(201);
    const wrongSize = await env.call('POST', url, docBody('cnpj_card', { file_url: file.url, file_name: 'rg.png', mime_type: 'image/png', file_size: 5 }));
    expect(wrongSize.status).toBe(422);
    expect(wrongSize.body.details[0].field).toBe('file_size');
    const wrongType = await env.call('POST', url, docBody('cnpj_card', { file_url: file.url }));
    expect(wrongType.status).toBe(422);
    expect(wrongType.body.details[0].field).toBe('mime_type');
    const elsewhere = await env.call('POST', `/v1/submerchants/${other.id}/documents`, docBody('cnpj_card', { file_url: file.url, file_name: 'rg.png', mime_type: 'image/png', file_size: png.length }));
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.body.details[0].field).toBe('file_url');
  });

  describe("another merchant's file under any spelling of this service's URL", () => {
    /** Uploads a PNG for a submerchant of `m` (default the env's merchant): its key, url and size. */
    async function upload(subId: string, auth = env.auth()) {
      const png = realPng();
      const fd = new FormData();
      fd.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'rg.png');
      const up = await env.rt.app.request(`/v1/submerchants/${subId}/upload`, { method: 'POST', body: fd, headers: { authorization: auth } });
      expect(up.status).toBe(201);
      const data = (await up.json()).data as { key: string; url: string };
      return { ...data, size: png.length };
    }
    // app.request's origin is http://localhost: the canonical form is http://localhost/v1/files/KEY
    const spellings: [string, (key: string) => string][] = [
      ['canonical', (k) => `http://localhost/v1/files/${k}`],
      ['127.0.0.1 with a port', (k) => `http://127.0.0.1:4010/v1/files/${k}`],
      ['a doubled slash', (k) => `http://127.0.0.1:4010//v1/files/${k}`],
      ['a doubled slash on the canonical host', (k) => `http://localhost//v1/files/${k}`],
      ['a slash doubled inside', (k) => `http://localhost/v1//files/${k}`],
      ['a trailing slash', (k) => `http://localhost/v1/files/${k}/`],
      ['https', (k) => `https://localhost/v1/files/${k}`],
      ['another port', (k) => `http://localhost:8080/v1/files/${k}`],
      ['encoded slashes', (k) => `http://localhost/v1%2Ffiles%2F${k}`],
      ['upper-case path', (k) => `http://localhost/V1/Files/${k}`],
      ['IPv6 loopback', (k) => `http://[::1]:4010/v1/files/${k}`],
      ['0.0.0.0', (k) => `http://0.0.0.0:4010/v1/files/${k}`],
      ['127.1 shorthand', (k) => `http://127.1/v1/files/${k}`],
      ['a subdomain of localhost', (k) => `http://api.localhost/v1/files/${k}`],
      ['a host this service cannot know (a LAN address)', (k) => `http://10.20.30.40:4010/v1/files/${k}`],
      ['a query and a fragment', (k) => `http://127.0.0.1//v1/files/${k}?download=1#x`],
      ['an encoded letter of v1', (k) => `http://127.0.0.1:4010/%761/files/${k}`],
      ['an encoded digit of v1', (k) => `http://localhost/v%31/files/${k}`],
      ['an encoded letter of files', (k) => `http://localhost/v1/%66iles/${k}`],
      ['every letter of the path encoded', (k) => `http://localhost/%76%31/%66%69%6c%65%73/${k}`],
      ['an encoded path on a host this service cannot know', (k) => `https://cdn.example/%761/files/${k}`],
      ['an encoded path, encoded twice', (k) => `http://localhost/%2576%2531/files/${k}`],
    ];

    it.each(spellings)('%s: 422 naming file_url, nothing written', async (_name, spell) => {
      const other = await env.newMerchant('Outra');
      const theirs = await ok(env, 'POST', '/v1/submerchants', pjBody(), env.auth(other));
      const file = await upload(theirs.id, env.auth(other));
      const s = await createPj();
      const url = `/v1/submerchants/${s.id}/documents`;
      const r = await env.call('POST', url, docBody('cnpj_card', { file_url: spell(file.key), file_name: 'rg.png', mime_type: 'image/png', file_size: file.size }));
      expect(r.status, JSON.stringify(r.body)).toBe(422);
      expect(r.body.details[0].field).toBe('file_url');
      expect((await env.call('GET', url)).body.data).toEqual([]);
    });

    it.each(spellings)('%s: accepted for the merchant\'s own file of that submerchant, with its type and size checked', async (_name, spell) => {
      const s = await createPj();
      const file = await upload(s.id);
      const url = `/v1/submerchants/${s.id}/documents`;
      const wrongSize = await env.call('POST', url, docBody('cnpj_card', { file_url: spell(file.key), file_name: 'rg.png', mime_type: 'image/png', file_size: 5 }));
      expect(wrongSize.status).toBe(422);
      expect(wrongSize.body.details[0].field).toBe('file_size');
      const good = await env.call('POST', url, docBody('cnpj_card', { file_url: spell(file.key), file_name: 'rg.png', mime_type: 'image/png', file_size: file.size }));
      expect(good.status, JSON.stringify(good.body)).toBe(201);
    });

    it('a file URL of another host with a key this service never issued is not this service\'s', async () => {
      const s = await createPj();
      const r = await env.call('POST', `/v1/submerchants/${s.id}/documents`, docBody('cnpj_card', { file_url: 'https://storage.example.com/v1/files/01890000-0000-7000-8000-000000000000.pdf' }));
      expect(r.status, JSON.stringify(r.body)).toBe(201);
    });
  });

  it('a file_url on this service with malformed percent-encoding is a 422 naming file_url, never a 500', async () => {
    const s = await createPj();
    const url = `/v1/submerchants/${s.id}/documents`;
    const origin = 'http://localhost'; // app.request's origin: the service's own download URLs
    for (const tail of ['%E0%A4%A', '%', '%ZZ.png']) {
      const r = await env.call('POST', url, docBody('cnpj_card', { file_url: `${origin}/v1/files/${tail}` }));
      expect(r.status, tail).toBe(422);
      expect(r.body.details[0].field).toBe('file_url');
      expect(JSON.stringify(r.body)).not.toMatch(/URIError|at .*\.ts/);
    }
    const list = await env.call('GET', url);
    expect(list.body.data).toEqual([]);
  });
});

describe('requirements and review', () => {
  it('a pj lists address, a partner and its company documents; each partner adds four; complete → under_review with its event', async () => {
    const s = await createPj();
    const url = (p: string) => `/v1/submerchants/${s.id}${p}`;
    let req = (await env.call('GET', url('/requirements'))).body.data;
    expect(req).toMatchObject({ submerchant_id: s.id, entity_type: 'pj', status: 'pending', complete: false, satisfied: [] });
    expect(req.missing.map((m: any) => [m.kind, m.type ?? null])).toEqual([
      ['address', null],
      ['legal_representative', null],
      ['document', 'social_contract'],
      ['document', 'cnpj_card'],
      ['document', 'proof_of_residence_company'],
    ]);
    for (const m of req.missing) expect(m.message.length).toBeGreaterThan(10);

    await ok(env, 'POST', url('/addresses'), addressBody());
    for (const t of PJ_DOCS) await ok(env, 'POST', url('/documents'), docBody(t));
    const p1 = await ok(env, 'POST', url('/legal-representatives'), partnerBody({ name: 'Ana', participation_percentage: 50 }));
    const p2 = await ok(env, 'POST', url('/legal-representatives'), partnerBody({ name: 'Bia', participation_percentage: 50 }));
    req = (await env.call('GET', url('/requirements'))).body.data;
    expect(req.complete).toBe(false);
    expect(req.missing.map((m: any) => [m.type, m.legal_representative_id])).toEqual([
      ...PARTNER_DOCS.map((t) => [t, p1.id]),
      ...PARTNER_DOCS.map((t) => [t, p2.id]),
    ]);
    expect(req.missing[0].message).toContain('Ana');
    expect(req.satisfied.map((x: any) => x.kind)).toEqual(['address', 'legal_representative', 'document', 'document', 'document']);

    for (const t of PARTNER_DOCS) await ok(env, 'POST', url('/documents'), docBody(t, { legal_representative_id: p1.id }));
    for (const t of PARTNER_DOCS.slice(0, 3)) await ok(env, 'POST', url('/documents'), docBody(t, { legal_representative_id: p2.id }));
    expect((await env.call('GET', url(''))).body.data.status).toBe('pending');
    expect(await events(env, 'submerchant.under_review')).toEqual([]);
    // contract_amendment is optional: not listed, not needed
    expect((await env.call('GET', url('/requirements'))).body.data.missing.map((m: any) => m.type)).toEqual(['partner_proof_of_residence']);

    const last = await env.call('POST', url('/documents'), docBody('partner_proof_of_residence', { legal_representative_id: p2.id }));
    expect(last.status).toBe(201);
    const after = (await env.call('GET', url(''))).body.data;
    expect(after.status).toBe('under_review');
    req = (await env.call('GET', url('/requirements'))).body.data;
    expect(req).toMatchObject({ status: 'under_review', complete: true, missing: [] });
    expect(req.satisfied).toHaveLength(2 + 3 + 8);
    const ev = await events(env, 'submerchant.under_review');
    expect(ev.map((e) => [e.resource_id, e.data.status])).toEqual([[s.id, 'under_review']]);
  });

  it('a pf needs an address and its four documents, no partner; the address write can be the one that completes it', async () => {
    const s = await createPf();
    const url = (p: string) => `/v1/submerchants/${s.id}${p}`;
    const req = (await env.call('GET', url('/requirements'))).body.data;
    expect(req.missing.map((m: any) => m.type ?? m.kind)).toEqual(['address', ...PF_DOCS]);
    for (const t of PF_DOCS) await ok(env, 'POST', url('/documents'), docBody(t));
    expect((await env.call('GET', url(''))).body.data.status).toBe('pending');
    await ok(env, 'POST', url('/addresses'), addressBody());
    expect((await env.call('GET', url(''))).body.data.status).toBe('under_review');
  });

  it('a partner write can complete a pj, and an expired document does not count', async () => {
    const s = await createPj();
    const url = (p: string) => `/v1/submerchants/${s.id}${p}`;
    await ok(env, 'POST', url('/addresses'), addressBody());
    await ok(env, 'POST', url('/documents'), docBody('social_contract'));
    await ok(env, 'POST', url('/documents'), docBody('cnpj_card'));
    await ok(env, 'POST', url('/documents'), docBody('proof_of_residence_company', { expires_at: '2026-01-16T00:00:00Z' }));
    const partner = partnerBody();
    const p = await ok(env, 'POST', url('/legal-representatives'), partner);
    for (const t of PARTNER_DOCS) await ok(env, 'POST', url('/documents'), docBody(t, { legal_representative_id: p.id }));
    expect((await env.call('GET', url(''))).body.data.status).toBe('under_review');

    const s2 = await createPj();
    const url2 = (x: string) => `/v1/submerchants/${s2.id}${x}`;
    await ok(env, 'POST', url2('/addresses'), addressBody());
    const exp = await ok(env, 'POST', url2('/documents'), docBody('social_contract', { expires_at: '2026-01-16T00:00:00Z' }));
    await ok(env, 'POST', url2('/documents'), docBody('cnpj_card'));
    await ok(env, 'POST', url2('/documents'), docBody('proof_of_residence_company'));
    env.clock.advance(2 * 86_400_000);
    const q = (await env.call('GET', url2('/requirements'))).body.data;
    expect(q.missing.find((m: any) => m.type === 'social_contract').message).toMatch(/expired/);
    expect(q.satisfied.some((x: any) => x.resource_id === exp.id)).toBe(false);
  });

  it('review approves or rejects from under_review only (409 invalid_state otherwise), with reviewed_at, notes and events', async () => {
    const s = await createPf();
    const url = (p: string) => `/v1/submerchants/${s.id}${p}`;
    const early = await env.call('POST', `/v1/sandbox/submerchants/${s.id}/review`, { decision: 'approve' });
    expect(early.status).toBe(409);
    expect(early.body.error).toBe('invalid_state');
    expect(early.body.message).toContain("'pending'");

    await ok(env, 'POST', url('/addresses'), addressBody());
    for (const t of PF_DOCS) await ok(env, 'POST', url('/documents'), docBody(t));
    const noNotes = await env.call('POST', `/v1/sandbox/submerchants/${s.id}/review`, { decision: 'reject' });
    expect(noNotes.status).toBe(400);
    expect(noNotes.body.details[0].field).toBe('notes');
    const badDecision = await env.call('POST', `/v1/sandbox/submerchants/${s.id}/review`, { decision: 'maybe' });
    expect(badDecision.status).toBe(400);
    env.clock.advance(60_000);
    const r = await env.call('POST', `/v1/sandbox/submerchants/${s.id}/review`, { decision: 'reject', notes: 'Selfie ilegível' });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ status: 'rejected', review_notes: 'Selfie ilegível', reviewed_at: env.clock.now().toISOString() });
    expect((await events(env, 'submerchant.rejected')).map((e) => e.resource_id)).toEqual([s.id]);
    const again = await env.call('POST', `/v1/sandbox/submerchants/${s.id}/review`, { decision: 'approve' });
    expect(again.status).toBe(409);
    expect(again.body.message).toContain("'rejected' is final");

    const s2 = await createPf();
    await ok(env, 'POST', `/v1/submerchants/${s2.id}/addresses`, addressBody());
    for (const t of PF_DOCS) await ok(env, 'POST', `/v1/submerchants/${s2.id}/documents`, docBody(t));
    const ap = await env.call('POST', `/v1/sandbox/submerchants/${s2.id}/review`, { decision: 'approve', notes: 'ok' });
    expect(ap.body.data).toMatchObject({ status: 'approved', review_notes: 'ok' });
    expect((await events(env, 'submerchant.approved')).map((e) => e.resource_id)).toEqual([s2.id]);
    const list = await env.call('GET', '/v1/submerchants?status=approved');
    expect(list.body.data.map((x: any) => x.id)).toEqual([s2.id]);
  });

  it('the review route does not exist in production mode', async () => {
    const prod = await testEnv({ mode: 'production' });
    try {
      const s = await ok(prod, 'POST', '/v1/submerchants', pjBody());
      const r = await prod.call('POST', `/v1/sandbox/submerchants/${s.id}/review`, { decision: 'approve' });
      expect(r.status).toBe(404);
    } finally {
      await prod.close();
    }
  });
});

describe('merchant isolation', () => {
  it("another merchant's submerchant, partners, documents and addresses are a 404 for every operation", async () => {
    const s = await createPj();
    const p = await ok(env, 'POST', `/v1/submerchants/${s.id}/legal-representatives`, partnerBody());
    await ok(env, 'POST', `/v1/submerchants/${s.id}/documents`, docBody('cnpj_card'));
    const intruder = await env.newMerchant('Intrusa');
    const as = { authorization: basic(intruder.public_key, intruder.secret_key) };
    const attempts: [string, string, unknown?][] = [
      ['GET', `/v1/submerchants/${s.id}`],
      ['GET', `/v1/submerchants/${s.id}/addresses`],
      ['POST', `/v1/submerchants/${s.id}/addresses`, addressBody()],
      ['GET', `/v1/submerchants/${s.id}/legal-representatives`],
      ['POST', `/v1/submerchants/${s.id}/legal-representatives`, { name: 'Hacker', document: p.document, participation_percentage: 100 }],
      ['GET', `/v1/submerchants/${s.id}/documents`],
      ['POST', `/v1/submerchants/${s.id}/documents`, docBody('cnpj_card')],
      ['GET', `/v1/submerchants/${s.id}/requirements`],
      ['POST', `/v1/sandbox/submerchants/${s.id}/review`, { decision: 'approve' }],
    ];
    for (const [m, path, body] of attempts) {
      const r = await env.call(m, path, body, as);
      expect(r.status, `${m} ${path}`).toBe(404);
      expect(r.body.message).toBe('Submerchant not found');
    }
    const list = await env.call('GET', '/v1/submerchants', undefined, as);
    expect(list.body.data).toEqual([]);
    const byTax = await env.call('GET', `/v1/submerchants?tax_id=${s.tax_id}`, undefined, as);
    expect(byTax.body.data).toEqual([]);
    // nothing changed for the owner
    const partners = await env.call('GET', `/v1/submerchants/${s.id}/legal-representatives`);
    expect(partners.body.data.map((x: any) => [x.name, x.participation_percentage])).toEqual([['Ana Souza', null]]);
    expect((await env.call('GET', `/v1/submerchants/${s.id}/documents`)).body.data).toHaveLength(1);
    expect((await env.call('GET', `/v1/submerchants/${s.id}/addresses`)).body.data).toHaveLength(0);
  });

  it('the OpenAPI document describes the upload as multipart and the review as sandbox-only', async () => {
    const doc = await (await env.rt.app.request('/openapi.json')).json();
    expect(doc.paths['/v1/submerchants/{id}/upload'].post.requestBody.content['multipart/form-data'].schema.required).toEqual(['file']);
    expect(doc.paths['/v1/sandbox/submerchants/{id}/review'].post['x-sandbox-only']).toBe(true);
    expect(doc.paths['/v1/submerchants'].get.parameters.map((p: any) => p.name)).toEqual(['page', 'per_page', 'status', 'entity_type', 'tax_id']);
  });

  it('a malformed id is a 404', async () => {
    const r = await env.call('GET', '/v1/submerchants/not-a-uuid');
    expect(r.status).toBe(404);
    expect(r.body.message).toBe('Submerchant not found');
  });
});
