/**
 * One rule for every record: its timestamps are the merchant's clock, which
 * the sandbox moves. After `POST /v1/sandbox/clock/advance`, whatever the merchant creates,
 * changes or has reviewed carries the moved clock, never the server's real time.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { addressBody, docBody, ok, partnerBody, pfBody, pjBody } from '../helpers/onboarding.js';
import { realPdf } from '../helpers/files.js';

let env: TestEnv;
beforeEach(async () => {
  env = await testEnv();
});
afterEach(async () => env.close());

const DAYS = 40;

describe("every record carries the merchant's clock", () => {
  it('submerchants, addresses, partners, documents, uploads, reviews, API keys, tokens and webhook endpoints', async () => {
    const real = env.clock.now().toISOString();
    const adv = await ok(env, 'POST', '/v1/sandbox/clock/advance', { days: DAYS });
    const clock: string = adv.clock;
    expect(clock).toBe(new Date(Date.parse(real) + DAYS * 86_400_000).toISOString());
    expect(env.clock.now().toISOString()).toBe(real); // the server's clock did not move

    // a pf submerchant taken through onboarding and the sandbox review
    const pf = await ok(env, 'POST', '/v1/submerchants', pfBody());
    expect([pf.created_at, pf.updated_at]).toEqual([clock, clock]);
    const address = await ok(env, 'POST', `/v1/submerchants/${pf.id}/addresses`, addressBody());
    expect(address.created_at).toBe(clock);
    const fd = new FormData();
    fd.append('file', new Blob([new Uint8Array(realPdf())], { type: 'application/pdf' }), 'rg.pdf');
    const up = await env.rt.app.request(`/v1/submerchants/${pf.id}/upload`, { method: 'POST', body: fd, headers: { authorization: env.auth() } });
    expect(up.status).toBe(201);
    const file = await env.rt.deps.db.get<{ created_at: string }>('SELECT created_at FROM files WHERE merchant_id = ?', [env.merchant.merchant_id]);
    expect(file?.created_at).toBe(clock);
    for (const type of ['front_id', 'back_id', 'selfie_with_id']) {
      const d = await ok(env, 'POST', `/v1/submerchants/${pf.id}/documents`, docBody(type));
      expect([d.created_at, d.updated_at]).toEqual([clock, clock]);
    }
    // a second document of a type replaces the first: the replaced one is updated at the merchant's clock too
    await ok(env, 'POST', `/v1/submerchants/${pf.id}/documents`, docBody('front_id'));
    const replaced = await env.rt.deps.db.get<{ updated_at: string }>("SELECT updated_at FROM submerchant_documents WHERE status = 'replaced'");
    expect(replaced?.updated_at).toBe(clock);
    await ok(env, 'POST', `/v1/submerchants/${pf.id}/documents`, docBody('proof_of_residence'));
    const underReview = await ok(env, 'GET', `/v1/submerchants/${pf.id}`);
    expect(underReview.status).toBe('under_review');
    expect(underReview.updated_at).toBe(clock);
    const reviewed = await ok(env, 'POST', `/v1/sandbox/submerchants/${pf.id}/review`, { decision: 'approve' });
    expect([reviewed.reviewed_at, reviewed.updated_at]).toEqual([clock, clock]);

    // a pj's partner, added and then updated
    const pj = await ok(env, 'POST', '/v1/submerchants', pjBody());
    const partner = await ok(env, 'POST', `/v1/submerchants/${pj.id}/legal-representatives`, partnerBody());
    expect([partner.created_at, partner.updated_at]).toEqual([clock, clock]);

    // API keys: created and revoked
    const key = await ok(env, 'POST', '/v1/api-keys', { name: 'second' });
    expect(key.created_at).toBe(clock);
    await ok(env, 'DELETE', `/v1/api-keys/${key.id}`);
    const revoked = await env.rt.deps.db.get<{ revoked_at: string }>('SELECT revoked_at FROM api_keys WHERE id = ?', [key.id]);
    expect(revoked?.revoked_at).toBe(clock);

    // a card token
    await ok(env, 'POST', '/v1/tokens', {
      card: { number: '4111111111111111', holderName: 'Ana Souza', expirationMonth: '12', expirationYear: '2040', cvv: '123' },
    });
    const token = await env.rt.deps.db.get<{ created_at: string }>('SELECT created_at FROM card_tokens WHERE merchant_id = ?', [env.merchant.merchant_id]);
    expect(token?.created_at).toBe(clock);

    // a webhook endpoint
    const ep = await ok(env, 'POST', '/v1/postbacks/endpoints', { url: 'https://hooks.example.com/mpay', events: ['*'] });
    expect([ep.created_at, ep.updated_at]).toEqual([clock, clock]);

    // nothing the merchant owns was stamped with the server's real time
    for (const table of ['submerchants', 'submerchant_addresses', 'submerchant_documents', 'legal_representatives', 'files', 'card_tokens', 'webhook_endpoints']) {
      const rows = await env.rt.deps.db.all<{ created_at: string }>(`SELECT created_at FROM ${table}`);
      expect(rows.length, table).toBeGreaterThan(0);
      expect(rows.every((r) => r.created_at === clock), table).toBe(true);
    }
  });
});
