/**
 * Tenant isolation sweep: merchant A creates one of each resource; merchant B then calls every
 * route of the endpoint table that takes an id (GET, PATCH, DELETE, POST-with-id, and the raw
 * file download) with A's ids and bodies that would be accepted for its own resources.
 * 100 % of the calls must be 404, and A's resources must be unchanged afterwards. A route of
 * the table whose id this sweep cannot supply fails the test, so new routes are covered.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { endpoints, type AnyEndpoint } from '../../src/contract/index.js';
import { credit } from '../../src/server/services/ledger.js';
import { deliverDue } from '../../src/server/webhooks/worker.js';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { cardCharge, chargeBody, CPF } from '../helpers/money.js';
import { addressBody, docBody, partnerBody, pjBody } from '../helpers/onboarding.js';
import { receiver, type Receiver } from '../helpers/receiver.js';
import { report } from './helpers.js';

let env: TestEnv;
let rcv: Receiver;
beforeAll(async () => {
  env = await testEnv();
  rcv = await receiver();
});
afterAll(async () => {
  await rcv.close();
  await env.close();
});

async function ok(method: string, path: string, body?: unknown): Promise<any> {
  const r = await env.call(method, path, body);
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data;
}

it("every id route with another merchant's keys → 100 % 404", async () => {
  const A = env.merchant;
  // --- merchant A's resources ---
  await env.rt.deps.db.tx((q) =>
    credit(q, env.rt.deps.ids, { walletId: A.wallet_id, amount: 100_000, referenceType: 'test', referenceId: env.rt.deps.ids(), description: 'funding', at: env.clock.now() }),
  );
  // the endpoint first: it receives the events written while it is active
  const hook = await ok('POST', '/v1/postbacks/endpoints', { url: rcv.url, events: ['*'] });
  const card = (await cardCharge(env, 5000)).body.data;
  const chargeback = await ok('POST', `/v1/sandbox/charges/${card.id}/chargeback`, { amount: 1000 });
  const pix = await ok('POST', '/v1/charges', chargeBody(3000, { payment_method: 'pix' }));
  const withdrawal = await ok('POST', '/v1/withdrawals', {
    type: 'pix',
    wallet_id: A.wallet_id,
    amount: 1000,
    pix_key: 'ana@example.com',
    pix_key_type: 'email',
    holder_document_type: 'cpf',
    holder_document: CPF,
    idempotency_key: 'sweep-1',
  });
  const link = await ok('POST', '/v1/payment-links', { title: 'Camiseta azul', product_type: 'physical', allowed_payment_methods: ['credit_card', 'pix'] });
  const sub = await ok('POST', '/v1/submerchants', pjBody());
  await ok('POST', `/v1/submerchants/${sub.id}/addresses`, addressBody());
  const fd = new FormData();
  const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), Buffer.from('IHDR'), Buffer.alloc(20)]);
  fd.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'rg.png');
  const up = await env.rt.app.request(`/v1/submerchants/${sub.id}/upload`, { method: 'POST', body: fd, headers: { authorization: env.auth() } });
  expect(up.status).toBe(201);
  const file = ((await up.json()) as any).data;
  const apiKey = await ok('POST', '/v1/api-keys', { name: 'segunda' });
  await deliverDue(env.rt.deps, { deadlineMs: 10_000 });
  const logs = (await env.call('GET', '/v1/postbacks/delivery-logs?per_page=1')).body.data;
  expect(logs.length).toBe(1);
  const fileKey = new URL(file.url, 'http://x').pathname.replace('/v1/files/', '');

  // --- merchant B ---
  const B = await env.newMerchant('Outra Loja');
  const hb = { authorization: env.auth(B) };
  const idFor: Record<string, string> = {
    withdrawals: withdrawal.id,
    'payment-links': link.id,
    charges: card.id,
    chargebacks: chargeback.id,
    'sandbox/chargebacks': chargeback.id,
    'sandbox/charges': pix.id,
    wallets: A.wallet_id,
    submerchants: sub.id,
    'sandbox/submerchants': sub.id,
    files: fileKey,
    'postbacks/endpoints': hook.id,
    'postbacks/delivery-logs': logs[0].id,
    'api-keys': apiKey.id ?? apiKey.api_key?.id,
  };
  const bodyFor: Record<string, unknown> = {
    'paymentLinks.update': { title: 'Roubado' },
    'submerchants.update': { email: 'roubado@example.com' },
    'submerchants.addresses.create': addressBody(),
    'submerchants.partners.create': partnerBody(),
    'submerchants.documents.create': docBody('cnpj_card'),
    'sandbox.submerchants.review': { decision: 'approve' },
    'webhookEndpoints.update': { status: 'disabled' },
    'chargebacks.contest': { text: 'roubado' },
  };
  // a query the route needs, so the answer is about the id and not a missing parameter
  const queryFor: Record<string, string> = { 'wallets.statement': '?start_date=2026-01-01T00:00:00Z&end_date=2026-02-01T00:00:00Z' };
  // Routes without credentials (the public checkout) are not scoped by a merchant's keys; they
  // are checked below for what they must not reveal instead.
  const routes = (endpoints as readonly AnyEndpoint[]).filter((e) => e.path.includes('{') && e.auth !== 'none');
  const results: { route: string; status: number }[] = [];
  const uncovered: string[] = [];
  for (const e of routes) {
    const m = /^\/v1\/(.+?)\/\{[a-z_]+\}/.exec(e.path);
    const id = m ? idFor[m[1]!] : undefined;
    if (!id) {
      uncovered.push(`${e.method} ${e.path}`);
      continue;
    }
    const path = e.path.replace(/\{[a-z_]+\}/, id) + (queryFor[e.id] ?? '');
    let status: number;
    if (e.multipart) {
      const f = new FormData();
      f.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'rg.png');
      status = (await env.rt.app.request(path, { method: 'POST', body: f, headers: hb })).status;
    } else {
      status = (await env.call(e.method, path, bodyFor[e.id], hb)).status;
    }
    results.push({ route: `${e.method} ${e.path}`, status });
  }
  const notFound = results.filter((r) => r.status === 404).length;
  report(
    `cross-merchant sweep ${results.length} id routes with another merchant's keys → ${notFound}/${results.length} 404 (${((100 * notFound) / Math.max(1, results.length)).toFixed(0)} %), ${uncovered.length} routes uncovered`,
  );
  expect(uncovered).toEqual([]);
  // the public checkout answers only for charges paid through that very link
  const viaLink = await env.rt.app.request(`/checkout/${link.id}/charges/${pix.id}`);
  expect(viaLink.status).toBe(404);
  expect(results.filter((r) => r.status !== 404)).toEqual([]);
  // nothing of A's moved
  expect((await env.call('GET', `/v1/charges/${card.id}`)).body.data.status).toBe('captured');
  expect((await env.call('GET', `/v1/charges/${pix.id}`)).body.data.status).toBe('pending');
  expect((await env.call('GET', `/v1/payment-links/${link.id}`)).body.data.title).toBe('Camiseta azul');
  expect((await env.call('GET', `/v1/postbacks/endpoints/${hook.id}`)).body.data.status).not.toBe('disabled');
  expect((await env.call('GET', `/v1/submerchants/${sub.id}/addresses`)).body.data).toHaveLength(1);
  expect((await env.call('GET', `/v1/submerchants/${sub.id}`)).body.data.email).not.toBe('roubado@example.com');
  expect((await env.call('GET', `/v1/submerchants/${sub.id}/changes`)).body.data).toEqual([]);
}, 60_000);
