/**
 * GET /boleto/{id}: the printable slip, public like the checkout. Its HTML carries the slip's
 * data escaped, under a CSP with a nonce; every id that is not a boleto's gets the same 404 page;
 * a paid boleto and an expired one get their state pages.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { chargeBody } from '../helpers/money.js';

let env: TestEnv;
beforeEach(async () => {
  env = await testEnv();
});
afterEach(async () => env.close());

const payer = { street: 'Rua <b>Augusta</b>', number: '500', complement: 'ap 12', neighborhood: 'Consolação', city: 'São Paulo', state: 'SP', zip_code: '01305000' };

async function boleto(details: Record<string, unknown> = {}, customer: Record<string, unknown> = {}) {
  const base = chargeBody(12345) as { customer: Record<string, unknown> };
  const r = await env.call('POST', '/v1/charges', {
    ...base,
    customer: { ...base.customer, name: 'Ana "Souza" & Filhos', address: payer, ...customer },
    payment_method: 'boleto',
    payment_details: { due_date: '2026-01-25', fine: 200, interest: 100, discount: { amount: 345, until: '2026-01-20' }, instructions: 'Pedido <42>\nObrigado!', ...details },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data;
}

/** The page without its per-response nonce. */
const page = async (path: string) => {
  const res = await env.rt.app.request(path);
  const html = await res.text();
  return { status: res.status, html, headers: res.headers, stable: html.replace(/nonce="[^"]+"/g, 'nonce=""') };
};

describe('GET /boleto/{id}', () => {
  it('shows the slip in pt-BR: line, bank 999-7, due date, amounts, instructions, payer, the barcode as SVG', async () => {
    const c = await boleto();
    const p = await page(`/boleto/${c.id}`);
    expect(p.status).toBe(200);
    expect(p.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(p.headers.get('content-security-policy')).toMatch(/script-src 'nonce-[^']+'/);
    expect(p.headers.get('cache-control')).toBe('no-store');
    expect(p.html).toContain('<html lang="pt-BR">');
    expect(p.html).toContain(c.boleto.formatted_line);
    expect(p.html).toContain(`data-digits="${c.boleto.digitable_line}"`);
    expect(p.html).toContain('999-7');
    expect(p.html).toContain('25/01/2026');
    expect(p.html).toContain('R$ 123,45');
    expect(p.html).toContain('Até 20/01/2026, conceder desconto de R$ 3,45.');
    expect(p.html).toContain('Após o vencimento, cobrar multa de 2,00%.');
    expect(p.html).toContain('cobrar juros de 1,00% ao mês');
    expect(p.html).toContain('Não receber após 23/02/2026.');
    expect(p.html).toContain('Pedido &#60;42&#62;');
    expect(p.html).toContain('Ana &#34;Souza&#34; &#38; Filhos — CPF 529.982.247-25');
    expect(p.html).toContain('Rua &#60;b&#62;Augusta&#60;/b&#62;, 500, ap 12 — Consolação');
    expect(p.html).toContain('São Paulo/SP — CEP 01305-000');
    expect(p.html).not.toContain('<b>Augusta');
    expect(p.html).toContain(`aria-label="${c.boleto.barcode}"`);
    expect(p.html).toContain('@page{size:A4');
    expect(p.html).toContain('Ambiente de testes (sandbox)');
  });

  it('shows what is due today when it differs from the amount (the discount now, fine and interest when late)', async () => {
    const c = await boleto();
    expect((await page(`/boleto/${c.id}`)).html).toContain('Valor a pagar hoje (15/01/2026): <strong>R$ 120,00</strong>');
    await env.call('POST', '/v1/sandbox/clock/advance', { days: 21 });
    // 10 days after Monday the 26th: 12345 + fine 246 + interest ⌊12345 × 0.003333⌋ = 41
    expect((await page(`/boleto/${c.id}`)).html).toContain('Valor a pagar hoje (05/02/2026): <strong>R$ 126,32</strong>');
  });

  it('every id that is not a boleto gets the same 404 page', async () => {
    const pix = (await env.call('POST', '/v1/charges', chargeBody(1000, { payment_method: 'pix' }))).body.data;
    const link = (await env.call('POST', '/v1/payment-links', { title: 'x', product_type: 'digital', allowed_payment_methods: ['pix'] })).body.data;
    const ids = [pix.id, link.id, env.merchant.merchant_id, env.merchant.wallet_id, '0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f', 'not-a-uuid', `${pix.id}x`];
    const pages = await Promise.all(ids.map((id) => page(`/boleto/${id}`)));
    for (const p of pages) {
      expect(p.status).toBe(404);
      expect(p.stable).toBe(pages[0]!.stable);
    }
    expect(pages[0]!.html).toContain('Boleto não encontrado');
  });

  it("another merchant's boleto is served by its id alone (the id is the capability), as the checkout serves a link", async () => {
    const other = await env.newMerchant('Outra Loja');
    const base = chargeBody(5000) as { customer: Record<string, unknown> };
    const r = await env.call(
      'POST',
      '/v1/charges',
      { ...base, customer: { ...base.customer, address: payer }, payment_method: 'boleto', payment_details: { due_date: '2026-01-25' } },
      { authorization: env.auth(other) },
    );
    const p = await page(`/boleto/${r.body.data.id}`);
    expect(p.status).toBe(200);
    expect(p.html).toContain('Outra Loja');
  });

  it('a paid boleto says so (no line to pay again); an expired one is 410', async () => {
    const paid = await boleto();
    await env.call('POST', `/v1/sandbox/charges/${paid.id}/pay`, {});
    const p = await page(`/boleto/${paid.id}`);
    expect(p.status).toBe(200);
    expect(p.html).toContain('Este boleto já foi pago');
    expect(p.html).toContain('15/01/2026');
    expect(p.html).not.toContain(paid.boleto.formatted_line);
    const gone = await boleto({ pay_until_days: 0 });
    await env.call('POST', `/v1/sandbox/charges/${gone.id}/expire`);
    const e = await page(`/boleto/${gone.id}`);
    expect(e.status).toBe(410);
    expect(e.html).toContain('venceu');
    expect(e.html).not.toContain(gone.boleto.formatted_line);
  });
});
