import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reopen, testEnv, type TestEnv } from '../helpers/server.js';
import { addSubmerchant, CPF, tokenize } from '../helpers/money.js';
import { CHECKOUT_JS } from '../../src/server/checkout/assets.js';
import { escapeHtml, jsonForScript, safeColor } from '../../src/server/checkout/page.js';
import { formatBRL, parseBRL } from '../../src/domain/money.js';
import { installmentLabel } from '../../src/server/checkout/format.js';
import { DEFAULT_CHECKOUT_RATE_LIMIT } from '../../src/server/rateLimit.js';

let env: TestEnv;
beforeEach(async () => {
  env = await testEnv({ checkoutRateLimit: null });
});
afterEach(async () => env.close());

const hour = 3600_000;
const buyer = { name: 'Ana Souza', email: 'ana@example.com', tax_id: '529.982.247-25', phone: '(11) 98765-4321' };

async function createLink(over: Record<string, unknown> = {}) {
  const r = await env.call('POST', '/v1/payment-links', {
    title: 'Camiseta',
    product_type: 'physical',
    allowed_payment_methods: ['credit_card', 'pix'],
    amount: 5000,
    max_installments: 3,
    ...over,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data as { id: string; checkout_url: string };
}

async function page(path: string) {
  const res = await env.rt.app.request(path);
  return { status: res.status, headers: res.headers, html: await res.text() };
}

/** A public request: no credentials. */
async function pub(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await env.rt.app.request(path, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

let seq = 0;
const attempt = () => `attempt-${++seq}-${Math.random().toString(36).slice(2, 10)}`;
const payCard = async (linkId: string, extra: Record<string, unknown> = {}, number = '4111111111111111') =>
  pub('POST', `/checkout/${linkId}/pay`, {
    attempt_id: attempt(),
    payment_method: 'credit_card',
    token: await tokenize(env, number),
    customer: buyer,
    ...extra,
  });
const payPix = (linkId: string, extra: Record<string, unknown> = {}) =>
  pub('POST', `/checkout/${linkId}/pay`, { attempt_id: attempt(), payment_method: 'pix', customer: buyer, ...extra });
const linkOf = async (id: string) => (await env.call('GET', `/v1/payment-links/${id}`)).body.data;

describe('GET /checkout/{id}: the page', () => {
  it('escapes every piece of link data and serves a strict CSP whose nonce is on its script and style', async () => {
    const link = await createLink({
      title: `<script>alert("t")</script>&'`,
      description: `</script><img src=x onerror=alert(1)> "quoted"`,
      logo_url: 'https://cdn.loja.example/logo.png?v=1&s=2',
      primary_color: '#7c3aed',
    });
    const p = await page(`/checkout/${link.id}`);
    expect(p.status).toBe(200);
    expect(p.html).not.toContain('<script>alert');
    expect(p.html).not.toContain('<img src=x');
    expect(p.html).toContain('&#60;script&#62;alert(&#34;t&#34;)&#60;/script&#62;&#38;&#39;');
    expect(p.html).toContain('&#60;/script&#62;&#60;img src=x onerror=alert(1)&#62; &#34;quoted&#34;');
    expect(p.html).toContain('src="https://cdn.loja.example/logo.png?v=1&#38;s=2"');

    const csp = p.headers.get('content-security-policy')!;
    const nonce = /script-src 'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)![1]!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain(`style-src 'nonce-${nonce}'`);
    expect(csp).toContain("img-src 'self' data: https://cdn.loja.example;");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
    // every <script> and <style> that can run carries the nonce; the only other script is a JSON data block
    const tags = p.html.match(/<(script|style|link rel="stylesheet")[^>]*>/g)!;
    for (const t of tags) expect(t.includes(`nonce="${nonce}"`) || t.includes('type="application/json"'), t).toBe(true);
    expect(p.html).toContain(`<script src="/checkout/assets/${CHECKOUT_JS.name}" integrity="${CHECKOUT_JS.integrity}"`);
    expect(p.headers.get('x-content-type-options')).toBe('nosniff');
    expect(p.headers.get('referrer-policy')).toBe('no-referrer');
    expect(p.headers.get('x-frame-options')).toBe('DENY');
    expect(p.headers.get('cache-control')).toBe('no-store');
    expect(p.html).toContain('--primary:#7C3AED;');
    // a new nonce per response
    const again = await page(`/checkout/${link.id}`);
    expect(again.headers.get('content-security-policy')).not.toContain(nonce);
  });

  it('builds img-src from the logo URL\'s parsed origin, and shows no logo for a stored URL that is not https with a real host', async () => {
    const link = await createLink({ logo_url: 'https://cdn.loja.example:8443/a/logo.png' });
    const ok = await page(`/checkout/${link.id}`);
    expect(ok.headers.get('content-security-policy')).toContain("img-src 'self' data: https://cdn.loja.example:8443;");
    // values written before the API refused them, straight into the store
    for (const stored of ['https://evil.example;sandbox/x.png', 'https://*/x.png', 'https://a,b.example/x.png', 'http://cdn.loja.example/logo.png']) {
      await env.rt.deps.db.run('UPDATE payment_links SET logo_url = ? WHERE id = ?', [stored, link.id]);
      const p = await page(`/checkout/${link.id}`);
      expect(p.status).toBe(200);
      const csp = p.headers.get('content-security-policy')!;
      expect(csp, stored).toContain("img-src 'self' data:;");
      expect(csp, stored).not.toMatch(/sandbox|\*|,|evil/);
      expect(p.html, stored).toContain('logo-fallback');
      expect(p.html, stored).not.toContain(stored);
    }
  });

  it('gives the script only public data: the public key, never a secret', async () => {
    const link = await createLink({ redirect_url: 'https://loja.example/obrigado' });
    const p = await page(`/checkout/${link.id}`);
    const cfg = JSON.parse(/<script type="application\/json" id="checkout-config">(.*?)<\/script>/s.exec(p.html)![1]!);
    expect(cfg).toEqual({
      link_id: link.id,
      public_key: env.merchant.public_key,
      amount: 5000,
      max_installments: 3,
      interest: { interest: 'merchant', buyer_monthly_interest_bps: null, free_installments: null },
      methods: ['credit_card', 'pix'],
      tokens_url: '/v1/tokens',
      pay_url: `/checkout/${link.id}/pay`,
      status_url: `/checkout/${link.id}/charges/`,
    });
    expect(p.html).not.toContain(env.merchant.secret_key);
    expect(p.html).not.toMatch(/sk_(test|live)_/);
    expect(p.html).not.toContain(env.merchant.merchant_id);
  });

  it('puts only #RRGGBB colors into CSS, even when the stored value is something else', async () => {
    const link = await createLink({ summary_color: '#fafafa' });
    await env.rt.deps.db.run("UPDATE payment_links SET primary_color = ? WHERE id = ?", ['red;}</style><script>x()</script>', link.id]);
    const p = await page(`/checkout/${link.id}`);
    expect(p.html).not.toContain('red;}');
    expect(p.html).toContain('--primary:#1A56DB;');
    expect(p.html).toContain('--summary:#FAFAFA;--on-summary:#111827');
    expect(safeColor('#abcdef', '#000000')).toBe('#ABCDEF');
    expect(safeColor('#abcdefa', '#000000')).toBe('#000000');
  });

  it('shows the amount in R$, or an amount field when the link has none, and the installment options', async () => {
    const fixed = await page(`/checkout/${(await createLink({ amount: 123456 })).id}`);
    expect(fixed.html).toContain('<span class="total-value" id="total-value">R$ 1.234,56</span>');
    expect(fixed.html).not.toContain('id="amount"');
    expect(fixed.html).toContain('<option value="3">3x de R$ 411,52 sem juros</option>');
    const open = await page(`/checkout/${(await createLink({ amount: undefined, max_installments: 1 })).id}`);
    expect(open.html).toContain('<label for="amount">Valor a pagar (R$)</label>');
    expect(open.html).toContain('Você escolhe o valor');
    expect(open.html).toMatch(/<select id="installments" name="installments" disabled>/);
  });

  it('offers only PIX when the merchant has no key the page can tokenize with, and a 503 page when nothing is left', async () => {
    const [l1, l2] = [await createLink(), await createLink({ allowed_payment_methods: ['credit_card'] })];
    await env.rt.deps.db.run(`UPDATE api_keys SET allowed_ips = '["10.0.0.0/8"]' WHERE merchant_id = ?`, [env.merchant.merchant_id]);
    const both = await page(`/checkout/${l1.id}`);
    expect(both.status).toBe(200);
    expect(both.html).not.toContain('id="card-number"');
    expect(both.html).toContain('<input type="hidden" name="method" value="pix">');
    const cardOnly = await page(`/checkout/${l2.id}`);
    expect(cardOnly.status).toBe(503);
    expect(cardOnly.html).toContain('Pagamento indisponível no momento');
  });

  it('answers 404 for an unknown or malformed id, 410 for expired and exhausted links, 403 for an inactive one, with no form', async () => {
    const expiring = await createLink({ expires_at: new Date(env.clock.now().getTime() + hour).toISOString() });
    const single = await createLink({ max_uses: 1 });
    const off = await createLink();
    expect((await env.call('PATCH', `/v1/payment-links/${off.id}`, { status: 'inactive' })).status).toBe(200);
    expect((await payCard(single.id)).status).toBe(201);
    env.clock.advance(2 * hour);
    const cases: Array<[string, number, string]> = [
      ['/checkout/00000000-0000-4000-8000-000000000000', 404, 'Link de pagamento não encontrado'],
      ['/checkout/not-a-uuid', 404, 'Link de pagamento não encontrado'],
      [`/checkout/${expiring.id}`, 410, 'Este link de pagamento expirou'],
      [`/checkout/${single.id}`, 410, 'Este link de pagamento esgotou'],
      [`/checkout/${off.id}`, 403, 'Este link de pagamento está desativado'],
    ];
    for (const [path, status, heading] of cases) {
      const p = await page(path);
      expect(p.status, path).toBe(status);
      expect(p.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(p.html).toContain(`<h1>${heading}</h1>`);
      expect(p.html).not.toContain('<form');
      expect(p.headers.get('content-security-policy')).toContain("default-src 'none'");
    }
  });

  it('serves its assets from mpay with long-lived cache headers; the script carries the server BIN table', async () => {
    const js = await env.rt.app.request(`/checkout/assets/${CHECKOUT_JS.name}`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(js.headers.get('x-content-type-options')).toBe('nosniff');
    const body = await js.text();
    expect(body).toContain('636368'); // an Elo BIN of src/domain/brands.ts
    expect(body.length).toBeLessThan(40_000);
    const missing = await env.rt.app.request('/checkout/assets/checkout.0000.js');
    expect(missing.status).toBe(404);
  });
});

describe('format helpers shared by the page and its script', () => {
  it('formats and parses Brazilian amounts', () => {
    expect(formatBRL(7990)).toBe('R$ 79,90');
    expect(formatBRL(123456789)).toBe('R$ 1.234.567,89');
    expect(formatBRL(5)).toBe('R$ 0,05');
    expect(parseBRL('1.234,56')).toBe(123456);
    expect(parseBRL('R$ 50')).toBe(5000);
    expect(parseBRL('79.9')).toBe(7990);
    expect(parseBRL('1.000')).toBe(100000);
    expect(parseBRL('12,345')).toBeNull();
    expect(parseBRL('abc')).toBeNull();
    expect(parseBRL('')).toBeNull();
    expect(installmentLabel(7990, 3)).toBe('3x sem juros (1ª de R$ 26,64, demais de R$ 26,63)');
    expect(installmentLabel(9000, 3)).toBe('3x de R$ 30,00 sem juros');
  });

  it('escapes HTML and JSON for a script data block', () => {
    expect(escapeHtml(`<a href="x" onclick='y'>&\``)).toBe('&#60;a href=&#34;x&#34; onclick=&#39;y&#39;&#62;&#38;&#96;');
    const j = jsonForScript({ t: '</script><!-- \u2028 &' });
    expect(j).not.toMatch(/[<>&\u2028]/);
    expect(JSON.parse(j)).toEqual({ t: '</script><!-- \u2028 &' });
  });
});

describe('POST /checkout/{id}/pay', () => {
  it('pays by card through the charge service: link split, product type, one item; answers only what the buyer needs', async () => {
    const sub = await addSubmerchant(env);
    const link = await createLink({ submerchant_id: sub.id, redirect_url: 'https://loja.example/obrigado', product_type: 'digital' });
    const r = await payCard(link.id, { installments: 2 });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.message).toBe('Payment confirmed');
    expect(Object.keys(r.body.data).sort()).toEqual(
      ['amount', 'boleto', 'card', 'failure_code', 'installments', 'paid_at', 'payment_method', 'pix', 'receipt_id', 'redirect_url', 'status', 'total_amount'].sort(),
    );
    expect(r.body.data).toMatchObject({
      status: 'captured',
      payment_method: 'credit_card',
      amount: 5000,
      installments: 2,
      card: { brand: 'visa', last_four: '1111' },
      pix: null,
      failure_code: null,
      redirect_url: 'https://loja.example/obrigado',
    });
    const charge = (await env.call('GET', `/v1/charges/${r.body.data.receipt_id}`)).body.data;
    expect(charge).toMatchObject({
      payment_link_id: link.id,
      submerchant_id: sub.id,
      product_type: 'digital',
      installments: 2,
      customer: { name: 'Ana Souza', email: 'ana@example.com', tax_id: CPF, phone: '11987654321', type: 'individual' },
      items: [{ name: 'Camiseta', quantity: 1, unit_price: 5000, tangible: false }],
    });
    const rs = await env.rt.deps.db.all<{ wallet_id: string }>('SELECT wallet_id FROM receivables WHERE charge_id = ?', [charge.id]);
    expect(rs.map((x) => x.wallet_id)).toEqual([sub.wallet_id, sub.wallet_id]);
    const l = await linkOf(link.id);
    expect(l.current_uses).toBe(1);
    const ev = await env.rt.deps.db.all<{ type: string }>('SELECT type FROM events WHERE charge_id = ? ORDER BY created_at, id', [charge.id]);
    expect(ev.map((e) => e.type)).toContain('payment_link.paid');
  });

  it('a declined card is an answer, not an error: failed with its code, no use counted, no redirect', async () => {
    const link = await createLink({ redirect_url: 'https://loja.example/obrigado' });
    const r = await payCard(link.id, {}, '4000000000000002');
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ status: 'failed', failure_code: 'card_declined', redirect_url: null, paid_at: null });
    expect((await linkOf(link.id)).current_uses).toBe(0);
    const ev = await env.rt.deps.db.all('SELECT type FROM events WHERE type = ?', ['payment_link.paid']);
    expect(ev).toEqual([]);
  });

  it('is idempotent per attempt: the same attempt replays, another body with it is a 409, a new attempt is a new charge', async () => {
    const link = await createLink();
    const token = await tokenize(env, '4000000000000002');
    const body = { attempt_id: 'a1b2c3d4-retry', payment_method: 'credit_card', token, customer: buyer };
    const first = await pub('POST', `/checkout/${link.id}/pay`, body);
    const again = await pub('POST', `/checkout/${link.id}/pay`, body);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const other = await pub('POST', `/checkout/${link.id}/pay`, { ...body, installments: 2 });
    expect(other.status).toBe(409);
    expect(other.body.error).toBe('idempotency_conflict');
    const n = await env.rt.deps.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM charges WHERE payment_link_id = ?', [link.id]);
    expect(Number(n!.n)).toBe(1);
    const next = await pub('POST', `/checkout/${link.id}/pay`, { ...body, attempt_id: 'a1b2c3d4-second', token: await tokenize(env) });
    expect(next.body.data.status).toBe('captured');
    expect(next.body.data.receipt_id).not.toBe(first.body.data.receipt_id);
  });

  it('refuses bad input with the field named, before any charge exists', async () => {
    const fixed = await createLink({ allowed_payment_methods: ['credit_card'], max_installments: 2 });
    const open = await createLink({ amount: undefined });
    const token = await tokenize(env);
    const base = { attempt_id: attempt(), payment_method: 'credit_card', token, customer: buyer };
    const cases: Array<[string, Record<string, unknown>, string]> = [
      [fixed.id, { ...base, extra: 1 }, 'extra'],
      [fixed.id, { ...base, attempt_id: 'x' }, 'attempt_id'],
      [fixed.id, { ...base, customer: { ...buyer, tax_id: '111.111.111-11' } }, 'customer.tax_id'],
      [fixed.id, { ...base, customer: { ...buyer, email: 'nope' } }, 'customer.email'],
      [fixed.id, { ...base, customer: { ...buyer, type: 'individual' } }, 'customer.type'],
      [fixed.id, { ...base, installments: 3 }, 'installments'],
      [fixed.id, { ...base, amount: 4999 }, 'amount'],
      [fixed.id, { attempt_id: attempt(), payment_method: 'pix', customer: buyer }, 'payment_method'],
      [fixed.id, { ...base, token: undefined }, 'token'],
      [open.id, { ...base }, 'amount'],
      [open.id, { ...base, amount: 0 }, 'amount'],
    ];
    for (const [id, body, field] of cases) {
      const r = await pub('POST', `/checkout/${id}/pay`, body);
      expect(r.status, `${field}: ${JSON.stringify(r.body)}`).toBe(400);
      expect(r.body.error).toBe('validation_error');
      expect(r.body.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    expect((await pub('POST', `/checkout/${fixed.id}/pay`, 'not json')).status).toBe(400);
    const n = await env.rt.deps.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM charges');
    expect(Number(n!.n)).toBe(0);
  });

  it('refuses to pay a link whose stored amount is above the charge cap, before any charge exists', async () => {
    const link = await createLink({ amount: 1000 });
    // a link stored before the cap applied to links
    await env.rt.deps.db.run('UPDATE payment_links SET amount = ? WHERE id = ?', [5_000_000_000, link.id]);
    for (const r of [await payCard(link.id), await payPix(link.id)]) {
      expect(r.status, JSON.stringify(r.body)).toBe(422);
      expect(r.body.message).toMatch(/1000000000/);
    }
    expect(await env.rt.deps.db.get<any>('SELECT COUNT(*) AS n FROM charges')).toEqual({ n: 0 });
  });

  it('takes the amount the buyer entered on a link without one', async () => {
    const link = await createLink({ amount: undefined });
    const r = await payCard(link.id, { amount: 1234 });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ status: 'captured', amount: 1234 });
  });

  it('refuses a token of another merchant (422 invalid_token), an unknown link (404) and a cross-site request (403)', async () => {
    const link = await createLink();
    const other = await env.newMerchant('Outra Loja');
    const foreign = await tokenize(env, '4111111111111111', other);
    const r = await pub('POST', `/checkout/${link.id}/pay`, { attempt_id: attempt(), payment_method: 'credit_card', token: foreign, customer: buyer });
    expect(r.status).toBe(422);
    expect(r.body.error).toBe('invalid_token');
    expect((await payCard('00000000-0000-4000-8000-000000000000')).status).toBe(404);
    const cross = await pub('POST', `/checkout/${link.id}/pay`, { attempt_id: attempt(), payment_method: 'pix', customer: buyer }, { origin: 'https://evil.example' });
    expect(cross.status).toBe(403);
    const site = await pub('POST', `/checkout/${link.id}/pay`, { attempt_id: attempt(), payment_method: 'pix', customer: buyer }, { 'sec-fetch-site': 'cross-site' });
    expect(site.status).toBe(403);
    const same = await pub('POST', `/checkout/${link.id}/pay`, { attempt_id: attempt(), payment_method: 'pix', customer: buyer }, { origin: 'http://localhost' });
    expect(same.status).toBe(201);
    expect(same.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('accepts no payment on an inactive, expired or exhausted link (422 with the link state)', async () => {
    const off = await createLink();
    await env.call('PATCH', `/v1/payment-links/${off.id}`, { status: 'inactive' });
    const expiring = await createLink({ expires_at: new Date(env.clock.now().getTime() + hour).toISOString() });
    const single = await createLink({ max_uses: 1 });
    expect((await payCard(single.id)).status).toBe(201);
    env.clock.advance(2 * hour);
    expect((await payCard(off.id)).body.error).toBe('link_inactive');
    expect((await payCard(expiring.id)).body.error).toBe('link_expired');
    const ex = await payCard(single.id);
    expect(ex.status).toBe(422);
    expect(ex.body.error).toBe('link_exhausted');
    expect((await linkOf(single.id)).current_uses).toBe(1);
  });

  it('is rate-limited per client IP and per link (429 with Retry-After); a limited request uses no attempt', async () => {
    env = await reopen(env, {
      checkoutRateLimit: {
        payPerIp: { perSecond: 0.001, burst: 3 },
        payPerLink: { perSecond: 0.001, burst: 100 },
        pollPerIp: { perSecond: 0.001, burst: 100 },
      },
    });
    const link = await createLink();
    for (let i = 0; i < 3; i++) expect((await payPix(link.id)).status).toBe(201);
    const limited = await payPix(link.id, { attempt_id: 'limited-attempt' });
    expect(limited.status).toBe(429);
    expect(limited.body.error).toBe('rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    const rows = await env.rt.deps.db.get<{ n: number }>("SELECT COUNT(*) AS n FROM idempotency_keys WHERE key LIKE '%limited-attempt'");
    expect(Number(rows!.n)).toBe(0);
  });

  it('limits the payments of one link across addresses', async () => {
    env = await reopen(env, {
      checkoutRateLimit: {
        payPerIp: { perSecond: 0.001, burst: 100 },
        payPerLink: { perSecond: 0.001, burst: 2 },
        pollPerIp: { perSecond: 0.001, burst: 100 },
      },
    });
    const a = await createLink();
    const b = await createLink();
    expect((await payPix(a.id)).status).toBe(201);
    expect((await payPix(a.id)).status).toBe(201);
    const limited = await payPix(a.id);
    expect(limited.status).toBe(429);
    expect(limited.body.message).toContain('this payment link');
    expect((await payPix(b.id)).status).toBe(201);
  });
});

describe("a link's payment budget", () => {
  /** a PIX payment (or anything else in `extra`) from the client `ip`, behind a trusted proxy */
  const payFrom = (ip: string, linkId: string, extra: Record<string, unknown> = {}) =>
    pub('POST', `/checkout/${linkId}/pay`, { attempt_id: attempt(), payment_method: 'pix', customer: buyer, ...extra }, { 'x-forwarded-for': ip });
  beforeEach(async () => {
    env = await reopen(env, { checkoutRateLimit: DEFAULT_CHECKOUT_RATE_LIMIT, trustProxy: ['127.0.0.1'] });
  });

  it('is not spent by refused requests: 36 invalid payments from 4 addresses, then a new buyer pays', async () => {
    const link = await createLink();
    for (let a = 1; a <= 4; a++) {
      for (let i = 0; i < 9; i++) {
        const r = await payFrom(`198.51.100.${a}`, link.id, { amount: 1 });
        expect(r.status).toBe(400);
        expect(r.body.details[0].field).toBe('amount');
      }
    }
    const fresh = await payFrom('203.0.113.9', link.id);
    expect(fresh.status, JSON.stringify(fresh.body)).toBe(201);
  });

  it('is not spent by a payment the link refuses (a use already held)', async () => {
    env = await reopen(env, { checkoutRateLimit: { ...DEFAULT_CHECKOUT_RATE_LIMIT, payPerLink: { perSecond: 0.001, burst: 3 } } });
    const link = await createLink({ max_uses: 1 });
    expect((await payFrom('198.51.100.1', link.id)).status).toBe(201);
    for (let i = 0; i < 3; i++) expect((await payFrom('198.51.100.1', link.id)).body.error).toBe('conflict');
    env.clock.advance(16 * 60_000); // the held PIX expires
    expect((await payFrom('198.51.100.1', link.id)).status).toBe(201);
  });

  it("strangers who spend it lock themselves out of the link, not a new buyer: per-client budgets come first", async () => {
    env = await reopen(env, { checkoutRateLimit: { ...DEFAULT_CHECKOUT_RATE_LIMIT, payPerIp: { perSecond: 0.001, burst: 10 }, payPerLink: { perSecond: 0.001, burst: 30 } } });
    const link = await createLink();
    const statuses: number[] = [];
    for (let a = 1; a <= 4; a++) for (let i = 0; i < 9; i++) statuses.push((await payFrom(`198.51.100.${a}`, link.id)).status);
    // the link's 30 went to the first three addresses and the fourth's first three payments
    expect(statuses).toEqual([...Array(30).fill(201), ...Array(6).fill(429)]);
    const again = await payFrom('198.51.100.1', link.id);
    expect(again.status).toBe(429);
    expect(again.body.message).toMatch(/this payment link/);
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(0);
    const fresh = await payFrom('203.0.113.9', link.id);
    expect(fresh.status, JSON.stringify(fresh.body)).toBe(201);
    // a buyer new to the link pays by card too
    const card = await pub('POST', `/checkout/${link.id}/pay`, { attempt_id: attempt(), payment_method: 'credit_card', token: await tokenize(env), customer: buyer }, { 'x-forwarded-for': '203.0.113.10' });
    expect(card.status, JSON.stringify(card.body)).toBe(201);
  });

  it('counts an IPv6 client by its /64 for pay and for status polls', async () => {
    env = await reopen(env, { checkoutRateLimit: { payPerIp: { perSecond: 0.001, burst: 3 }, payPerLink: { perSecond: 100, burst: 100 }, pollPerIp: { perSecond: 0.001, burst: 3 } } });
    const link = await createLink();
    const pays: number[] = [];
    let receipt = '';
    for (let i = 1; i <= 5; i++) {
      const r = await payFrom(`2001:db8:42:7::${i}`, link.id);
      pays.push(r.status);
      if (r.status === 201) receipt = r.body.data.receipt_id;
    }
    expect(pays).toEqual([201, 201, 201, 429, 429]);
    expect((await payFrom('2001:db8:42:8::1', link.id)).status).toBe(201);
    const polls: number[] = [];
    for (let i = 1; i <= 5; i++) polls.push((await pub('GET', `/checkout/${link.id}/charges/${receipt}`, undefined, { 'x-forwarded-for': `2001:db8:42:7:${i}::1` })).status);
    expect(polls).toEqual([200, 200, 200, 429, 429]);
    expect((await pub('GET', `/checkout/${link.id}/charges/${receipt}`, undefined, { 'x-forwarded-for': '2001:db8:42:9::1' })).status).toBe(200);
  });
});

describe('PIX and the status endpoint', () => {
  it('returns the BR Code and a PNG QR code; the status goes pending → captured when the sandbox pays; only paid uses count', async () => {
    const link = await createLink({ redirect_url: 'https://loja.example/obrigado' });
    const r = await payPix(link.id);
    expect(r.status).toBe(201);
    const p = r.body.data;
    expect(p).toMatchObject({ status: 'pending', payment_method: 'pix', installments: 1, redirect_url: null });
    expect(p.pix.qr_code).toMatch(/^000201/);
    expect(p.pix.qr_code_image).toMatch(/^data:image\/png;base64,[A-Za-z0-9+/]+=*$/);
    const png = Buffer.from(p.pix.qr_code_image.split(',')[1], 'base64');
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect(new Date(p.pix.expires_at).getTime() - env.clock.now().getTime()).toBe(900_000);
    expect((await linkOf(link.id)).current_uses).toBe(0);

    const s1 = await pub('GET', `/checkout/${link.id}/charges/${p.receipt_id}`);
    expect(s1.status).toBe(200);
    expect(s1.body.data).toEqual({ receipt_id: p.receipt_id, status: 'pending', failure_code: null, paid_at: null, redirect_url: null });
    expect((await env.call('POST', `/v1/sandbox/charges/${p.receipt_id}/pay`)).status).toBe(200);
    const s2 = await pub('GET', `/checkout/${link.id}/charges/${p.receipt_id}`);
    expect(s2.body.data).toMatchObject({ status: 'captured', redirect_url: 'https://loja.example/obrigado' });
    expect(s2.body.data.paid_at).toBe(env.clock.now().toISOString());
    const l = await linkOf(link.id);
    expect(l.current_uses).toBe(1);
    const ev = await env.rt.deps.db.all<{ type: string }>('SELECT type FROM events WHERE charge_id = ?', [p.receipt_id]);
    expect(ev.map((e) => e.type)).toEqual(expect.arrayContaining(['charge.captured', 'payment_link.paid']));
  });

  it('answers 404 for a charge of another link or one made without a link', async () => {
    const a = await createLink();
    const b = await createLink();
    const p = (await payPix(a.id)).body.data;
    expect((await pub('GET', `/checkout/${b.id}/charges/${p.receipt_id}`)).status).toBe(404);
    const direct = await env.call('POST', '/v1/charges', {
      amount: 100,
      product_type: 'digital',
      customer: { ...buyer, tax_id: CPF, type: 'individual' },
      items: [{ name: 'x', quantity: 1, unit_price: 100, tangible: false }],
      payment_method: 'pix',
    });
    expect((await pub('GET', `/checkout/${a.id}/charges/${direct.body.data.id}`)).status).toBe(404);
    expect(direct.body.data.payment_link_id).toBeNull();
  });

  it('reports an unpaid PIX past its expiry as failed (pix_expired)', async () => {
    const link = await createLink();
    const p = (await payPix(link.id)).body.data;
    env.clock.advance(16 * 60_000);
    const s = await pub('GET', `/checkout/${link.id}/charges/${p.receipt_id}`);
    expect(s.body.data).toMatchObject({ status: 'failed', failure_code: 'pix_expired' });
  });
});

describe('boleto at the checkout', () => {
  const address = { street: 'Av. Paulista', number: '1000', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP', zip_code: '01310-100' };
  const payBoleto = (linkId: string, extra: Record<string, unknown> = {}, customer: Record<string, unknown> = { ...buyer, address }) =>
    pub('POST', `/checkout/${linkId}/pay`, { attempt_id: attempt(), payment_method: 'boleto', customer, ...extra });

  it('the page offers boleto and asks for the address; the payment answers the slip, due in 3 days and payable until then', async () => {
    const link = await createLink({ allowed_payment_methods: ['boleto', 'pix'], max_installments: 1 });
    const html = (await page(`/checkout/${link.id}`)).html;
    expect(html).toContain('value="boleto"');
    expect(html).toContain('id="addr-zip"');
    expect(html).toContain('id="boleto-panel"');
    // PIX first, whatever the order the link lists them in
    expect(html.indexOf('value="pix" checked')).toBeGreaterThan(0);
    const r = await payBoleto(link.id);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.message).toBe('Boleto created; waiting for payment');
    const p = r.body.data;
    expect(p).toMatchObject({ status: 'pending', payment_method: 'boleto', amount: 5000, pix: null, card: null });
    expect(p.boleto).toMatchObject({ due_date: '2026-01-18' });
    expect(p.boleto.digitable_line).toMatch(/^\d{47}$/);
    expect(p.boleto.url).toMatch(new RegExp(`/boleto/${p.receipt_id}$`));
    // due Sunday the 18th, not payable after: through Monday the 19th
    expect(p.boleto.expires_at).toBe('2026-01-20T03:00:00.000Z');
    const charge = (await env.call('GET', `/v1/charges/${p.receipt_id}`)).body.data;
    expect(charge).toMatchObject({ payment_link_id: link.id, customer: { address: { ...address, zip_code: '01310100' } }, due: { pay_until_days: 0 } });
    // paid through the sandbox: the status endpoint says so and the use is counted
    expect((await env.call('POST', `/v1/sandbox/charges/${p.receipt_id}/pay`, {})).status).toBe(200);
    expect((await pub('GET', `/checkout/${link.id}/charges/${p.receipt_id}`)).body.data.status).toBe('captured');
    expect((await linkOf(link.id)).current_uses).toBe(1);
  });

  it('the address the buyer typed is named when it is wrong or missing; a link without boleto refuses it', async () => {
    const link = await createLink({ allowed_payment_methods: ['boleto'], max_installments: 1 });
    const missing = await payBoleto(link.id, {}, buyer);
    expect(missing.status).toBe(400);
    expect(missing.body.details.map((d: { field: string }) => d.field)).toEqual(['customer.address']);
    const bad = await payBoleto(link.id, {}, { ...buyer, address: { ...address, zip_code: '123' } });
    expect(bad.body.details.map((d: { field: string }) => d.field)).toEqual(['customer.address.zip_code']);
    const noBoleto = await createLink();
    const refused = await payBoleto(noBoleto.id);
    expect(refused.status).toBe(400);
    expect(refused.body.details[0]).toMatchObject({ field: 'payment_method', message: 'this payment link accepts: credit_card, pix' });
  });

  it('a boleto must be of more than its fee: the link (400 on amount) and an open amount at the checkout', async () => {
    const r = await env.call('POST', '/v1/payment-links', { title: 'x', product_type: 'digital', allowed_payment_methods: ['boleto'], amount: 349 });
    expect(r.status).toBe(400);
    expect(r.body.details[0].field).toBe('amount');
    const open = await createLink({ allowed_payment_methods: ['boleto'], max_installments: 1, amount: undefined });
    const small = await payBoleto(open.id, { amount: 300 });
    expect(small.status).toBe(400);
    expect(small.body.details[0]).toMatchObject({ field: 'amount' });
    expect((await payBoleto(open.id, { amount: 350 })).status).toBe(201);
  });

  it('a pending boleto holds a use of the link until its last payable day', async () => {
    const link = await createLink({ allowed_payment_methods: ['boleto', 'pix'], max_installments: 1, max_uses: 1 });
    const p = (await payBoleto(link.id)).body.data;
    const other = await payPix(link.id);
    expect(other.status).toBe(409);
    await env.call('POST', `/v1/sandbox/charges/${p.receipt_id}/expire`);
    expect((await payPix(link.id)).status).toBe(201);
  });
});

describe('max_uses under concurrency', () => {
  it('two buyers paying the last use at once: one is captured, the other refused before any charge; never more uses than max_uses', async () => {
    const link = await createLink({ max_uses: 1 });
    const [t1, t2] = [await tokenize(env), await tokenize(env, '5555555555554444')];
    const results = await Promise.all(
      [t1, t2].map((token) => pub('POST', `/checkout/${link.id}/pay`, { attempt_id: attempt(), payment_method: 'credit_card', token, customer: buyer })),
    );
    const ok = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status !== 201);
    expect(ok).toHaveLength(1);
    expect(ok[0]!.body.data.status).toBe('captured');
    expect(refused).toHaveLength(1);
    expect([409, 422]).toContain(refused[0]!.status);
    expect(['conflict', 'link_exhausted']).toContain(refused[0]!.body.error);
    const l = await linkOf(link.id);
    expect(l).toMatchObject({ current_uses: 1, status: 'exhausted' });
    const n = await env.rt.deps.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM charges WHERE payment_link_id = ?', [link.id]);
    expect(Number(n!.n)).toBe(1);
  });

  it('a pending PIX holds the last use: a card payer gets 409 with Retry-After until the PIX expires, then pays', async () => {
    const link = await createLink({ max_uses: 2 });
    expect((await payCard(link.id)).body.data.status).toBe('captured');
    const pix = (await payPix(link.id)).body.data;
    const blocked = await payCard(link.id);
    expect(blocked.status).toBe(409);
    expect(blocked.body.error).toBe('conflict');
    expect(blocked.headers.get('retry-after')).toBe('60');
    // the PIX expiry frees the use it held
    env.clock.advance(16 * 60_000);
    const paid = await payCard(link.id);
    expect(paid.body.data.status).toBe('captured');
    expect(await linkOf(link.id)).toMatchObject({ current_uses: 2, status: 'exhausted' });
    // the expired PIX can no longer be paid, so the link never goes past max_uses
    const late = await env.call('POST', `/v1/sandbox/charges/${pix.receipt_id}/pay`);
    expect(late.status).toBeGreaterThanOrEqual(400);
    expect((await linkOf(link.id)).current_uses).toBe(2);
  });

  it('a declined card does not hold a use', async () => {
    const link = await createLink({ max_uses: 1 });
    expect((await payCard(link.id, {}, '4000000000000002')).body.data.status).toBe('failed');
    expect((await payCard(link.id)).body.data.status).toBe('captured');
  });

  it('many concurrent payers on a link with 3 uses left: exactly 3 are captured', async () => {
    const link = await createLink({ max_uses: 3 });
    const tokens = await Promise.all(['4111111111111111', '5555555555554444', '6362970000457013', '378282246310005', '4012888888881881', '5105105105105100'].map((n) => tokenize(env, n)));
    const results = await Promise.all(
      tokens.map((token) => pub('POST', `/checkout/${link.id}/pay`, { attempt_id: attempt(), payment_method: 'credit_card', token, customer: buyer })),
    );
    expect(results.filter((r) => r.status === 201 && r.body.data.status === 'captured')).toHaveLength(3);
    expect(await linkOf(link.id)).toMatchObject({ current_uses: 3, status: 'exhausted' });
  });
});
