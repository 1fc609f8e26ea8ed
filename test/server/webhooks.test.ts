import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { EVENT_NAMES } from '../../src/contract/events.js';

let env: TestEnv;
beforeEach(async () => {
  env = await testEnv();
});
afterEach(async () => {
  await env.close();
});

const create = (body: unknown, headers?: Record<string, string>) => env.call('POST', '/v1/postbacks/endpoints', body, headers);

describe('webhook endpoints', () => {
  it('creates an endpoint and returns its whsec_ secret only in the creation response', async () => {
    const r = await create({ url: 'https://shop.example.com/hooks', events: ['charge.captured', 'charge.failed', 'charge.captured'] });
    expect(r.status).toBe(201);
    expect(r.body.message).toBe('Webhook endpoint created');
    const d = r.body.data;
    expect(d).toMatchObject({ url: 'https://shop.example.com/hooks', events: ['charge.captured', 'charge.failed'], status: 'active' });
    expect(d.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(d.secret.slice(6), 'base64')).toHaveLength(32);
    expect(d).not.toHaveProperty('has_secret');

    const g = await env.call('GET', `/v1/postbacks/endpoints/${d.id}`);
    expect(g.status).toBe(200);
    expect(g.body.data).toEqual({ id: d.id, url: d.url, has_secret: true, events: d.events, status: 'active', created_at: d.created_at, updated_at: d.updated_at });
    expect(JSON.stringify(g.body)).not.toContain(d.secret.slice(6));

    // stored encrypted: neither the secret nor its key bytes appear in the row
    const row = await env.rt.deps.db.get<Record<string, unknown>>('SELECT * FROM webhook_endpoints WHERE id = ?', [d.id]);
    expect(JSON.stringify(row)).not.toContain(d.secret.slice(6));
    expect(env.rt.deps.keyring.decrypt(String(row!.secret_enc))).toBe(d.secret);
  });

  it("accepts ['*'] and every event name of the contract", async () => {
    expect((await create({ url: 'https://a.example.com/', events: ['*'] })).status).toBe(201);
    const all = await create({ url: 'https://b.example.com/', events: [...EVENT_NAMES] });
    expect(all.status).toBe(201);
    expect(all.body.data.events).toEqual([...EVENT_NAMES]);
  });

  it('refuses unknown event names, naming each of them', async () => {
    const r = await create({ url: 'https://shop.example.com/hooks', events: ['charge.captured', 'charge.paid', 'foo.bar'] });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('validation_error');
    expect(r.body.details).toHaveLength(1);
    expect(r.body.details[0].field).toBe('events');
    expect(r.body.details[0].message).toContain('charge.paid, foo.bar');
    expect(r.body.details[0].message).toContain("'*'");
    expect((await env.call('GET', '/v1/postbacks/endpoints')).body.pagination.total).toBe(0);
  });

  it('refuses bad bodies with 400 naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ events: ['*'] }, 'url'],
      [{ url: 'https://x.example.com' }, 'events'],
      [{ url: 'not a url', events: ['*'] }, 'url'],
      [{ url: 'ftp://x.example.com/f', events: ['*'] }, 'url'],
      [{ url: 'https://user:pw@x.example.com/', events: ['*'] }, 'url'],
      [{ url: 'https://x.example.com/' + 'a'.repeat(2100), events: ['*'] }, 'url'],
      [{ url: 'https://x.example.com', events: [] }, 'events'],
      [{ url: 'https://x.example.com', events: ['*', 'charge.captured'] }, 'events'],
      [{ url: 'https://x.example.com', events: 'charge.captured' }, 'events'],
      [{ url: 'https://x.example.com', events: ['*'], secret: 'whsec_mine' }, 'secret'],
    ];
    for (const [body, field] of cases) {
      const r = await create(body);
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(r.body.details.map((d: { field: string }) => d.field)).toContain(field);
    }
  });

  it('lists newest first with pagination and a status filter; another merchant sees none of them', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await create({ url: `https://h${i}.example.com/`, events: ['*'] })).body.data.id);
      env.clock.advance(1000);
    }
    await env.call('PATCH', `/v1/postbacks/endpoints/${ids[0]}`, { status: 'disabled' });
    const p1 = await env.call('GET', '/v1/postbacks/endpoints?per_page=2');
    expect(p1.body.data.map((e: { id: string }) => e.id)).toEqual([ids[2], ids[1]]);
    expect(p1.body.pagination).toEqual({ page: 1, perPage: 2, total: 3, totalPages: 2 });
    expect(p1.body.data.every((e: Record<string, unknown>) => e.has_secret === true && !('secret' in e))).toBe(true);
    const dis = await env.call('GET', '/v1/postbacks/endpoints?status=disabled');
    expect(dis.body.data.map((e: { id: string }) => e.id)).toEqual([ids[0]]);
    expect((await env.call('GET', '/v1/postbacks/endpoints?status=gone')).status).toBe(400);

    const other = await env.newMerchant('Outra Loja');
    const h = { authorization: env.auth(other) };
    expect((await env.call('GET', '/v1/postbacks/endpoints', undefined, h)).body.pagination.total).toBe(0);
    expect((await env.call('GET', `/v1/postbacks/endpoints/${ids[1]}`, undefined, h)).status).toBe(404);
    expect((await env.call('PATCH', `/v1/postbacks/endpoints/${ids[1]}`, { status: 'disabled' }, h)).status).toBe(404);
    expect((await env.call('DELETE', `/v1/postbacks/endpoints/${ids[1]}`, undefined, h)).status).toBe(404);
    expect((await env.call('GET', `/v1/postbacks/endpoints/${ids[1]}`)).body.data.status).toBe('active');
  });

  it('PATCH disables and enables; a same-status PATCH changes nothing; an empty PATCH is a 400', async () => {
    const id = (await create({ url: 'https://x.example.com/', events: ['*'] })).body.data.id;
    env.clock.advance(5000);
    const off = await env.call('PATCH', `/v1/postbacks/endpoints/${id}`, { status: 'disabled' });
    expect(off.status).toBe(200);
    expect(off.body.data.status).toBe('disabled');
    expect(off.body.data.updated_at > off.body.data.created_at).toBe(true);
    expect((await env.call('PATCH', `/v1/postbacks/endpoints/${id}`, { status: 'disabled' })).body.data.status).toBe('disabled');
    const on = await env.call('PATCH', `/v1/postbacks/endpoints/${id}`, { status: 'active', events: ['charge.failed'], url: 'https://y.example.com/h' });
    expect(on.body.data).toMatchObject({ status: 'active', events: ['charge.failed'], url: 'https://y.example.com/h' });
    expect((await env.call('GET', `/v1/postbacks/endpoints/${id}`)).body.data).toMatchObject({ status: 'active', url: 'https://y.example.com/h' });
    const empty = await env.call('PATCH', `/v1/postbacks/endpoints/${id}`, {});
    expect(empty.status).toBe(400);
    expect((await env.call('PATCH', `/v1/postbacks/endpoints/${id}`, { status: 'paused' })).status).toBe(400);
    expect((await env.call('PATCH', `/v1/postbacks/endpoints/${id}`, { events: ['nope'] })).body.details[0].message).toContain('nope');
  });

  it('DELETE removes the endpoint: later reads are 404, it leaves the list', async () => {
    const id = (await create({ url: 'https://x.example.com/', events: ['*'] })).body.data.id;
    const del = await env.call('DELETE', `/v1/postbacks/endpoints/${id}`);
    expect(del.status).toBe(200);
    expect(del.body.data).toMatchObject({ id, status: 'disabled', has_secret: true });
    expect((await env.call('GET', `/v1/postbacks/endpoints/${id}`)).status).toBe(404);
    expect((await env.call('DELETE', `/v1/postbacks/endpoints/${id}`)).status).toBe(404);
    expect((await env.call('PATCH', `/v1/postbacks/endpoints/${id}`, { status: 'active' })).status).toBe(404);
    expect((await env.call('GET', '/v1/postbacks/endpoints')).body.pagination.total).toBe(0);
    expect((await env.call('GET', '/v1/postbacks/endpoints/not-a-uuid')).status).toBe(404);
  });

  it('sandbox: loopback and private URLs are accepted, the metadata address is not', async () => {
    expect((await create({ url: 'http://127.0.0.1:3000/hooks', events: ['*'] })).status).toBe(201);
    expect((await create({ url: 'http://localhost:3000/hooks', events: ['*'] })).status).toBe(201);
    expect((await create({ url: 'http://192.168.0.10/hooks', events: ['*'] })).status).toBe(201);
    const meta = await create({ url: 'http://169.254.169.254/latest/meta-data', events: ['*'] });
    expect(meta.status).toBe(400);
    expect(meta.body.details[0]).toEqual({ field: 'url', message: expect.stringContaining('cloud metadata') });
  });

  it('validates the delivery-log filters', async () => {
    for (const bad of ['status=sent', 'event_name=charge.paid', 'webhook_endpoint_id=x', 'colour=red']) {
      const r = await env.call('GET', `/v1/postbacks/delivery-logs?${bad}`);
      expect(r.status, bad).toBe(400);
    }
    const ok = await env.call('GET', '/v1/postbacks/delivery-logs?status=failed&event_name=charge.captured');
    expect(ok.status).toBe(200);
    expect(ok.body.pagination).toEqual({ page: 1, perPage: 20, total: 0, totalPages: 0 });
    expect((await env.call('POST', '/v1/postbacks/delivery-logs/0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f/retry')).status).toBe(404);
  });

  it('documents the operations in the OpenAPI document', async () => {
    const doc = await (await env.rt.app.request('/openapi.json')).json();
    expect(doc.paths['/v1/postbacks/endpoints'].post.operationId).toBe('webhookEndpoints.create');
    expect(doc.paths['/v1/postbacks/endpoints/{id}'].patch.operationId).toBe('webhookEndpoints.update');
    expect(doc.paths['/v1/postbacks/delivery-logs'].get.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['status', 'event_name', 'page', 'per_page']),
    );
  });
});

/** Each URL is refused as an endpoint (400 on `url`, naming the reason) and nothing is registered. */
async function expectRefused(e: TestEnv, cases: [url: string, reason: string][]): Promise<void> {
  for (const [url, reason] of cases) {
    const r = await e.call('POST', '/v1/postbacks/endpoints', { url, events: ['*'] });
    expect(r.status, url).toBe(400);
    expect(r.body.details[0].field).toBe('url');
    expect(r.body.details[0].message, url).toContain(reason);
  }
  expect((await e.call('GET', '/v1/postbacks/endpoints')).body.pagination.total).toBe(0);
}

describe('webhook endpoints in production mode', () => {
  let prod: TestEnv;
  beforeEach(async () => {
    prod = await testEnv({ mode: 'production' });
  });
  afterEach(async () => {
    await prod.close();
  });

  it('refuses URLs that are or resolve to loopback, private, link-local, CGNAT, unspecified or metadata addresses', async () => {
    const refused: [string, string][] = [
      ['http://127.0.0.1:8080/h', 'loopback'],
      ['http://127.1/h', 'loopback'],
      ['http://2130706433/h', 'loopback'],
      ['http://localhost/h', 'loopback'],
      ['http://[::1]/h', 'loopback'],
      ['http://[::ffff:127.0.0.1]/h', 'loopback'],
      ['http://10.1.2.3/h', 'private'],
      ['http://172.20.0.1/h', 'private'],
      ['http://192.168.1.1/h', 'private'],
      ['http://[fd12:3456::1]/h', 'private'],
      ['http://169.254.10.10/h', 'link-local'],
      ['http://[fe80::1]/h', 'link-local'],
      ['http://169.254.169.254/latest/meta-data', 'cloud metadata'],
      ['http://100.64.1.1/h', 'CGNAT'],
      ['http://0.0.0.0/h', 'unspecified'],
      ['http://[::]/h', 'unspecified'],
    ];
    await expectRefused(prod, refused);
  });

  it('accepts public addresses, and refuses a private URL given by PATCH', async () => {
    const ok = await prod.call('POST', '/v1/postbacks/endpoints', { url: 'https://93.184.216.34/hooks', events: ['*'] });
    expect(ok.status).toBe(201);
    const p = await prod.call('PATCH', `/v1/postbacks/endpoints/${ok.body.data.id}`, { url: 'http://10.0.0.5/h' });
    expect(p.status).toBe(400);
    expect((await prod.call('GET', `/v1/postbacks/endpoints/${ok.body.data.id}`)).body.data.url).toBe('https://93.184.216.34/hooks');
  });
});

describe('webhook URLs in translated address ranges', () => {
  // RFC 8215 local-use NAT64 (64:ff9b:1::/48), SIIT's IPv4-translated addresses (::ffff:0:0:0/96,
  // RFC 6145) and the discard-only block (100::/64, RFC 6666)
  it('the sandbox refuses them where they translate to the metadata address', async () => {
    const urls = ['http://[64:ff9b:1::a9fe:a9fe]/h', 'http://[::ffff:0:a9fe:a9fe]/h', 'http://[64:ff9b:1:a:b:c:a9fe:a9fe]/h'];
    await expectRefused(env, urls.map((u): [string, string] => [u, 'cloud metadata']));
  });

  it('production refuses them', async () => {
    const prod = await testEnv({ mode: 'production' });
    try {
      const refused: [string, string][] = [
        ['http://[64:ff9b:1::7f00:1]/h', 'local-use NAT64'],
        ['http://[::ffff:0:7f00:1]/h', 'loopback'],
        ['http://[::ffff:0:a00:1]/h', 'private'],
        ['http://[100::1]/h', 'discard'],
      ];
      await expectRefused(prod, refused);
    } finally {
      await prod.close();
    }
  });
});
