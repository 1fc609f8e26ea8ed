import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { addSubmerchant, CNPJ, CPF } from '../helpers/money.js';

let env: TestEnv;
beforeEach(async () => {
  env = await testEnv();
});
afterEach(async () => env.close());

const bank = { type: 'bank_account', bank_code: '001', branch_number: '1234-5', account_number: '123456-7', account_type: 'checking', holder_name: 'Loja da Ana LTDA', holder_tax_id: CNPJ };
const pix = { type: 'pix', pix_key: '529.982.247-25', pix_key_type: 'cpf', holder_name: 'Ana Souza', holder_tax_id: CPF };
const crypto = { type: 'crypto', wallet_address: 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL', network: 'tron', asset: 'USDT' };

describe('PUT /v1/recipients', () => {
  it('creates the primary recipient of each type (201) with the seed record', async () => {
    const b = await env.call('PUT', '/v1/recipients', bank);
    expect(b.status).toBe(201);
    expect(b.body.data).toMatchObject({
      owner_type: 'merchant',
      owner_id: env.merchant.merchant_id,
      type: 'bank_account',
      is_primary: true,
      details: { bank_code: '001', branch_number: '1234-5', account_number: '123456-7', account_type: 'checking', holder_name: 'Loja da Ana LTDA', holder_tax_id: CNPJ },
    });
    const p = await env.call('PUT', '/v1/recipients', pix);
    expect(p.status).toBe(201);
    expect(p.body.data.details).toEqual({ pix_key: CPF, pix_key_type: 'cpf', holder_name: 'Ana Souza', holder_tax_id: CPF });
    const c = await env.call('PUT', '/v1/recipients', crypto);
    expect(c.status).toBe(201);
    expect(c.body.data.details).toEqual({ wallet_address: crypto.wallet_address, network: 'tron', asset: 'USDT' });
  });

  it('updates the existing primary of the type (200): one primary per type per owner', async () => {
    const first = await env.call('PUT', '/v1/recipients', bank);
    env.clock.advance(1000);
    const second = await env.call('PUT', '/v1/recipients', { ...bank, bank_code: '341', account_type: 'savings' });
    expect(second.status).toBe(200);
    expect(second.body.message).toBe('Recipient updated');
    expect(second.body.data.id).toBe(first.body.data.id);
    expect(second.body.data.details).toMatchObject({ bank_code: '341', account_type: 'savings' });
    expect(second.body.data.updated_at > first.body.data.updated_at).toBe(true);
    expect(second.body.data.created_at).toBe(first.body.data.created_at);
    const list = await env.call('GET', '/v1/recipients');
    expect(list.body.pagination.total).toBe(1);
  });

  it('keeps a submerchant recipient apart from the merchant one; an unknown submerchant is a 404', async () => {
    const sub = await addSubmerchant(env);
    await env.call('PUT', '/v1/recipients', bank);
    const s = await env.call('PUT', '/v1/recipients', { ...bank, submerchant_id: sub.id, holder_tax_id: CPF });
    expect(s.status).toBe(201);
    expect(s.body.data).toMatchObject({ owner_type: 'submerchant', owner_id: sub.id });
    expect(s.body.data.details).not.toHaveProperty('submerchant_id');
    const other = await env.newMerchant('Outra');
    const theirSub = await addSubmerchant(env, other.merchant_id);
    expect((await env.call('PUT', '/v1/recipients', { ...bank, submerchant_id: theirSub.id })).status).toBe(404);

    expect((await env.call('GET', '/v1/recipients')).body.pagination.total).toBe(2);
    const subs = await env.call('GET', `/v1/recipients?submerchant_id=${sub.id}`);
    expect(subs.body.data.map((r: any) => r.id)).toEqual([s.body.data.id]);
    const mine = await env.call('GET', '/v1/recipients?owner_type=merchant');
    expect(mine.body.data.map((r: any) => r.owner_type)).toEqual(['merchant']);
  });

  it('validates each type and names the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ ...bank, bank_code: '1' }, 'bank_code'],
      [{ ...bank, branch_number: 'abc' }, 'branch_number'],
      [{ ...bank, account_type: 'investment' }, 'account_type'],
      [{ ...bank, holder_tax_id: '12345678901' }, 'holder_tax_id'],
      [{ ...bank, holder_name: '  ' }, 'holder_name'],
      [{ ...pix, pix_key: '52998224724' }, 'pix_key'],
      [{ ...pix, pix_key_type: 'evp' }, 'pix_key_type'],
      [{ ...crypto, network: 'dogecoin' }, 'network'],
      [{ ...crypto, asset: 'BTC' }, 'asset'],
      [{ ...crypto, wallet_address: '0xabc' }, 'wallet_address'],
      [{ ...crypto, pix_key: 'x' }, 'pix_key'],
      [{ type: 'boleto' }, 'type'],
    ];
    for (const [body, field] of cases) {
      const r = await env.call('PUT', '/v1/recipients', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.details.map((d: any) => d.field), JSON.stringify(body)).toContain(field);
    }
    const { bank_code: _omit, ...noCode } = bank;
    const missing = await env.call('PUT', '/v1/recipients', noCode);
    expect(missing.body.details).toEqual([{ field: 'bank_code', message: 'is required' }]);
    expect((await env.call('GET', '/v1/recipients')).body.pagination.total).toBe(0);
  });
});

describe('GET /v1/recipients', () => {
  it('filters by type, is scoped to the merchant and rejects unknown filters', async () => {
    await env.call('PUT', '/v1/recipients', bank);
    await env.call('PUT', '/v1/recipients', pix);
    const p = await env.call('GET', '/v1/recipients?type=pix');
    expect(p.body.data.map((r: any) => r.type)).toEqual(['pix']);
    expect((await env.call('GET', '/v1/recipients?type=iban')).status).toBe(400);
    expect((await env.call('GET', '/v1/recipients?owner=me')).status).toBe(400);
    const other = await env.newMerchant('Outra');
    const theirs = await env.call('GET', '/v1/recipients', undefined, { authorization: env.auth(other) });
    expect(theirs.body.data).toEqual([]);
  });
});
