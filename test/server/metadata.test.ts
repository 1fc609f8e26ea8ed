import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { chargeBody } from '../helpers/money.js';

/** `metadata` keys that JavaScript objects cannot hold as data (`__proto__`). */
let env: TestEnv;
beforeEach(async () => {
  env = await testEnv();
});
afterEach(async () => {
  await env.close();
});

describe('a "__proto__" key in metadata', () => {
  const bodies = [
    ['a charge', '/v1/charges', (meta: string) => JSON.stringify(chargeBody(1500, { payment_method: 'pix' })).replace(/}$/, `,"metadata":${meta}}`)],
    ['a payment link', '/v1/payment-links', (meta: string) => `{"title":"Caneca","amount":1500,"product_type":"physical","allowed_payment_methods":["pix"],"metadata":${meta}}`],
  ] as const;

  for (const [what, path, body] of bodies) {
    it(`is refused with a 400 naming it on ${what}, in plain and escaped spelling, and nothing is created`, async () => {
      for (const meta of ['{"order":"1","__proto__":"x"}', '{"\\u005f_proto__":{"admin":true}}']) {
        const r = await env.call('POST', path, body(meta));
        expect(r.status, meta).toBe(400);
        expect(r.body.error).toBe('validation_error');
        expect(r.body.details).toEqual([{ field: 'metadata.__proto__', message: expect.stringContaining('is not allowed') }]);
        expect(r.body.message).toContain('metadata.__proto__');
      }
      expect((await env.call('GET', path)).body.data).toEqual([]);
      // an ordinary key, and "constructor" or "proto", are kept as data
      const fine = await env.call('POST', path, body('{"order":"1","constructor":"c","proto":"p"}'));
      expect(fine.status, JSON.stringify(fine.body)).toBe(201);
      expect(fine.body.data.metadata).toEqual({ order: '1', constructor: 'c', proto: 'p' });
    });
  }

  it('is named wherever it sits in the body, and a deep body is walked without recursion', async () => {
    const r = await env.call('POST', '/v1/charges', JSON.stringify(chargeBody(1500, { payment_method: 'pix' })).replace(/"items":\[\{/, '"items":[{"__proto__":1,'));
    expect(r.status).toBe(400);
    expect(r.body.details).toEqual([{ field: 'items[0].__proto__', message: expect.stringContaining('is not allowed') }]);
    const { protoKeyPaths } = await import('../../src/server/validate.js');
    const deep = JSON.parse('['.repeat(100_000) + '{"__proto__":0}' + ']'.repeat(100_000));
    expect(protoKeyPaths(deep)).toEqual(['[0]'.repeat(100_000) + '.__proto__']);
  });

  it('the charge body used above is a valid charge (guard)', async () => {
    expect((await env.call('POST', '/v1/charges', chargeBody(1500, { payment_method: 'pix' }))).status).toBe(201);
  });
});
