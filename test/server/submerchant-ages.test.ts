import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { ok, partnerBody, pfBody, pjBody } from '../helpers/onboarding.js';

let env: TestEnv;
beforeEach(async () => {
  env = await testEnv();
});
afterEach(async () => env.close());

describe('ages: a pf submerchant or a pf partner must be 18, on the São Paulo date', () => {
  it('refuses 17 years and 364 days, though the UTC date says 18; accepts 18 that day', async () => {
    // 02:00 UTC on 15 June is still 14 June (23:00) in São Paulo
    env.clock.set(new Date('2026-06-15T02:00:00Z'));
    const young = await env.call('POST', '/v1/submerchants', pfBody({ birth_date: '2008-06-15' }));
    expect(young.status).toBe(400);
    expect(young.body.details).toEqual([
      { field: 'birth_date', message: 'must be at least 18 years ago: a person born on 2008-06-15 is 17 on 2026-06-14 (today in São Paulo) and turns 18 on 2026-06-15' },
    ]);
    expect((await env.call('POST', '/v1/submerchants', pfBody({ birth_date: '2008-06-14' }))).status).toBe(201);
    const pj = await ok(env, 'POST', '/v1/submerchants', pjBody());
    const partner = await env.call('POST', `/v1/submerchants/${pj.id}/legal-representatives`, partnerBody({ birth_date: '2010-01-01' }));
    expect(partner.status).toBe(400);
    expect(partner.body.details[0]).toMatchObject({ field: 'birth_date' });
    expect(partner.body.details[0].message).toMatch(/^must be at least 18 years ago: a person born on 2010-01-01 is 16 on 2026-06-14/);
  });
});
