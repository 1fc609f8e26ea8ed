import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runDueWork } from '../../src/server/due.js';
import { assertLinkPayable, effectiveStatus, recordLinkUse } from '../../src/server/services/paymentLinks.js';
import { SameInstantDue } from '../helpers/due.js';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { addSubmerchant } from '../helpers/money.js';

let env: TestEnv;
beforeEach(async () => {
  env = await testEnv();
});
afterEach(async () => env.close());

const base = { title: 'Camiseta azul', product_type: 'physical', allowed_payment_methods: ['credit_card', 'pix'] };
const hour = 3600_000;
const inHours = (h: number) => new Date(env.clock.now().getTime() + h * hour).toISOString();
const create = async (over: Record<string, unknown> = {}) => {
  const r = await env.call('POST', '/v1/payment-links', { ...base, ...over });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data;
};
const use = (id: string, chargeId?: string) =>
  env.rt.deps.db.tx((q) => recordLinkUse(q, { ids: env.rt.deps.ids, baseUrl: 'https://pay.example.com' }, id, env.clock.now(), { chargeId }));

describe('POST /v1/payment-links', () => {
  it('creates an active link with its checkout_url and the seed record, and writes payment_link.created', async () => {
    const l = await create();
    const key = await env.rt.deps.db.get<{ id: string }>('SELECT id FROM api_keys WHERE merchant_id = ?', [env.merchant.merchant_id]);
    expect(l).toMatchObject({
      merchant_id: env.merchant.merchant_id,
      submerchant_id: null,
      title: 'Camiseta azul',
      description: null,
      amount: null,
      checkout_url: `http://localhost/checkout/${l.id}`,
      currency: 'BRL',
      product_type: 'physical',
      allowed_payment_methods: ['credit_card', 'pix'],
      max_installments: 1,
      expires_at: null,
      max_uses: null,
      current_uses: 0,
      status: 'active',
      redirect_url: null,
      cover_image_url: null,
      primary_color: null,
      summary_color: null,
      logo_url: null,
      metadata: {},
      created_by: key!.id,
    });
    const ev = await env.rt.deps.db.all<any>('SELECT type, resource_id FROM events');
    expect(ev).toEqual([{ type: 'payment_link.created', resource_id: l.id }]);
  });

  it('takes every optional field, colors as #RRGGBB and expires_at normalised to UTC', async () => {
    const sub = await addSubmerchant(env);
    const l = await create({
      submerchant_id: sub.id,
      description: 'Algodão',
      amount: 7990,
      currency: 'BRL',
      max_installments: 12,
      expires_at: '2026-02-01T09:00:00-03:00',
      max_uses: 5,
      metadata: { sku: 'CAM-01' },
      redirect_url: 'https://loja.example.com/obrigado',
      cover_image_url: 'https://cdn.example.com/capa.png',
      primary_color: '#1a73e8',
      summary_color: '#FFFFFF',
      logo_url: 'https://cdn.example.com/logo.svg',
    });
    expect(l).toMatchObject({
      submerchant_id: sub.id,
      amount: 7990,
      max_installments: 12,
      expires_at: '2026-02-01T12:00:00.000Z',
      max_uses: 5,
      primary_color: '#1A73E8',
      summary_color: '#FFFFFF',
      logo_url: 'https://cdn.example.com/logo.svg',
      metadata: { sku: 'CAM-01' },
    });
  });

  it('refuses what the rules forbid, naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ allowed_payment_methods: [] }, 'allowed_payment_methods'],
      [{ allowed_payment_methods: ['debit_card'] }, 'allowed_payment_methods[0]'],
      [{ allowed_payment_methods: ['pix', 'pix'] }, 'allowed_payment_methods'],
      [{ max_installments: 0 }, 'max_installments'],
      [{ max_installments: 13 }, 'max_installments'],
      [{ allowed_payment_methods: ['pix'], max_installments: 3 }, 'max_installments'],
      [{ primary_color: 'blue' }, 'primary_color'],
      [{ summary_color: '#FFF' }, 'summary_color'],
      [{ logo_url: 'javascript:alert(1)' }, 'logo_url'],
      [{ redirect_url: 'not a url' }, 'redirect_url'],
      [{ expires_at: '2020-01-01T00:00:00Z' }, 'expires_at'],
      [{ expires_at: 'tomorrow' }, 'expires_at'],
      [{ amount: 0 }, 'amount'],
      [{ amount: 1_000_000_001 }, 'amount'],
      [{ amount: 5_000_000_000 }, 'amount'],
      [{ max_uses: 0 }, 'max_uses'],
      [{ currency: 'USD' }, 'currency'],
      [{ product_type: 'service' }, 'product_type'],
      [{ title: '' }, 'title'],
      [{ colour: '#000000' }, 'colour'],
    ];
    for (const [over, field] of cases) {
      const r = await env.call('POST', '/v1/payment-links', { ...base, ...over });
      expect(r.status, JSON.stringify(over)).toBe(400);
      expect(r.body.details.map((d: any) => d.field), JSON.stringify(over)).toContain(field);
    }
    const other = await env.newMerchant('Outra');
    const theirSub = await addSubmerchant(env, other.merchant_id);
    expect((await env.call('POST', '/v1/payment-links', { ...base, submerchant_id: theirSub.id })).status).toBe(404);
    expect(await env.rt.deps.db.get<any>('SELECT COUNT(*) AS n FROM payment_links')).toEqual({ n: 0 });
  });
});

describe('logo and cover image URLs', () => {
  const bad: [string, string][] = [
    ['https://evil.example;sandbox/x.png', ';'],
    ['https://*/x.png', 'wildcard'],
    ['https://*.example.com/x.png', 'wildcard'],
    ['https://a,b.example/x.png', ','],
    ['https://evil%20example/x.png', 'space'],
    ['http://cdn.example.com/logo.png', 'https'],
    ['https://user:pw@cdn.example.com/logo.png', 'user name'],
    ['https://-bad-.example/x.png', 'host'],
    ['https://[::1]/x.png', 'host'],
    ['https://cdn.example.com/lo\ngo.png', 'control character'],
  ];
  for (const field of ['logo_url', 'cover_image_url']) {
    it.each(bad)(`${field}: %s is a 400 naming the field (%s)`, async (url) => {
      const r = await env.call('POST', '/v1/payment-links', { ...base, [field]: url });
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body.details).toEqual([{ field, message: expect.stringContaining('https') }]);
      const l = await create();
      const p = await env.call('PATCH', `/v1/payment-links/${l.id}`, { [field]: url });
      expect(p.status, JSON.stringify(p.body)).toBe(400);
      expect(p.body.details.map((d: any) => d.field)).toEqual([field]);
      expect((await env.call('GET', `/v1/payment-links/${l.id}`)).body.data[field]).toBeNull();
    });
  }

  it('takes an https URL with a real host, a port, a path and a query as given', async () => {
    const l = await create({ logo_url: 'https://CDN.Loja-1.example.com:8443/a/logo.png?v=2', cover_image_url: 'https://img.example/capa.jpg' });
    expect(l.logo_url).toBe('https://CDN.Loja-1.example.com:8443/a/logo.png?v=2');
    expect(l.cover_image_url).toBe('https://img.example/capa.jpg');
  });
});

describe('PATCH /v1/payment-links/{id}', () => {
  it('keeps the charge cap: an amount above 1,000,000,000 cents is a 400 naming amount', async () => {
    const l = (await env.call('POST', '/v1/payment-links', { ...base, amount: 1_000_000_000 })).body.data;
    expect(l.amount).toBe(1_000_000_000);
    const r = await env.call('PATCH', `/v1/payment-links/${l.id}`, { amount: 5_000_000_000 });
    expect(r.status).toBe(400);
    expect(r.body.details.map((d: any) => d.field)).toContain('amount');
    expect((await env.call('GET', `/v1/payment-links/${l.id}`)).body.data.amount).toBe(1_000_000_000);
  });

  it('changes only the fields sent; null clears an optional field', async () => {
    const l = await create({ amount: 5000, description: 'x', primary_color: '#000000', max_uses: 3 });
    env.clock.advance(1000);
    const r = await env.call('PATCH', `/v1/payment-links/${l.id}`, { title: 'Novo', primary_color: '#abcdef', summary_color: '#123456', logo_url: 'https://cdn.example.com/l.png', description: null });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ title: 'Novo', primary_color: '#ABCDEF', summary_color: '#123456', logo_url: 'https://cdn.example.com/l.png', description: null, amount: 5000, max_uses: 3 });
    expect(r.body.data.updated_at > l.updated_at).toBe(true);
    const again = await env.call('GET', `/v1/payment-links/${l.id}`);
    expect(again.body.data).toEqual(r.body.data);
    const cleared = await env.call('PATCH', `/v1/payment-links/${l.id}`, { amount: null, max_uses: null });
    expect(cleared.body.data).toMatchObject({ amount: null, max_uses: null });
  });

  it('toggles active/inactive and refuses other statuses', async () => {
    const l = await create();
    expect((await env.call('PATCH', `/v1/payment-links/${l.id}`, { status: 'inactive' })).body.data.status).toBe('inactive');
    expect((await env.call('GET', '/v1/payment-links?status=inactive')).body.data.map((x: any) => x.id)).toEqual([l.id]);
    expect((await env.call('PATCH', `/v1/payment-links/${l.id}`, { status: 'active' })).body.data.status).toBe('active');
    const bad = await env.call('PATCH', `/v1/payment-links/${l.id}`, { status: 'expired' });
    expect(bad.status).toBe(400);
    expect(bad.body.details[0]).toEqual({ field: 'status', message: 'must be active or inactive' });
  });

  it('refuses an empty patch, a past expires_at, max_uses not above current_uses, and installments without credit_card', async () => {
    const l = await create({ max_installments: 6 });
    expect((await env.call('PATCH', `/v1/payment-links/${l.id}`, {})).status).toBe(400);
    expect((await env.call('PATCH', `/v1/payment-links/${l.id}`, { expires_at: '2020-01-01T00:00:00Z' })).body.details[0].field).toBe('expires_at');
    await use(l.id);
    await use(l.id);
    const uses = await env.call('PATCH', `/v1/payment-links/${l.id}`, { max_uses: 2 });
    expect(uses.status).toBe(400);
    expect(uses.body.details[0]).toEqual({ field: 'max_uses', message: 'must be more than current_uses (2)' });
    expect((await env.call('PATCH', `/v1/payment-links/${l.id}`, { max_uses: 3 })).status).toBe(200);
    const pixOnly = await env.call('PATCH', `/v1/payment-links/${l.id}`, { allowed_payment_methods: ['pix'] });
    expect(pixOnly.status).toBe(400);
    expect(pixOnly.body.details[0].field).toBe('max_installments');
    expect((await env.call('PATCH', `/v1/payment-links/${l.id}`, { allowed_payment_methods: ['pix'], max_installments: 1 })).status).toBe(200);
  });

  it("another merchant's link is a 404 for GET and PATCH", async () => {
    const l = await create();
    const other = await env.newMerchant('Outra');
    const auth = { authorization: env.auth(other) };
    expect((await env.call('GET', `/v1/payment-links/${l.id}`, undefined, auth)).status).toBe(404);
    expect((await env.call('PATCH', `/v1/payment-links/${l.id}`, { title: 'x' }, auth)).status).toBe(404);
    expect((await env.call('GET', '/v1/payment-links', undefined, auth)).body.data).toEqual([]);
    expect((await env.call('GET', `/v1/payment-links/not-a-uuid`)).status).toBe(404);
  });
});

describe('expiry on the merchant clock', () => {
  it('moves to expired once expires_at passes (due work), and an expired link can no longer change', async () => {
    // the clock moves by one millisecond below: the production skip window (DUE_SKIP_MS) would
    // let the expiry show up to 100 ms late, so this test runs the due work at every new instant
    await env.close();
    env = await testEnv({ due: new SameInstantDue() });
    const l = await create({ expires_at: inHours(2) });
    const inactive = await create({ expires_at: inHours(2) });
    await env.call('PATCH', `/v1/payment-links/${inactive.id}`, { status: 'inactive' });
    env.clock.advance(2 * hour - 1);
    expect((await env.call('GET', `/v1/payment-links/${l.id}`)).body.data.status).toBe('active');
    env.clock.advance(1);
    expect((await env.call('GET', `/v1/payment-links/${l.id}`)).body.data.status).toBe('expired');
    const stored = await env.rt.deps.db.all<any>('SELECT status FROM payment_links');
    expect(stored.map((r) => r.status)).toEqual(['expired', 'expired']);
    expect((await env.call('GET', '/v1/payment-links?status=expired')).body.pagination.total).toBe(2);
    const patch = await env.call('PATCH', `/v1/payment-links/${l.id}`, { status: 'active', expires_at: inHours(10) });
    expect(patch.status).toBe(409);
    expect(patch.body.error).toBe('invalid_state');
  });

  it('is evaluated on read too, and swept by the due-work sweep (a server timer)', async () => {
    const l = await create({ expires_at: inHours(1) });
    const row = await env.rt.deps.db.get<any>('SELECT status, expires_at FROM payment_links WHERE id = ?', [l.id]);
    expect(effectiveStatus(row, new Date(Date.parse(l.expires_at) - 1))).toBe('active');
    expect(effectiveStatus(row, new Date(l.expires_at))).toBe('expired');
    expect(effectiveStatus({ status: 'exhausted', expires_at: l.expires_at }, new Date(l.expires_at))).toBe('exhausted');
    env.clock.advance(hour);
    expect(await runDueWork(env.rt.deps)).toBe(1);
    expect((await env.rt.deps.db.get<any>('SELECT status FROM payment_links WHERE id = ?', [l.id])).status).toBe('expired');
    expect(await runDueWork(env.rt.deps)).toBe(0);
  });

  it("follows the merchant's sandbox clock offset", async () => {
    const l = await create({ expires_at: inHours(24) });
    await env.rt.deps.db.run('UPDATE merchants SET clock_offset_ms = ? WHERE id = ?', [25 * hour, env.merchant.merchant_id]);
    expect((await env.call('GET', `/v1/payment-links/${l.id}`)).body.data.status).toBe('expired');
  });
});

describe('recordLinkUse (called by checkout when a link payment is confirmed)', () => {
  it('counts uses, becomes exhausted at max_uses and emits payment_link.paid each time', async () => {
    const l = await create({ max_uses: 2 });
    const a = await use(l.id, 'charge-1');
    expect(a).toMatchObject({ current_uses: 1, status: 'active', checkout_url: `https://pay.example.com/checkout/${l.id}` });
    const b = await use(l.id, 'charge-2');
    expect(b).toMatchObject({ current_uses: 2, status: 'exhausted' });
    const ev = await env.rt.deps.db.all<any>("SELECT type, resource_id, charge_id FROM events WHERE type = 'payment_link.paid' ORDER BY created_at, id");
    expect(ev).toEqual([
      { type: 'payment_link.paid', resource_id: l.id, charge_id: 'charge-1' },
      { type: 'payment_link.paid', resource_id: l.id, charge_id: 'charge-2' },
    ]);
    const got = await env.call('GET', `/v1/payment-links/${l.id}`);
    expect(got.body.data).toMatchObject({ current_uses: 2, status: 'exhausted' });
    expect((await env.call('PATCH', `/v1/payment-links/${l.id}`, { status: 'active' })).status).toBe(409);
    expect((await env.call('GET', '/v1/payment-links?status=exhausted')).body.data.map((x: any) => x.id)).toEqual([l.id]);
  });

  it('without max_uses a link is never exhausted; the change rolls back with the caller', async () => {
    const l = await create();
    for (let i = 0; i < 3; i++) await use(l.id);
    expect((await env.call('GET', `/v1/payment-links/${l.id}`)).body.data).toMatchObject({ current_uses: 3, status: 'active' });
    await expect(
      env.rt.deps.db.tx(async (q) => {
        await recordLinkUse(q, { ids: env.rt.deps.ids, baseUrl: 'http://x' }, l.id, env.clock.now());
        throw new Error('charge confirmation failed');
      }),
    ).rejects.toThrow('charge confirmation failed');
    expect((await env.call('GET', `/v1/payment-links/${l.id}`)).body.data.current_uses).toBe(3);
  });

  it('assertLinkPayable tells checkout why a link cannot be paid', async () => {
    const now = env.clock.now();
    expect(() => assertLinkPayable({ status: 'active', expires_at: null }, now)).not.toThrow();
    expect(() => assertLinkPayable({ status: 'inactive', expires_at: null }, now)).toThrow(expect.objectContaining({ code: 'link_inactive' }));
    expect(() => assertLinkPayable({ status: 'active', expires_at: now.toISOString() }, now)).toThrow(expect.objectContaining({ code: 'link_expired' }));
    expect(() => assertLinkPayable({ status: 'exhausted', expires_at: null }, now)).toThrow(expect.objectContaining({ code: 'link_exhausted' }));
  });
});

describe('GET /v1/payment-links', () => {
  it('lists newest first with filters and pagination', async () => {
    const sub = await addSubmerchant(env);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await create({ title: `L${i}`, ...(i === 1 ? { submerchant_id: sub.id } : {}) })).id);
      env.clock.advance(10);
    }
    const page = await env.call('GET', '/v1/payment-links?per_page=2&page=2');
    expect(page.body.pagination).toEqual({ page: 2, perPage: 2, total: 3, totalPages: 2 });
    expect(page.body.data.map((l: any) => l.id)).toEqual([ids[0]]);
    const bySub = await env.call('GET', `/v1/payment-links?submerchant_id=${sub.id}`);
    expect(bySub.body.data.map((l: any) => l.id)).toEqual([ids[1]]);
    expect((await env.call('GET', '/v1/payment-links?status=archived')).status).toBe(400);
  });
});
