/**
 * Anonymous visitors cannot lock a link with max_uses. Holds are
 * bounded per client and in time — a pending checkout payment (a PIX not yet paid) holds one
 * use for at most its 15 minutes, and a client (IP address) holds at most one use of a link at
 * a time; completed payments are what `current_uses` counts.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createApp } from '../../src/server/app.js';
import { tokenize } from '../helpers/money.js';
import { testEnv, type TestEnv } from '../helpers/server.js';

let env: TestEnv;
beforeEach(async () => {
  env = await testEnv({ checkoutRateLimit: null, trustProxy: ['127.0.0.1'] });
});
afterEach(async () => env.close());

const buyer = { name: 'Ana Souza', email: 'ana@example.com', tax_id: '529.982.247-25', phone: '(11) 98765-4321' };
let n = 0;
const pay = async (linkId: string, ip: string, body: Record<string, unknown>, app = env.rt.app) => {
  const res = await app.request(`/checkout/${linkId}/pay`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
    body: JSON.stringify({ attempt_id: `attempt-${++n}-holds`, customer: buyer, ...body }),
  });
  return { status: res.status, body: (await res.json()) as any, headers: res.headers };
};

it('3 anonymous PIX from one client hold one use; a card buyer elsewhere still pays', async () => {
  const link = (await env.call('POST', '/v1/payment-links', { title: 'Ingresso', product_type: 'digital', allowed_payment_methods: ['credit_card', 'pix'], amount: 5000, max_uses: 3 })).body.data;
  const attacker = [];
  for (let i = 0; i < 3; i++) attacker.push(await pay(link.id, '203.0.113.50', { payment_method: 'pix' }));
  expect(attacker.map((r) => r.status)).toEqual([201, 409, 409]);
  expect(attacker[1]!.body.error).toBe('conflict');
  expect(attacker[1]!.body.message).toMatch(/already have a payment pending/);
  expect(Number(attacker[1]!.headers.get('retry-after'))).toBeGreaterThan(0);
  const card = await pay(link.id, '198.51.100.20', { payment_method: 'credit_card', token: await tokenize(env) });
  expect(card.status, JSON.stringify(card.body)).toBe(201);
  expect(card.body.data.status).toBe('captured');
  // in time: once the hold's PIX expires (15 min) the client may pay again
  env.clock.advance(16 * 60_000);
  expect((await pay(link.id, '203.0.113.50', { payment_method: 'pix' })).status).toBe(201);
});

it('addresses of one IPv6 /64 are one client: 10 of them hold one use of a 10-use link; the 11th buyer pays, also through another process', async () => {
  const link = (await env.call('POST', '/v1/payment-links', { title: 'Ingresso', product_type: 'digital', allowed_payment_methods: ['credit_card', 'pix'], amount: 5000, max_uses: 10 })).body.data;
  const statuses: number[] = [];
  for (let i = 1; i <= 10; i++) statuses.push((await pay(link.id, `2001:db8:5:7::${i.toString(16)}`, { payment_method: 'pix' })).status);
  expect(statuses).toEqual([201, ...Array(9).fill(409)]);
  // another app on the same store (its own memory, as another replica): the hold is in the store
  const other = createApp({ ...env.rt.deps });
  expect((await pay(link.id, '2001:db8:5:7:ffff:ffff:ffff:ffff', { payment_method: 'pix' }, other)).status).toBe(409);
  const buyer11 = await pay(link.id, '2001:db8:5:8::1', { payment_method: 'pix' }, other);
  expect(buyer11.status, JSON.stringify(buyer11.body)).toBe(201);
});
