import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { basic } from '../helpers/server.js';
import { chargeBody } from '../helpers/money.js';

let env: TestEnv;
beforeEach(async () => {
  env = await testEnv();
});
afterEach(async () => env.close());

const detailsOf = (body: { details?: { field: string; message: string }[] }) => Object.fromEntries((body.details ?? []).map((d) => [d.field, d.message]));

describe('a value of the wrong type says what was expected and what came', () => {
  it('a fractional amount: "must be a whole number of cents, got 100.5"', async () => {
    const r = await env.call('POST', '/v1/charges', { ...chargeBody(100), amount: 100.5, payment_method: 'pix' });
    expect(r.status).toBe(400);
    expect(detailsOf(r.body).amount).toBe('must be a whole number of cents, got 100.5');
    expect(r.body.message).toContain('amount: must be a whole number of cents, got 100.5');
  });

  it('an amount sent as a string names the type and how to send it', async () => {
    const r = await env.call('POST', '/v1/charges', { ...chargeBody(100), amount: '10000', payment_method: 'pix' });
    expect(r.status).toBe(400);
    expect(detailsOf(r.body).amount).toBe('must be a whole number of cents, got a string ("10000"; send the number without quotes)');
  });

  it('a missing field is still "is required"; null is a wrong type, not a missing field', async () => {
    const body = chargeBody(100, { payment_method: 'pix' });
    delete body.amount;
    const missing = await env.call('POST', '/v1/charges', body);
    expect(detailsOf(missing.body).amount).toBe('is required');
    const nul = await env.call('POST', '/v1/charges', { ...body, amount: null });
    expect(detailsOf(nul.body).amount).toBe('must be a whole number of cents, got null');
  });

  it('days of the sandbox clock as a string, and a string field given a number', async () => {
    const days = await env.call('POST', '/v1/sandbox/clock/advance', { days: '1' });
    expect(days.status).toBe(400);
    expect(detailsOf(days.body).days).toBe('must be a whole number of days, got a string ("1"; send the number without quotes)');
    const name = await env.call('POST', '/v1/api-keys', { name: 42 });
    expect(detailsOf(name.body).name).toBe('must be a string, got a number');
  });

  it('a card field of the wrong type never echoes the value', async () => {
    const res = await env.rt.app.request('/v1/tokens', {
      method: 'POST',
      headers: { authorization: basic(env.merchant.public_key, ''), 'content-type': 'application/json' },
      body: JSON.stringify({ card: { number: 4111111111111111, holderName: 'Ana Souza', expirationMonth: 12, expirationYear: '2030', cvv: '123' } }),
    });
    const body = (await res.json()) as { details: { field: string; message: string }[] };
    expect(res.status).toBe(400);
    expect(detailsOf(body)).toEqual({ 'card.number': 'must be a string of digits, got a number', 'card.expirationMonth': 'must be a string, 01 to 12, got a number' });
    expect(JSON.stringify(body)).not.toContain('4111111111111111');
  });

  it('the type of nested and listed values, and a true/false field', async () => {
    const r = await env.call('POST', '/v1/charges', { ...chargeBody(100, { payment_method: 'pix' }), items: [{ name: 'Curso', quantity: '1', unit_price: 100, tangible: 'no' }] });
    expect(r.status).toBe(400);
    const d = detailsOf(r.body);
    expect(d['items[0].quantity']).toBe('must be a whole number, got a string ("1"; send the number without quotes)');
    expect(d['items[0].tangible']).toMatch(/^must be true or false, got a string$/);
  });
});
