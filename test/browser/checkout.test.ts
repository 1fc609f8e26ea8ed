/**
 * The hosted checkout in real headless Chromium against the app served over HTTP by listen():
 * card approved and declined, PIX paid through the sandbox while the page waits, expired and
 * exhausted links, a buyer-entered amount, the redirect to redirect_url. Screenshots at
 * desktop and phone widths go to test-artifacts/.
 */
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { listen, type RunningServer } from '../../src/server/http.js';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { artifactPath, CHROMIUM, CHROMIUM_ARGS, DESKTOP, HAVE_CHROMIUM, IN_CI, merchantSite, PHONE } from '../helpers/browser.js';
import { addSubmerchant } from '../helpers/money.js';
import { setMerchantPricing } from '../../src/server/services/pricing.js';

if (!HAVE_CHROMIUM && !IN_CI) {
  console.warn(`[checkout browser tests] skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set MPAY_CHROMIUM)`);
}

describe.runIf(!HAVE_CHROMIUM && IN_CI)('checkout in Chromium (CI)', () => {
  it('has Chromium installed', () => {
    throw new Error(`CI is set but there is no Chromium at ${CHROMIUM}: .ci/run must apt-get install chromium`);
  });
});

describe.skipIf(!HAVE_CHROMIUM)('hosted checkout in headless Chromium', () => {
  let env: TestEnv;
  let server: RunningServer;
  let browser: Browser;
  let site: Awaited<ReturnType<typeof merchantSite>>;
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    // a free port first: the runtime's public origin is the server's, fixed when it is built
    const port = await new Promise<number>((resolve, reject) => {
      const probe = createServer();
      probe.once('error', reject);
      probe.listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    // several payments come from 127.0.0.1 in a few seconds; the limits have their own tests
    env = await testEnv({ checkoutRateLimit: null, publicBaseUrl: `http://127.0.0.1:${port}` });
    server = await listen(env.rt, '127.0.0.1', port);
    site = await merchantSite();
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await site?.close();
    await env?.close();
  });

  const createLink = async (over: Record<string, unknown> = {}) => {
    const r = await env.call('POST', '/v1/payment-links', {
      title: 'Camiseta Azul Algodão',
      description: 'Camiseta 100% algodão, tamanho M. Entrega em até 5 dias úteis.',
      product_type: 'physical',
      allowed_payment_methods: ['credit_card', 'pix'],
      amount: 7990,
      max_installments: 3,
      primary_color: '#7C3AED',
      summary_color: '#F5F3FF',
      logo_url: `${site.url}/logo.png`,
      ...over,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body.data as { id: string; checkout_url: string };
  };

  async function open(url: string, viewport = DESKTOP): Promise<{ ctx: BrowserContext; page: Page }> {
    const ctx = await browser.newContext({ viewport, locale: 'pt-BR', timezoneId: 'America/Sao_Paulo', ignoreHTTPSErrors: true });
    const page = await ctx.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(`${url}: ${m.text()} (${m.location().url})`);
    });
    page.on('pageerror', (e) => consoleErrors.push(`${url}: ${e.message}`));
    await page.goto(url);
    return { ctx, page };
  }

  async function fillBuyer(page: Page): Promise<void> {
    await page.getByLabel('Nome completo').fill('Ana Souza');
    await page.getByLabel('E-mail').fill('ana@example.com');
    await page.getByLabel('CPF').fill('529.982.247-25');
    await page.getByLabel('Celular com DDD').fill('(11) 98765-4321');
  }

  async function fillCard(page: Page, number: string): Promise<void> {
    await page.getByLabel('Número do cartão').pressSequentially(number);
    await page.getByLabel('Nome impresso no cartão').fill('ANA SOUZA');
    await page.getByLabel('Validade').pressSequentially('1230');
    await page.getByLabel('Código de segurança (CVV)').fill('123');
  }

  const shot = (page: Page, name: string) => page.screenshot({ path: artifactPath(`checkout-${name}.png`), fullPage: true });

  const linkRecord = async (id: string) => (await env.call('GET', `/v1/payment-links/${id}`)).body.data;
  const chargesOf = (id: string) =>
    env.rt.deps.db.all<{ id: string; status: string; submerchant_id: string | null; installments: number; product_type: string; items: string }>(
      'SELECT id, status, submerchant_id, installments, product_type, items FROM charges WHERE payment_link_id = ? ORDER BY created_at',
      [id],
    );

  it('pays by card (approved) with installments and the submerchant split; shows the receipt', async () => {
    const sub = await addSubmerchant(env);
    const link = await createLink({ submerchant_id: sub.id });
    for (const [vp, name] of [
      [PHONE, 'phone'],
      [DESKTOP, 'desktop'],
    ] as const) {
      const { ctx, page } = await open(link.checkout_url, vp);
      expect(await page.locator('h1').textContent()).toBe('Camiseta Azul Algodão');
      expect(await page.locator('#total-value').textContent()).toBe('R$ 79,90');
      // the merchant's logo loaded from its own origin (allowed by the CSP)
      expect(await page.locator('img.logo').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBeGreaterThan(0);
      if (name === 'phone') {
        await shot(page, `card-form-${name}`);
        await ctx.close();
        continue;
      }
      await fillBuyer(page);
      await page.getByLabel('Número do cartão').pressSequentially('4111111111111111');
      expect(await page.locator('#card-brand').textContent()).toBe('Visa');
      expect(await page.getByLabel('Número do cartão').inputValue()).toBe('4111 1111 1111 1111');
      await page.getByLabel('Nome impresso no cartão').fill('ANA SOUZA');
      await page.getByLabel('Validade').pressSequentially('1230');
      expect(await page.getByLabel('Validade').inputValue()).toBe('12/30');
      await page.getByLabel('Código de segurança (CVV)').fill('123');
      await page.getByLabel('Parcelas').selectOption('3');
      await shot(page, `card-form-${name}`);
      await page.getByRole('button', { name: 'Pagar R$ 79,90' }).click();
      await page.locator('#receipt').waitFor({ state: 'visible' });
      expect(await page.locator('#receipt-title').textContent()).toBe('Pagamento confirmado');
      expect(await page.locator('#receipt-method').textContent()).toContain('Visa final 1111');
      await shot(page, `card-receipt-${name}`);
      const receiptId = await page.locator('#receipt-id').textContent();
      const [c] = await chargesOf(link.id);
      expect(c).toMatchObject({ id: receiptId, status: 'captured', submerchant_id: sub.id, installments: 3, product_type: 'physical' });
      expect(JSON.parse(c!.items)).toEqual([{ name: 'Camiseta Azul Algodão', quantity: 1, unit_price: 7990, tangible: true }]);
      expect((await linkRecord(link.id)).current_uses).toBe(1);
      await ctx.close();
    }
  });

  it('shows a declined card (4000000000000002) accessibly and lets the buyer pay with another card', async () => {
    const link = await createLink();
    const { ctx, page } = await open(link.checkout_url);
    await fillBuyer(page);
    await fillCard(page, '4000000000000002');
    await page.getByRole('button', { name: 'Pagar R$ 79,90' }).click();
    const alert = page.getByRole('alert');
    await expect.poll(() => alert.textContent()).toContain('recusado');
    expect(await page.locator('#receipt').isHidden()).toBe(true);
    await shot(page, 'card-declined-desktop');
    expect((await linkRecord(link.id)).current_uses).toBe(0);
    // the same form with another card is a new attempt and goes through
    await page.getByLabel('Número do cartão').fill('');
    await page.getByLabel('Número do cartão').pressSequentially('5555555555554444');
    expect(await page.locator('#card-brand').textContent()).toBe('Mastercard');
    await page.getByRole('button', { name: 'Pagar R$ 79,90' }).click();
    await page.locator('#receipt').waitFor({ state: 'visible' });
    expect((await chargesOf(link.id)).map((c) => c.status).sort()).toEqual(['captured', 'failed']);
    expect((await linkRecord(link.id)).current_uses).toBe(1);
    await ctx.close();
  });

  it('validates fields in the page before anything is sent: Luhn, expiry, CPF, with focus on the first error', async () => {
    const link = await createLink();
    const { ctx, page } = await open(link.checkout_url, PHONE);
    await page.getByLabel('Número do cartão').pressSequentially('4111111111111112');
    await page.getByLabel('Validade').pressSequentially('0120');
    await page.getByLabel('CPF').fill('111.111.111-11');
    await page.getByRole('button', { name: 'Pagar R$ 79,90' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/Confira os \d+ campos destacados/);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('buyer-name');
    expect(await page.getByLabel('Número do cartão').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#card-number-error').textContent()).toContain('inválido');
    expect(await page.locator('#card-expiry-error').textContent()).toContain('vencido');
    expect(await page.locator('#buyer-tax-id-error').textContent()).toContain('CPF');
    await shot(page, 'validation-phone');
    expect(await chargesOf(link.id)).toEqual([]);
    await ctx.close();
  });

  it('pays by PIX: QR code and copia e cola, the page updates when the sandbox pays it', async () => {
    const link = await createLink({ max_installments: 1 });
    for (const [vp, name] of [
      [PHONE, 'phone'],
      [DESKTOP, 'desktop'],
    ] as const) {
      const { ctx, page } = await open(link.checkout_url, vp);
      await ctx.grantPermissions(['clipboard-read', 'clipboard-write']);
      await fillBuyer(page);
      await page.getByRole('radio', { name: 'PIX' }).check();
      expect(await page.locator('#card-fields').isHidden()).toBe(true);
      await page.getByRole('button', { name: 'Gerar PIX de R$ 79,90' }).click();
      await page.locator('#pix-panel').waitFor({ state: 'visible' });
      const code = await page.getByLabel('PIX copia e cola').inputValue();
      expect(code).toMatch(/^000201.*br\.gov\.bcb\.pix.*6304[0-9A-F]{4}$/);
      expect(await page.locator('#pix-qr').evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(100);
      await page.getByRole('button', { name: 'Copiar código PIX' }).click();
      await expect.poll(() => page.locator('#pix-status').textContent()).toContain('copiado');
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(code);
      await shot(page, `pix-waiting-${name}`);
      const charges = await chargesOf(link.id);
      const pending = charges.find((c) => c.status === 'pending')!;
      const paid = await env.call('POST', `/v1/sandbox/charges/${pending.id}/pay`);
      expect(paid.status, JSON.stringify(paid.body)).toBe(200);
      await page.locator('#receipt').waitFor({ state: 'visible', timeout: 10_000 });
      expect(await page.locator('#receipt-id').textContent()).toBe(pending.id);
      expect(await page.locator('#receipt-method').textContent()).toBe('PIX');
      await shot(page, `pix-paid-${name}`);
      await ctx.close();
    }
    expect((await linkRecord(link.id)).current_uses).toBe(2);
    const ev = await env.rt.deps.db.all<{ type: string }>("SELECT type FROM events WHERE type = 'payment_link.paid' AND resource_id = ?", [link.id]);
    expect(ev).toHaveLength(2);
  });

  it('pays by boleto: asks the address, shows the line to copy; the printable slip at 390 px and on one A4 page', async () => {
    const link = await createLink({ allowed_payment_methods: ['pix', 'boleto'], max_installments: 1 });
    const { ctx, page } = await open(link.checkout_url, PHONE);
    await ctx.grantPermissions(['clipboard-read', 'clipboard-write']);
    await fillBuyer(page);
    expect(await page.locator('#boleto-fields').isHidden()).toBe(true);
    await page.getByRole('radio', { name: 'Boleto' }).check();
    // the address is asked, and checked in the page before anything is sent
    await page.getByRole('button', { name: 'Gerar boleto de R$ 79,90' }).click();
    await expect.poll(() => page.locator('#addr-zip-error').textContent()).not.toBe('');
    expect(await chargesOf(link.id)).toEqual([]);
    await page.getByLabel('CEP').fill('01310-100');
    await page.getByLabel('UF').fill('SP');
    await page.getByLabel('Rua').fill('Av. Paulista');
    await page.getByLabel('Número', { exact: true }).fill('1000');
    await page.getByLabel('Bairro').fill('Bela Vista');
    await page.getByLabel('Cidade').fill('São Paulo');
    await page.getByRole('button', { name: 'Gerar boleto de R$ 79,90' }).click();
    await page.locator('#boleto-panel').waitFor({ state: 'visible' });
    const [charge] = await chargesOf(link.id);
    const record = (await env.call('GET', `/v1/charges/${charge!.id}`)).body.data;
    expect(await page.locator('#boleto-line').textContent()).toBe(record.boleto.formatted_line);
    await page.getByRole('button', { name: 'Copiar linha digitável' }).click();
    await expect.poll(() => page.locator('#boleto-status').textContent()).toContain('copiada');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(record.boleto.digitable_line);
    await shot(page, 'boleto-created-phone');
    const href = await page.locator('#boleto-link').getAttribute('href');
    expect(href).toBe(record.boleto.url);
    await ctx.close();

    // the printable slip: pt-BR, the barcode as SVG, fits a 390 px phone without sideways scrolling
    const slip = await open(href!, PHONE);
    await slip.ctx.grantPermissions(['clipboard-read', 'clipboard-write']);
    expect(await slip.page.locator('html').getAttribute('lang')).toBe('pt-BR');
    expect(await slip.page.getByRole('heading', { name: 'Boleto bancário' }).isVisible()).toBe(true);
    expect(await slip.page.locator('svg').count()).toBeGreaterThan(0);
    expect(await slip.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await slip.page.getByRole('button', { name: 'Copiar linha digitável' }).click();
    await expect.poll(() => slip.page.evaluate(() => navigator.clipboard.readText())).toBe(record.boleto.digitable_line);
    await slip.page.screenshot({ path: artifactPath('boleto-slip-390.png'), fullPage: true });
    // printed: one A4 page, the buttons hidden, the barcode's bars as drawn
    await slip.page.emulateMedia({ media: 'print' });
    expect(await slip.page.getByRole('button', { name: 'Imprimir' }).isVisible()).toBe(false);
    const pdf = await slip.page.pdf({ format: 'A4', preferCSSPageSize: true, path: artifactPath('boleto-slip-a4.pdf') });
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    const pages = pdf.toString('latin1').match(/\/Type\s*\/Page[^s]/g) ?? [];
    expect(pages).toHaveLength(1);
    await slip.ctx.close();
  });

  it('lets the buyer enter the amount when the link has none', async () => {
    const link = await createLink({ amount: undefined, title: 'Doação livre', description: 'Contribua com quanto quiser.', max_installments: 2 });
    for (const [vp, name] of [
      [PHONE, 'phone'],
      [DESKTOP, 'desktop'],
    ] as const) {
      const { ctx, page } = await open(link.checkout_url, vp);
      expect(await page.locator('#total-value').textContent()).toBe('Você escolhe o valor');
      await page.getByLabel('Valor a pagar (R$)').fill('1.234,56');
      expect(await page.locator('#total-value').textContent()).toBe('R$ 1.234,56');
      expect(await page.getByLabel('Parcelas').locator('option').nth(1).textContent()).toBe('2x de R$ 617,28 sem juros');
      await fillBuyer(page);
      await fillCard(page, '4111111111111111');
      await shot(page, `buyer-amount-${name}`);
      await page.getByRole('button', { name: 'Pagar R$ 1.234,56' }).click();
      await page.locator('#receipt').waitFor({ state: 'visible' });
      expect(await page.locator('#receipt-amount').textContent()).toBe('R$ 1.234,56');
      await ctx.close();
    }
    const charges = await env.rt.deps.db.all<{ amount: number }>('SELECT amount FROM charges WHERE payment_link_id = ?', [link.id]);
    expect(charges.map((c) => Number(c.amount))).toEqual([123456, 123456]);
  });

  it('shows each option as Brazilian checkouts do when the buyer pays interest, and charges the total', async () => {
    // the link's merchant: 3 installments free, above them its rate (1.99 % a month, the default)
    await setMerchantPricing(env.rt.deps.db, env.rt.deps.pricing, env.merchant.merchant_id, { buyer_interest: { free_installments: 3 } }, env.clock.now());
    try {
      const link = await createLink({ amount: 10_000, max_installments: 12, interest: 'buyer', title: 'Curso de violão' });
      const { ctx, page } = await open(link.checkout_url);
      const options = page.getByLabel('Parcelas').locator('option');
      expect(await options.nth(0).textContent()).toBe('1x de R$ 100,00 (à vista)');
      expect(await options.nth(2).textContent()).toBe('3x sem juros (1ª de R$ 33,34, demais de R$ 33,33)');
      expect(await options.nth(3).textContent()).toBe('4x de R$ 26,26 (total R$ 105,04)');
      expect(await options.nth(11).textContent()).toBe('12x de R$ 9,45 (total R$ 113,40)');
      await fillBuyer(page);
      await fillCard(page, '4111111111111111');
      await page.getByLabel('Parcelas').selectOption('12');
      expect(await page.locator('#total-value').textContent()).toBe('R$ 113,40');
      await shot(page, 'buyer-interest-desktop');
      await page.getByRole('button', { name: 'Pagar R$ 113,40' }).click();
      await page.locator('#receipt').waitFor({ state: 'visible' });
      expect(await page.locator('#receipt-amount').textContent()).toBe('R$ 113,40');
      expect(await page.locator('#receipt-method').textContent()).toContain('12x de R$ 9,45 (total R$ 113,40)');
      const id = await page.locator('#receipt-id').textContent();
      const c = (await env.call('GET', `/v1/charges/${id}`)).body.data;
      expect(c).toMatchObject({ amount: 10_000, installments: 12, total_amount: 11_340, interest_amount: 1_340, pricing: { interest: 'buyer', buyer_monthly_interest_bps: 199 } });
      await ctx.close();
    } finally {
      await setMerchantPricing(env.rt.deps.db, env.rt.deps.pricing, env.merchant.merchant_id, {}, env.clock.now());
    }
  });

  it('works with the keyboard alone: tab order, arrow keys between methods, Enter submits', async () => {
    const link = await createLink();
    const { ctx, page } = await open(link.checkout_url, PHONE);
    const focused = () => page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.id || (document.activeElement as HTMLInputElement | null)?.value);
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('buyer-name');
    await page.keyboard.type('Ana Souza');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('buyer-email');
    await page.keyboard.type('ana@example.com');
    await page.keyboard.press('Tab');
    await page.keyboard.type('52998224725');
    await page.keyboard.press('Tab');
    await page.keyboard.type('11987654321');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('credit_card');
    await page.keyboard.press('ArrowRight');
    expect(await focused()).toBe('pix');
    expect(await page.locator('#card-fields').isHidden()).toBe(true);
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('pay-button');
    // the focus ring is visible on the button
    expect(await page.locator('#pay-button').evaluate((b) => getComputedStyle(b).outlineStyle)).toBe('solid');
    await page.keyboard.press('Enter');
    await page.locator('#pix-panel').waitFor({ state: 'visible' });
    expect(await focused()).toBe('pix-title');
    await ctx.close();
  });

  it('redirects to redirect_url after a confirmed payment', async () => {
    const link = await createLink({ redirect_url: `${site.url}/obrigado?pedido=42` });
    const { ctx, page } = await open(link.checkout_url);
    await fillBuyer(page);
    await fillCard(page, '4111111111111111');
    await Promise.all([page.waitForURL(`${site.url}/obrigado?pedido=42`), page.getByRole('button', { name: 'Pagar R$ 79,90' }).click()]);
    expect(await page.locator('h1').textContent()).toBe('Obrigado pela compra!');
    expect(site.hits).toContain('/obrigado?pedido=42');
    await ctx.close();
  });

  it('shows clear pages for expired, exhausted, inactive and unknown links, with their HTTP status', async () => {
    const soon = new Date(env.clock.now().getTime() + 3600_000).toISOString();
    const expiring = await createLink({ expires_at: soon });
    const single = await createLink({ max_uses: 1 });
    const off = await createLink();
    await env.call('PATCH', `/v1/payment-links/${off.id}`, { status: 'inactive' });

    // the last use is paid in the browser; then the link is exhausted
    {
      const { ctx, page } = await open(single.checkout_url);
      await fillBuyer(page);
      await fillCard(page, '4111111111111111');
      await page.getByRole('button', { name: 'Pagar R$ 79,90' }).click();
      await page.locator('#receipt').waitFor({ state: 'visible' });
      await ctx.close();
    }
    env.clock.advance(2 * 3600_000);
    const cases = [
      [expiring.checkout_url, 410, 'Este link de pagamento expirou', 'expired'],
      [single.checkout_url, 410, 'Este link de pagamento esgotou', 'exhausted'],
      [off.checkout_url, 403, 'Este link de pagamento está desativado', 'inactive'],
      [`${server.url}/checkout/00000000-0000-4000-8000-000000000000`, 404, 'Link de pagamento não encontrado', 'unknown'],
    ] as const;
    for (const [url, status, heading, name] of cases) {
      for (const [vp, w] of [
        [DESKTOP, 'desktop'],
        [PHONE, 'phone'],
      ] as const) {
        const ctx = await browser.newContext({ viewport: vp, locale: 'pt-BR', ignoreHTTPSErrors: true });
        const page = await ctx.newPage();
        const res = await page.goto(url);
        expect(res?.status()).toBe(status);
        expect(await page.locator('h1').textContent()).toBe(heading);
        expect(await page.locator('form').count()).toBe(0);
        if (name === 'expired' || name === 'exhausted' || w === 'desktop') await shot(page, `state-${name}-${w}`);
        await ctx.close();
      }
    }
  }, 120_000); // eight page loads in two viewports plus a payment: slow on a loaded 2-core CI machine

  it('logged no console or CSP errors on any page', () => {
    expect(consoleErrors).toEqual([]);
  });
});
