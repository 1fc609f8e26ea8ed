/**
 * The checkout page's script (bundled for the browser by scripts/build.mjs). The card rules
 * are the server's own modules — the BIN table, Luhn, CPF/CNPJ — bundled in, not copies.
 *
 * Flow: validate the form → tokenize the card with POST /v1/tokens and the merchant's public
 * key → POST /checkout/{id}/pay with an attempt id (kept for retries after a network failure,
 * replaced once an answer arrives or the form changes) → receipt, redirect, decline message,
 * the PIX panel, which polls the payment's status until it is paid, or the boleto panel (its
 * digitable line to copy and its printable page; a boleto is paid in days, not while the page
 * is open).
 */
import { cardLengthProblem, cvvLength, detectBrand, type CardBrand } from '../../../domain/brands.js';
import { luhnValid } from '../../../domain/luhn.js';
import { isValidCnpj, isValidCpf } from '../../../domain/taxid.js';
import { UFS } from '../../../domain/brazil.js';
import { formatBRL, parseBRL } from '../../../domain/money.js';
import { installmentLabel, totalFor } from '../format.js';
import type { PageConfig } from '../page.js';

// the page writes this object for the script (src/server/checkout/page.ts); the type is erased
type Config = PageConfig;

type Method = Config['methods'][number];

interface Payment {
  receipt_id: string;
  status: 'pending' | 'captured' | 'failed' | 'refunded' | 'expired';
  payment_method: Method;
  amount: number;
  installments: number;
  total_amount: number;
  card: { brand: CardBrand; last_four: string } | null;
  pix: { qr_code: string; qr_code_image: string; expires_at: string } | null;
  boleto: { digitable_line: string; formatted_line: string; due_date: string; url: string; expires_at: string } | null;
  failure_code: string | null;
  redirect_url: string | null;
}

interface ErrorBody {
  success: false;
  message: string;
  error: string;
  details?: Array<{ field: string; message: string }>;
}

const BRAND_NAMES: Record<CardBrand, string> = {
  visa: 'Visa',
  mastercard: 'Mastercard',
  elo: 'Elo',
  amex: 'American Express',
  hipercard: 'Hipercard',
  diners: 'Diners Club',
  jcb: 'JCB',
  discover: 'Discover',
};

const FAILURES: Record<string, string> = {
  card_declined: 'Pagamento recusado pelo emissor do cartão. Tente outro cartão ou pague com PIX.',
  acquirer_unavailable: 'Pagamento com cartão indisponível no momento. Pague com PIX.',
  insufficient_funds: 'Pagamento recusado: saldo ou limite insuficiente. Tente outro cartão.',
  expired_card: 'Pagamento recusado: o cartão está vencido.',
  invalid_card: 'Pagamento recusado: o número do cartão não é válido.',
  processing_error: 'Não foi possível processar o pagamento. Tente novamente.',
  pix_expired: 'O código PIX expirou antes do pagamento.',
};

/** Server error codes the buyer can act on, in the page's language. */
const ERRORS: Record<string, string> = {
  link_expired: 'Este link de pagamento expirou.',
  link_exhausted: 'Este link de pagamento já recebeu todos os pagamentos permitidos.',
  link_inactive: 'Este link de pagamento foi desativado pelo vendedor.',
  rate_limited: 'Muitas tentativas seguidas. Aguarde um pouco e tente novamente.',
  conflict: 'Outra pessoa está concluindo o último pagamento disponível deste link. Tente novamente em alguns minutos.',
  invalid_token: 'Não foi possível usar este cartão. Confira os dados e tente novamente.',
  business_rule: 'Este link não pode receber pagamentos agora. Fale com o vendedor.',
};

const byId = <T extends HTMLElement = HTMLElement>(id: string): T | null => document.getElementById(id) as T | null;
const digits = (v: string) => v.replace(/\D/g, '');

function readConfig(): Config | null {
  const el = byId('checkout-config');
  if (!el?.textContent) return null;
  return JSON.parse(el.textContent) as Config;
}

function newAttemptId(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}

/** "4111111111111111" → "4111 1111 1111 1111"; Amex and Diners 4-6-5/4. */
function groupCard(d: string, brand: CardBrand | null): string {
  const groups = brand === 'amex' ? [4, 6, 5] : brand === 'diners' && d.length <= 14 ? [4, 6, 4] : [4, 4, 4, 4, 3];
  const out: string[] = [];
  let i = 0;
  for (const g of groups) {
    if (i >= d.length) break;
    out.push(d.slice(i, i + g));
    i += g;
  }
  if (i < d.length) out.push(d.slice(i));
  return out.join(' ');
}

/** Rewrites an input's value keeping the caret after the same number of digits. */
function reformat(input: HTMLInputElement, format: (d: string) => string): void {
  const caret = input.selectionStart ?? input.value.length;
  const before = digits(input.value.slice(0, caret)).length;
  const next = format(digits(input.value));
  if (next === input.value) return;
  input.value = next;
  let pos = 0;
  let seen = 0;
  while (pos < next.length && seen < before) {
    if (/\d/.test(next[pos]!)) seen++;
    pos++;
  }
  if (document.activeElement === input) input.setSelectionRange(pos, pos);
}

function parseExpiry(v: string, now = new Date()): { month: string; year: string } | string {
  const m = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(v);
  if (!m) return 'Informe a validade no formato MM/AA.';
  const month = Number(m[1]);
  const year = m[2]!.length === 2 ? 2000 + Number(m[2]) : Number(m[2]);
  if (month < 1 || month > 12) return 'O mês da validade vai de 01 a 12.';
  const cy = now.getFullYear();
  const cm = now.getMonth() + 1;
  if (year < cy || (year === cy && month < cm)) return 'Este cartão está vencido.';
  if (year > cy + 20) return 'Confira o ano da validade.';
  return { month: String(month).padStart(2, '0'), year: String(year) };
}

function start(cfg: Config): void {
  const form = byId<HTMLFormElement>('checkout-form');
  const payButton = byId<HTMLButtonElement>('pay-button');
  const formError = byId('form-error');
  if (!form || !payButton || !formError) return;

  const input = (id: string) => byId<HTMLInputElement>(id);
  const amountInput = input('amount');
  const cardNumber = input('card-number');
  const cardBrand = byId('card-brand');
  const installments = byId<HTMLSelectElement>('installments');
  const cardFields = byId('card-fields');
  const pixInfo = byId('pix-info');
  const boletoFields = byId('boleto-fields');

  let attempt: string | null = null;
  let busy = false;
  let pollTimer: number | undefined;

  const method = (): Method => {
    const checked = form.querySelector<HTMLInputElement>('input[name="method"]:checked');
    if (checked) return checked.value as Method;
    const only = form.querySelector<HTMLInputElement>('input[name="method"]');
    return (only?.value as Method) ?? 'credit_card';
  };

  const currentAmount = (): number | null => {
    if (cfg.amount !== null) return cfg.amount;
    const v = amountInput ? parseBRL(amountInput.value) : null;
    return v !== null && v >= 1 && v <= 1_000_000_000 ? v : null;
  };

  function setError(id: string, message: string): void {
    const el = input(id) ?? byId(id);
    const err = byId(`${id}-error`);
    if (err) err.textContent = message;
    if (el) el.setAttribute('aria-invalid', message ? 'true' : 'false');
    el?.closest('.field')?.classList.toggle('has-error', Boolean(message));
  }

  function clearErrors(): void {
    form!.querySelectorAll<HTMLElement>('.field-error').forEach((e) => (e.textContent = ''));
    form!.querySelectorAll<HTMLElement>('[aria-invalid="true"]').forEach((e) => e.setAttribute('aria-invalid', 'false'));
    form!.querySelectorAll<HTMLElement>('.has-error').forEach((e) => e.classList.remove('has-error'));
    formError!.textContent = '';
  }

  function refreshAmounts(): void {
    const a = currentAmount();
    const m = method();
    const card = m === 'credit_card';
    // what the buyer pays with the chosen option: by card with buyer interest, the Price table's total
    const due = a === null || !card ? a : totalFor(a, Number(installments?.value ?? '1'), cfg.interest);
    const total = byId('total-value');
    if (total) total.textContent = due === null ? 'Você escolhe o valor' : formatBRL(due);
    if (installments) {
      Array.from(installments.options).forEach((o, i) => (o.textContent = installmentLabel(a, i + 1, cfg.interest)));
    }
    const verb = m === 'pix' ? 'Gerar PIX' : m === 'boleto' ? 'Gerar boleto' : 'Pagar';
    payButton!.textContent = due === null ? verb : card ? `${verb} ${formatBRL(due)}` : `${verb} de ${formatBRL(due)}`;
  }

  function refreshMethod(): void {
    const m = method();
    if (cardFields) cardFields.hidden = m !== 'credit_card';
    if (pixInfo) pixInfo.hidden = m !== 'pix';
    if (boletoFields) boletoFields.hidden = m !== 'boleto';
    refreshAmounts();
  }

  function refreshBrand(): void {
    if (!cardNumber || !cardBrand) return;
    const d = digits(cardNumber.value);
    const brand = d.length >= 1 ? detectBrand(d) : null;
    reformat(cardNumber, (x) => groupCard(x.slice(0, 19), brand));
    const text = brand ? BRAND_NAMES[brand] : '';
    if (cardBrand.textContent !== text) cardBrand.textContent = text;
    cardBrand.dataset.brand = brand ?? '';
    const cvv = input('card-cvv');
    if (cvv) cvv.maxLength = cvvLength(brand ?? 'visa');
  }

  /** Every field's rule; returns the message or '' when fine. */
  const rules: Record<string, () => string> = {
    amount: () => {
      if (!amountInput) return '';
      const v = parseBRL(amountInput.value);
      if (!amountInput.value.trim()) return 'Informe o valor a pagar.';
      if (v === null) return 'Informe um valor como 50,00.';
      if (v < 1) return 'O valor deve ser de pelo menos R$ 0,01.';
      if (v > 1_000_000_000) return 'O valor máximo é R$ 10.000.000,00.';
      return '';
    },
    'buyer-name': () => (input('buyer-name')!.value.trim() ? '' : 'Informe seu nome completo.'),
    'buyer-email': () => (/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(input('buyer-email')!.value.trim()) ? '' : 'Informe um e-mail válido, como nome@exemplo.com.'),
    'buyer-tax-id': () => {
      const d = input('buyer-tax-id')!.value.replace(/[.\-/\s]/g, '').toUpperCase();
      return isValidCpf(d) || isValidCnpj(d) ? '' : 'Informe um CPF válido (11 dígitos).';
    },
    'buyer-phone': () => (/^\+?\d{10,13}$/.test(input('buyer-phone')!.value.replace(/[\s()-]/g, '')) ? '' : 'Informe um celular com DDD, como (11) 98765-4321.'),
    'card-number': () => {
      const d = digits(cardNumber?.value ?? '');
      if (d.length < 13) return 'Informe o número do cartão (13 a 19 dígitos).';
      if (!luhnValid(d)) return 'Número de cartão inválido. Confira os dígitos.';
      const brand = detectBrand(d);
      if (!brand) return 'Bandeira não aceita. Use Visa, Mastercard, Elo, Amex, Hipercard, Diners, JCB ou Discover.';
      if (cardLengthProblem(brand, d)) return `Número incompleto ou longo demais para um cartão ${BRAND_NAMES[brand]}. Confira os dígitos.`;
      return '';
    },
    'card-holder': () => (input('card-holder')!.value.trim() ? '' : 'Informe o nome como está impresso no cartão.'),
    'addr-zip': () => (/^\d{8}$/.test(digits(input('addr-zip')!.value)) && digits(input('addr-zip')!.value) !== '00000000' ? '' : 'Informe um CEP de 8 dígitos, como 01310-100.'),
    'addr-state': () => ((UFS as readonly string[]).includes(input('addr-state')!.value.trim().toUpperCase()) ? '' : 'Informe a sigla do estado, como SP.'),
    'addr-street': () => (input('addr-street')!.value.trim() ? '' : 'Informe a rua.'),
    'addr-number': () => (input('addr-number')!.value.trim() ? '' : 'Informe o número (ou s/n).'),
    'addr-neighborhood': () => (input('addr-neighborhood')!.value.trim() ? '' : 'Informe o bairro.'),
    'addr-city': () => (input('addr-city')!.value.trim() ? '' : 'Informe a cidade.'),
    'card-expiry': () => {
      const r = parseExpiry(input('card-expiry')!.value);
      return typeof r === 'string' ? r : '';
    },
    'card-cvv': () => {
      const d = input('card-cvv')!.value;
      const brand = detectBrand(digits(cardNumber?.value ?? ''));
      const amex = brand === 'amex';
      if (!/^\d+$/.test(d)) return 'Informe o código de segurança.';
      if (d.length !== cvvLength(brand ?? 'visa')) return amex ? 'O código da American Express tem 4 dígitos.' : 'O código de segurança tem 3 dígitos.';
      return '';
    },
  };

  const activeFields = (): string[] => {
    const f = ['amount', 'buyer-name', 'buyer-email', 'buyer-tax-id', 'buyer-phone'].filter((id) => input(id));
    if (method() === 'credit_card') f.push('card-number', 'card-holder', 'card-expiry', 'card-cvv');
    if (method() === 'boleto') f.push('addr-zip', 'addr-state', 'addr-street', 'addr-number', 'addr-neighborhood', 'addr-city');
    return f;
  };

  function validate(): string[] {
    const bad: string[] = [];
    for (const id of activeFields()) {
      const msg = rules[id]!();
      setError(id, msg);
      if (msg) bad.push(id);
    }
    return bad;
  }

  // live feedback: after the buyer leaves a field, and while correcting one already marked
  for (const id of Object.keys(rules)) {
    const el = input(id);
    if (!el) continue;
    el.addEventListener('blur', () => {
      if (el.value) setError(id, rules[id]!());
    });
    el.addEventListener('input', () => {
      if (el.getAttribute('aria-invalid') === 'true') setError(id, rules[id]!());
    });
  }
  cardNumber?.addEventListener('input', refreshBrand);
  input('card-expiry')?.addEventListener('input', (e) => {
    const el = e.target as HTMLInputElement;
    const deleting = (e as InputEvent).inputType?.startsWith('delete');
    if (!deleting) reformat(el, (d) => (d.length > 2 ? `${d.slice(0, 2)}/${d.slice(2, 4)}` : d.length === 2 ? `${d}/` : d));
  });
  amountInput?.addEventListener('input', refreshAmounts);
  installments?.addEventListener('change', refreshAmounts);
  form.querySelectorAll<HTMLInputElement>('input[name="method"]').forEach((r) => r.addEventListener('change', refreshMethod));
  // a changed form is a new attempt
  form.addEventListener('input', () => {
    if (!busy) attempt = null;
  });

  function setBusy(on: boolean, label?: string): void {
    busy = on;
    payButton!.disabled = on;
    payButton!.setAttribute('aria-busy', on ? 'true' : 'false');
    if (on && label) payButton!.textContent = label;
    if (!on) refreshAmounts();
  }

  function showFormError(message: string): void {
    formError!.textContent = message;
  }

  const FIELD_OF: Record<string, string> = {
    'card.number': 'card-number',
    'card.holderName': 'card-holder',
    'card.expirationMonth': 'card-expiry',
    'card.expirationYear': 'card-expiry',
    'card.cvv': 'card-cvv',
    'customer.name': 'buyer-name',
    'customer.email': 'buyer-email',
    'customer.tax_id': 'buyer-tax-id',
    'customer.phone': 'buyer-phone',
    'customer.address.zip_code': 'addr-zip',
    'customer.address.state': 'addr-state',
    'customer.address.street': 'addr-street',
    'customer.address.number': 'addr-number',
    'customer.address.complement': 'addr-complement',
    'customer.address.neighborhood': 'addr-neighborhood',
    'customer.address.city': 'addr-city',
    amount: 'amount',
    installments: 'installments',
  };

  function showServerError(status: number, body: ErrorBody | null): void {
    const fields = (body?.details ?? []).map((d) => ({ id: FIELD_OF[d.field], message: d.message })).filter((d) => d.id);
    for (const f of fields) setError(f.id!, 'Confira este campo.');
    if (fields.length) {
      showFormError('Confira os campos destacados.');
      input(fields[0]!.id!)?.focus();
      return;
    }
    if (body && ERRORS[body.error]) {
      showFormError(ERRORS[body.error]!);
      return;
    }
    if (status === 404) {
      showFormError('Este link de pagamento não existe mais.');
      return;
    }
    showFormError('Não foi possível concluir o pagamento agora. Tente novamente em instantes.');
  }

  async function send(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown }> {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
      body: JSON.stringify(body),
      credentials: 'omit',
      cache: 'no-store',
    });
    let parsed: unknown = null;
    try {
      parsed = await res.json();
    } catch {
      /* not JSON */
    }
    return { status: res.status, body: parsed };
  }

  function showReceipt(p: Payment): void {
    window.clearTimeout(pollTimer);
    const url = p.redirect_url && /^https?:\/\//i.test(p.redirect_url) ? p.redirect_url : null;
    form!.hidden = true;
    byId('pix-panel')!.hidden = true;
    const receipt = byId('receipt')!;
    byId('receipt-amount')!.textContent = formatBRL(p.total_amount);
    byId('receipt-method')!.textContent =
      p.payment_method === 'pix'
        ? 'PIX'
        : `Cartão ${p.card ? BRAND_NAMES[p.card.brand] + ' final ' + p.card.last_four : ''} · ${installmentLabel(p.amount, p.installments, cfg.interest)}`.replace('  ', ' ');
    byId('receipt-id')!.textContent = p.receipt_id;
    byId('receipt-redirect')!.hidden = !url;
    receipt.hidden = false;
    byId('receipt-title')!.focus();
    if (url) window.location.assign(url);
  }

  function showPix(p: Payment): void {
    if (!p.pix) return;
    form!.hidden = true;
    const panel = byId('pix-panel')!;
    byId<HTMLImageElement>('pix-qr')!.src = p.pix.qr_code_image;
    byId<HTMLImageElement>('pix-qr')!.alt = `QR Code do PIX de ${formatBRL(p.amount)}`;
    byId<HTMLTextAreaElement>('pix-code')!.value = p.pix.qr_code;
    const exp = new Date(p.pix.expires_at);
    byId('pix-expiry')!.textContent = `O código vale até ${String(exp.getHours()).padStart(2, '0')}:${String(exp.getMinutes()).padStart(2, '0')}.`;
    byId('pix-status')!.textContent = 'Aguardando pagamento…';
    byId('pix-retry')!.hidden = true;
    panel.hidden = false;
    byId('pix-title')!.focus();
    poll(p);
  }

  function poll(p: Payment, delay = 2000): void {
    window.clearTimeout(pollTimer);
    pollTimer = window.setTimeout(async () => {
      let next = 2000;
      try {
        const res = await fetch(cfg.status_url + encodeURIComponent(p.receipt_id), { headers: { accept: 'application/json' }, credentials: 'omit', cache: 'no-store' });
        if (res.status === 429) next = 1000 * Number(res.headers.get('retry-after') ?? '5');
        else if (res.ok) {
          const s = ((await res.json()) as { data: { status: Payment['status']; failure_code: string | null; redirect_url: string | null } }).data;
          if (s.status === 'captured') return showReceipt({ ...p, status: 'captured', redirect_url: s.redirect_url });
          if (s.status === 'failed') return paymentFailed({ ...p, status: 'failed', failure_code: s.failure_code });
        }
      } catch {
        next = 5000; // offline for a moment: keep waiting
      }
      poll(p, next);
    }, delay);
  }

  /** A boleto: its line to copy and its printable page; nothing to wait for here. */
  function showBoleto(p: Payment): void {
    if (!p.boleto) return;
    form!.hidden = true;
    const due = p.boleto.due_date.split('-').reverse().join('/');
    byId('boleto-summary')!.textContent = `Valor ${formatBRL(p.amount)} · vencimento ${due}`;
    const line = byId('boleto-line')!;
    line.textContent = p.boleto.formatted_line;
    line.dataset.digits = p.boleto.digitable_line;
    byId<HTMLAnchorElement>('boleto-link')!.href = p.boleto.url;
    byId('boleto-panel')!.hidden = false;
    byId('boleto-title')!.focus();
  }

  byId('boleto-copy')?.addEventListener('click', async () => {
    const line = byId('boleto-line')!;
    let ok = false;
    try {
      await navigator.clipboard.writeText(line.dataset.digits ?? '');
      ok = true;
    } catch {
      const range = document.createRange();
      range.selectNodeContents(line);
      window.getSelection()?.removeAllRanges();
      window.getSelection()?.addRange(range);
      ok = document.execCommand('copy');
    }
    byId('boleto-status')!.textContent = ok ? 'Linha digitável copiada. Cole no app ou no site do seu banco.' : 'Selecione a linha digitável e copie.';
  });

  function paymentFailed(p: Payment): void {
    window.clearTimeout(pollTimer);
    const message = FAILURES[p.failure_code ?? ''] ?? 'Pagamento não aprovado. Tente novamente.';
    if (p.payment_method === 'pix' && !byId('pix-panel')!.hidden) {
      byId('pix-status')!.textContent = message;
      byId('pix-retry')!.hidden = false;
      return;
    }
    showFormError(message);
    if (p.payment_method === 'credit_card') cardNumber?.focus();
  }

  byId('pix-retry')?.addEventListener('click', () => {
    byId('pix-panel')!.hidden = true;
    form.hidden = false;
    attempt = null;
    payButton.focus();
  });

  byId('pix-copy')?.addEventListener('click', async () => {
    const code = byId<HTMLTextAreaElement>('pix-code')!;
    let ok = false;
    try {
      await navigator.clipboard.writeText(code.value);
      ok = true;
    } catch {
      code.focus();
      code.select();
      ok = document.execCommand('copy');
    }
    byId('pix-status')!.textContent = ok ? 'Código PIX copiado. Cole no app do seu banco.' : 'Selecione o código e copie manualmente.';
  });

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    if (busy) return;
    clearErrors();
    const bad = validate();
    if (bad.length) {
      showFormError(bad.length === 1 ? 'Confira o campo destacado.' : `Confira os ${bad.length} campos destacados.`);
      input(bad[0]!)?.focus();
      return;
    }
    const m = method();
    const amount = currentAmount();
    const customer: Record<string, unknown> = {
      name: input('buyer-name')!.value.trim(),
      email: input('buyer-email')!.value.trim(),
      tax_id: input('buyer-tax-id')!.value.replace(/[.\-/\s]/g, '').toUpperCase(),
      phone: input('buyer-phone')!.value.replace(/[\s()-]/g, ''),
    };
    attempt ??= newAttemptId();
    setBusy(true, m === 'pix' ? 'Gerando PIX…' : m === 'boleto' ? 'Gerando boleto…' : 'Processando pagamento…');
    try {
      const body: Record<string, unknown> = { attempt_id: attempt, payment_method: m, customer };
      if (cfg.amount === null) body.amount = amount;
      if (m === 'boleto') {
        const value = (id: string) => input(id)!.value.trim();
        customer.address = {
          zip_code: digits(value('addr-zip')),
          state: value('addr-state').toUpperCase(),
          street: value('addr-street'),
          number: value('addr-number'),
          ...(value('addr-complement') ? { complement: value('addr-complement') } : {}),
          neighborhood: value('addr-neighborhood'),
          city: value('addr-city'),
        };
      }
      if (m === 'credit_card') {
        const exp = parseExpiry(input('card-expiry')!.value) as { month: string; year: string };
        const tok = await send(
          cfg.tokens_url,
          {
            card: {
              number: digits(cardNumber!.value),
              holderName: input('card-holder')!.value.trim(),
              expirationMonth: exp.month,
              expirationYear: exp.year,
              cvv: input('card-cvv')!.value,
            },
          },
          { authorization: 'Basic ' + btoa(`${cfg.public_key ?? ''}:`) },
        );
        if (tok.status >= 300) {
          attempt = null;
          return showServerError(tok.status, tok.body as ErrorBody);
        }
        body.token = (tok.body as { data: { token: string } }).data.token;
        body.installments = Number(installments?.value ?? '1');
      }
      const res = await send(cfg.pay_url, body);
      attempt = null;
      if (res.status !== 201) return showServerError(res.status, res.body as ErrorBody);
      const p = (res.body as { data: Payment }).data;
      if (p.status === 'captured') return showReceipt(p);
      if (p.status === 'failed') return paymentFailed(p);
      if (p.payment_method === 'pix') return showPix(p);
      if (p.payment_method === 'boleto') return showBoleto(p);
      // a card payment whose decision was deferred: wait for it like a PIX
      showFormError('Pagamento em processamento…');
      poll(p);
    } catch {
      // no answer (network): the same attempt is retried on the next submit, never paid twice
      showFormError('Sem conexão com o servidor. Verifique sua internet e tente novamente.');
    } finally {
      setBusy(false);
    }
  });

  refreshMethod();
  if (cardNumber?.value) refreshBrand();
}

const cfg = readConfig();
if (cfg) start(cfg);
