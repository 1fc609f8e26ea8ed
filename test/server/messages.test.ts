// Messages a caller acts on: a path id that is not an id names the resource it was meant to be;
// a customer's tax id that is wrong gets one message, the right one, whatever its kind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEnv, type TestEnv } from '../helpers/server.js';

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

describe('a path id that is not an id', () => {
  it.each([
    ['POST', '/v1/sandbox/charges/nope/pay', 'Charge not found'],
    ['GET', '/v1/charges/nope', 'Charge not found'],
    ['DELETE', '/v1/api-keys/nope', 'API key not found'],
    ['GET', '/v1/payment-links/nope', 'Payment link not found'],
    ['GET', '/v1/postbacks/endpoints/nope', 'Webhook endpoint not found'],
    ['POST', '/v1/postbacks/delivery-logs/nope/retry', 'Delivery log not found'],
    ['GET', '/v1/submerchants/nope/requirements', 'Submerchant not found'],
    ['POST', '/v1/sandbox/submerchants/nope/review', 'Submerchant not found'],
    ['GET', '/v1/wallets/nope/entries', 'Wallet not found'],
    ['GET', '/v1/withdrawals/nope', 'Withdrawal not found'],
  ])('%s %s: %s', async (method, path, message) => {
    const r = await env.call(method, path, method === 'POST' ? {} : undefined);
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ success: false, error: 'not_found', message });
  });
});

describe("a customer's tax id", () => {
  const charge = (tax_id: string, type: 'individual' | 'company') =>
    env.call('POST', '/v1/charges', {
      amount: 10_000,
      payment_method: 'pix',
      product_type: 'digital',
      customer: { name: 'Ana Souza', email: 'ana@example.com', tax_id, phone: '+5511987654321', type },
      items: [{ name: 'Curso', quantity: 1, unit_price: 10_000, tangible: false }],
    });

  it.each([
    ['12345678900', 'individual', 'is not a valid CPF (the check digits do not match)'],
    ['11111111111', 'individual', 'is not a valid CPF (all digits are the same)'],
    ['1234', 'individual', 'must be a CPF of 11 digits for an individual customer'],
    ['11.222.333/0001-81', 'individual', 'is a CNPJ, but the customer type is individual, which needs a CPF; use type company for a company'],
    ['11222333000180', 'company', 'is not a valid CNPJ (the check digits do not match)'],
    ['123', 'company', 'must be a CNPJ of 14 characters for a company customer (12 digits or capital letters, then 2 check digits)'],
    ['529.982.247-25', 'company', 'is a CPF, but the customer type is company, which needs a CNPJ; use type individual for a person'],
  ] as const)('%s for %s: one message', async (taxId, type, message) => {
    const r = await charge(taxId, type);
    expect(r.status).toBe(400);
    expect(r.body.details).toEqual([{ field: 'customer.tax_id', message }]);
  });

  it('a valid one of the right kind is accepted, with separators', async () => {
    expect((await charge('529.982.247-25', 'individual')).status).toBe(201);
    expect((await charge('11.222.333/0001-81', 'company')).status).toBe(201);
  });
});
