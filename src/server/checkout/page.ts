/**
 * The hosted checkout page of a payment link, rendered on the server. Every piece of link or
 * merchant data is escaped for where it goes (HTML text, attribute, JSON data block); colors
 * reach CSS only when they are #RRGGBB; the logo only when it is https with a real host
 * (src/domain/urls.ts). The page loads its script and style sheet from mpay itself under a
 * strict Content-Security-Policy with a nonce per response (and Subresource Integrity);
 * nothing comes from another origin except the merchant's logo, whose parsed origin alone is
 * allowed for images.
 */
import { randomBytes } from 'node:crypto';
import { CHECKOUT_BOLETO_DUE_DAYS, type PublicLink } from '../services/checkout.js';
import { CHECKOUT_CSS, CHECKOUT_JS } from './assets.js';
import { formatBRL } from '../../domain/money.js';
import { LINK_PAYMENT_METHODS } from '../../contract/resources/paymentLinks.js';
import { installmentLabel } from './format.js';
import { MERCHANT_PAYS_INTEREST, type InterestTerms } from '../../domain/pricing.js';
import { parseHttpsImageUrl } from '../../domain/urls.js';

/** Escapes text for HTML content and quoted attribute values. */
export function escapeHtml(v: string): string {
  return v.replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** JSON that is safe inside <script type="application/json">: no "<", ">", "&" or line separators in clear. */
export function jsonForScript(v: unknown): string {
  return JSON.stringify(v).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

const HEX = /^#[0-9A-Fa-f]{6}$/;

/** How the page names each payment method. */
const METHOD_NAMES: Record<PublicLink['methods'][number], string> = { credit_card: 'Cartão de crédito', pix: 'PIX', boleto: 'Boleto' };
export const DEFAULT_PRIMARY = '#1A56DB';
export const DEFAULT_SUMMARY = '#F3F4F6';

/** A color for CSS: the value when it is #RRGGBB, else the fallback. */
export function safeColor(v: string | null | undefined, fallback: string): string {
  return v && HEX.test(v) ? v.toUpperCase() : fallback;
}

function luminance(hex: string): number {
  const ch = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * ch[0]! + 0.7152 * ch[1]! + 0.0722 * ch[2]!;
}

export function contrast(a: string, b: string): number {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p) as [number, number];
  return (x + 0.05) / (y + 0.05);
}

/** Dark or white text, whichever reads better on the background. */
export function textOn(bg: string): string {
  return contrast(bg, '#FFFFFF') >= contrast(bg, '#111827') ? '#FFFFFF' : '#111827';
}

export interface Rendered {
  status: number;
  html: string;
  headers: Record<string, string>;
}

/** The headers of a page of the service: its Content-Security-Policy (scripts and styles by `nonce` only) and the rest. */
export function securityHeaders(nonce: string, imgOrigins: string[]): Record<string, string> {
  const csp = [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    `img-src 'self' data:${imgOrigins.map((o) => ' ' + o).join('')}`,
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "require-trusted-types-for 'script'",
    "trusted-types 'none'",
  ].join('; ');
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': csp,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=()',
    'Cache-Control': 'no-store',
  };
}

interface Theme {
  primary: string;
  summary: string;
}

function shell(o: { title: string; nonce: string; theme: Theme; body: string; script?: string }): string {
  const { primary, summary } = o.theme;
  const focus = contrast(primary, '#FFFFFF') >= 3 ? primary : '#111827';
  const vars = `:root{--primary:${primary};--on-primary:${textOn(primary)};--summary:${summary};--on-summary:${textOn(summary)};--focus:${focus}}`;
  const styles = `<link rel="stylesheet" href="/checkout/assets/${CHECKOUT_CSS.name}" integrity="${CHECKOUT_CSS.integrity}" nonce="${o.nonce}">
<style nonce="${o.nonce}">${vars}</style>`;
  return htmlDocument(o.title, styles, `${o.body}\n${o.script ?? ''}`);
}

/** A public page in pt-BR that search engines do not index: `head` is its styles, `body` what follows <body>. */
export function htmlDocument(title: string, head: string, body: string): string {
  return `<!doctype html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:,">
${head}
</head>
<body>
${body}</body>
</html>
`;
}

/** A fresh CSP nonce for one response. */
export const nonceOf = () => randomBytes(18).toString('base64');

export type UnavailableReason = 'not_found' | 'inactive' | 'expired' | 'exhausted' | 'unavailable';

const STATE_TEXT: Record<UnavailableReason, { status: number; heading: string; text: string }> = {
  not_found: { status: 404, heading: 'Link de pagamento não encontrado', text: 'Confira o endereço que você recebeu ou fale com quem enviou o link.' },
  inactive: { status: 403, heading: 'Este link de pagamento está desativado', text: 'O vendedor desativou este link. Nenhum pagamento pode ser feito por ele agora.' },
  expired: { status: 410, heading: 'Este link de pagamento expirou', text: 'O prazo para pagar por este link terminou. Peça um novo link ao vendedor.' },
  exhausted: { status: 410, heading: 'Este link de pagamento esgotou', text: 'Este link já recebeu todos os pagamentos permitidos. Peça um novo link ao vendedor.' },
  unavailable: { status: 503, heading: 'Pagamento indisponível no momento', text: 'Este link não pode receber pagamentos agora. Tente mais tarde ou fale com o vendedor.' },
};

/** The page shown instead of the checkout: unknown, inactive, expired, exhausted or unusable link. */
export function renderStatePage(reason: UnavailableReason, link?: PublicLink): Rendered {
  const nonce = nonceOf();
  const s = STATE_TEXT[reason];
  const theme = { primary: safeColor(link?.row.primary_color, DEFAULT_PRIMARY), summary: safeColor(link?.row.summary_color, DEFAULT_SUMMARY) };
  const about = link
    ? `<p class="state-link"><span class="seller">${escapeHtml(link.sellerName)}</span> · ${escapeHtml(link.row.title)}</p>`
    : '';
  const body = `<main class="state" data-state="${reason}">
<div class="state-card">
${about}<h1>${escapeHtml(s.heading)}</h1>
<p>${escapeHtml(s.text)}</p>
</div>
</main>`;
  const headers = securityHeaders(nonce, []);
  if (reason === 'unavailable') headers['Retry-After'] = '300';
  return { status: s.status, html: shell({ title: `${s.heading} · mpay`, nonce, theme, body }), headers };
}

function field(o: {
  id: string;
  label: string;
  type?: string;
  autocomplete?: string;
  inputmode?: string;
  hint?: string;
  maxlength?: number;
  placeholder?: string;
  extra?: string;
  /** not required (the default is required) */
  optional?: boolean;
}): string {
  const describedBy = [o.hint ? `${o.id}-hint` : '', `${o.id}-error`].filter(Boolean).join(' ');
  return `<div class="field" data-field="${o.id}">
<label for="${o.id}">${escapeHtml(o.label)}</label>${o.hint ? `\n<p class="hint" id="${o.id}-hint">${escapeHtml(o.hint)}</p>` : ''}
<input id="${o.id}" name="${o.id}" type="${o.type ?? 'text'}"${o.autocomplete ? ` autocomplete="${o.autocomplete}"` : ''}${o.inputmode ? ` inputmode="${o.inputmode}"` : ''}${o.maxlength ? ` maxlength="${o.maxlength}"` : ''}${o.placeholder ? ` placeholder="${escapeHtml(o.placeholder)}"` : ''}${o.optional ? '' : ' required'} aria-describedby="${describedBy}"${o.extra ?? ''}>
<p class="field-error" id="${o.id}-error"></p>
</div>`;
}

/** Data the page's script needs; no secret, no merchant internals. */
export interface PageConfig {
  link_id: string;
  public_key: string | null;
  amount: number | null;
  max_installments: number;
  /** who pays the installments' interest, and at what terms: the link's setting over its merchant's pricing */
  interest: InterestTerms;
  methods: PublicLink['methods'];
  tokens_url: string;
  pay_url: string;
  status_url: string;
}

/** The checkout page of a payable link. */
export function renderCheckoutPage(link: PublicLink, opts: { sandbox: boolean }): Rendered {
  const r = link.row;
  // in one order whatever the link's: card first (its fields show at once), then PIX, then boleto
  const methods = LINK_PAYMENT_METHODS.filter((m) => link.methods.includes(m) && (m !== 'credit_card' || link.publicKey));
  if (!methods.length) return renderStatePage('unavailable', link);
  const nonce = nonceOf();
  const theme = { primary: safeColor(r.primary_color, DEFAULT_PRIMARY), summary: safeColor(r.summary_color, DEFAULT_SUMMARY) };
  const amount = r.amount === null ? null : Number(r.amount);
  // a stored logo URL is checked again: the CSP's img-src is built from its parsed origin
  const logo = parseHttpsImageUrl(r.logo_url);
  const card = methods.includes('credit_card');
  const pix = methods.includes('pix');
  const boleto = methods.includes('boleto');
  const maxInst = card ? Math.max(1, Number(r.max_installments)) : 1;
  const seller = escapeHtml(link.sellerName);
  const buyer = r.interest === 'buyer' ? link.pricing.buyer_interest : null;
  const interest: InterestTerms = buyer
    ? { interest: 'buyer', buyer_monthly_interest_bps: buyer.monthly_bps, free_installments: buyer.free_installments }
    : MERCHANT_PAYS_INTEREST;
  const initial = escapeHtml((link.sellerName.trim()[0] ?? 'M').toUpperCase());

  const config: PageConfig = {
    link_id: r.id,
    public_key: card ? link.publicKey : null,
    amount,
    max_installments: maxInst,
    interest,
    methods,
    tokens_url: '/v1/tokens',
    pay_url: `/checkout/${r.id}/pay`,
    status_url: `/checkout/${r.id}/charges/`,
  };

  const amountField =
    amount === null
      ? field({ id: 'amount', label: 'Valor a pagar (R$)', inputmode: 'decimal', autocomplete: 'off', hint: 'Você define o valor. Exemplo: 50,00', maxlength: 20 })
      : '';
  const methodPicker =
    methods.length > 1
      ? `<div class="methods">
${methods.map((m, i) => `<label class="method"><input type="radio" name="method" value="${m}"${i === 0 ? ' checked' : ''}> <span>${METHOD_NAMES[m]}</span></label>`).join('\n')}
</div>`
      : `<input type="hidden" name="method" value="${methods[0]}"><p class="only-method">${METHOD_NAMES[methods[0]!]}</p>`;
  const installmentOptions = Array.from({ length: maxInst }, (_, i) => `<option value="${i + 1}">${escapeHtml(installmentLabel(amount, i + 1, interest))}</option>`).join('');
  const cardFields = card
    ? `<div id="card-fields" class="card-fields">
<div class="field" data-field="card-number">
<label for="card-number">Número do cartão</label>
<div class="with-badge"><input id="card-number" name="card-number" type="text" inputmode="numeric" autocomplete="cc-number" maxlength="23" required aria-describedby="card-brand card-number-error"><span id="card-brand" class="brand-badge" aria-live="polite"></span></div>
<p class="field-error" id="card-number-error"></p>
</div>
${field({ id: 'card-holder', label: 'Nome impresso no cartão', autocomplete: 'cc-name', maxlength: 100 })}
<div class="row">
${field({ id: 'card-expiry', label: 'Validade', hint: 'MM/AA', inputmode: 'numeric', autocomplete: 'cc-exp', maxlength: 7, placeholder: 'MM/AA' })}
${field({ id: 'card-cvv', label: 'Código de segurança (CVV)', hint: '3 ou 4 dígitos', inputmode: 'numeric', autocomplete: 'cc-csc', maxlength: 4 })}
</div>
<div class="field" data-field="installments">
<label for="installments">Parcelas</label>
<select id="installments" name="installments"${maxInst === 1 ? ' disabled' : ''}>${installmentOptions}</select>
</div>
</div>`
    : '';
  const pixInfo = pix
    ? `<p id="pix-info" class="pix-info"${methods[0] !== 'pix' ? ' hidden' : ''}>Ao continuar, mostramos um QR Code e o código PIX copia e cola. A confirmação aparece aqui assim que o pagamento cair.</p>`
    : '';
  const boletoFields = boleto
    ? `<div id="boleto-fields"${methods[0] !== 'boleto' ? ' hidden' : ''}>
<p class="pix-info">O boleto vence em ${CHECKOUT_BOLETO_DUE_DAYS} dias e leva até 1 dia útil para ser compensado depois do pagamento. Para emiti-lo, informe seu endereço.</p>
<div class="row">
${field({ id: 'addr-zip', label: 'CEP', inputmode: 'numeric', autocomplete: 'postal-code', maxlength: 9, hint: 'Ex.: 01310-100' })}
${field({ id: 'addr-state', label: 'UF', autocomplete: 'address-level1', maxlength: 2, hint: 'Ex.: SP' })}
</div>
${field({ id: 'addr-street', label: 'Rua', autocomplete: 'address-line1', maxlength: 200 })}
<div class="row">
${field({ id: 'addr-number', label: 'Número', autocomplete: 'off', maxlength: 20 })}
${field({ id: 'addr-complement', label: 'Complemento (opcional)', autocomplete: 'address-line2', maxlength: 100, optional: true })}
</div>
<div class="row">
${field({ id: 'addr-neighborhood', label: 'Bairro', autocomplete: 'off', maxlength: 100 })}
${field({ id: 'addr-city', label: 'Cidade', autocomplete: 'address-level2', maxlength: 100 })}
</div>
</div>`
    : '';
  const payLabel = amount === null ? 'Pagar' : `Pagar ${formatBRL(amount)}`;

  const body = `<main class="layout">
<section class="summary" aria-labelledby="product-title">
<div class="seller-row">${
    logo
      ? `<img class="logo" src="${escapeHtml(logo.href)}" alt="${seller}" width="56" height="56" referrerpolicy="no-referrer" decoding="async">`
      : `<span class="logo logo-fallback" aria-hidden="true">${initial}</span>`
  }<span class="seller">${seller}</span></div>
<h1 id="product-title">${escapeHtml(r.title)}</h1>
${r.description ? `<p class="description">${escapeHtml(r.description)}</p>\n` : ''}<div class="total"><span class="total-label">Total</span><span class="total-value" id="total-value">${amount === null ? 'Você escolhe o valor' : formatBRL(amount)}</span></div>
${opts.sandbox ? '<p class="sandbox-note">Ambiente de testes (sandbox): nenhum valor real é cobrado.</p>\n' : ''}</section>
<section class="payment" aria-labelledby="payment-title">
<h2 id="payment-title">Pagamento</h2>
<noscript><p class="notice">Ative o JavaScript do navegador para pagar nesta página.</p></noscript>
<form id="checkout-form" novalidate>
${amountField}
<fieldset>
<legend>Seus dados</legend>
${field({ id: 'buyer-name', label: 'Nome completo', autocomplete: 'name', maxlength: 120 })}
${field({ id: 'buyer-email', label: 'E-mail', type: 'email', autocomplete: 'email', maxlength: 254 })}
<div class="row">
${field({ id: 'buyer-tax-id', label: 'CPF', inputmode: 'numeric', autocomplete: 'off', maxlength: 18, hint: 'Ex.: 123.456.789-09' })}
${field({ id: 'buyer-phone', label: 'Celular com DDD', type: 'tel', autocomplete: 'tel', maxlength: 20, hint: 'Ex.: (11) 98765-4321' })}
</div>
</fieldset>
<fieldset>
<legend>Forma de pagamento</legend>
${methodPicker}
${cardFields}
${pixInfo}
${boletoFields}
</fieldset>
<div id="form-error" class="form-error" role="alert" aria-live="assertive"></div>
<button type="submit" id="pay-button" class="pay-button">${escapeHtml(payLabel)}</button>
</form>
<section id="pix-panel" class="pix-panel" hidden aria-labelledby="pix-title">
<h2 id="pix-title" tabindex="-1">Pague com PIX</h2>
<p>Abra o app do seu banco, escolha pagar com PIX e leia o QR Code ou cole o código.</p>
<img id="pix-qr" class="pix-qr" alt="QR Code do PIX" width="264" height="264">
<label for="pix-code">PIX copia e cola</label>
<textarea id="pix-code" class="pix-code" readonly rows="5"></textarea>
<button type="button" id="pix-copy" class="secondary-button">Copiar código PIX</button>
<p id="pix-status" class="pix-status" role="status" aria-live="polite">Aguardando pagamento…</p>
<p id="pix-expiry" class="hint"></p>
<button type="button" id="pix-retry" class="secondary-button" hidden>Gerar novo PIX</button>
</section>
<section id="boleto-panel" class="pix-panel" hidden aria-labelledby="boleto-title">
<h2 id="boleto-title" tabindex="-1">Boleto gerado</h2>
<p id="boleto-summary"></p>
<p class="boleto-label">Linha digitável</p>
<p id="boleto-line" class="mono boleto-line"></p>
<button type="button" id="boleto-copy" class="secondary-button">Copiar linha digitável</button>
<p><a id="boleto-link" class="boleto-link" target="_blank" rel="noopener">Abrir o boleto para imprimir</a></p>
<p id="boleto-status" class="hint" role="status" aria-live="polite">Pague no app ou no site do seu banco até o vencimento. O vendedor recebe a confirmação quando o pagamento for compensado.</p>
</section>
<section id="receipt" class="receipt" hidden aria-labelledby="receipt-title">
<h2 id="receipt-title" tabindex="-1">Pagamento confirmado</h2>
<p id="receipt-redirect" class="hint" hidden>Redirecionando para o site do vendedor…</p>
<dl>
<dt>Valor</dt><dd id="receipt-amount"></dd>
<dt>Forma de pagamento</dt><dd id="receipt-method"></dd>
<dt>Recibo</dt><dd id="receipt-id" class="mono"></dd>
</dl>
<p class="hint">Guarde o número do recibo. O vendedor ${seller} recebeu a confirmação.</p>
</section>
<p class="footer">Pagamento seguro processado por mpay</p>
</section>
</main>`;

  const script = `<script type="application/json" id="checkout-config">${jsonForScript(config)}</script>
<script src="/checkout/assets/${CHECKOUT_JS.name}" integrity="${CHECKOUT_JS.integrity}" nonce="${nonce}" defer></script>
`;
  return {
    status: 200,
    html: shell({ title: `${r.title} · ${link.sellerName}`, nonce, theme, body, script }),
    headers: securityHeaders(nonce, logo ? [logo.origin] : []),
  };
}
