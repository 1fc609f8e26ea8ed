/**
 * The hosted checkout of payment links: what the public page needs to know about a link, and
 * the public pay / status operations behind it. Nothing here is authenticated: the link id is
 * the capability, the answers carry only what a buyer needs, and every call is rate-limited
 * per client (an IPv4 address, an IPv6 /64); a payment the link takes also shares the link's
 * budget (rateLimit.ts LinkBudget), which requests refused for any reason never spend.
 *
 * Uses of a link: `current_uses` counts paid uses only (recordLinkUse runs in the capture
 * transaction, see services/charges/capture.ts). So that `max_uses` is never exceeded, a charge that
 * is still pending (a card being decided, a PIX not yet paid and not expired) reserves one of
 * the remaining uses: a payer who finds every remaining use reserved is refused up front
 * (409 conflict, Retry-After) and no charge is created. Holds are bounded per client and in
 * time: a hold lasts as long as its PIX (15 minutes) or its boleto (until its due date, three
 * days later), and a client (a keyed hash of its IPv4 address or IPv6 /64, the same in every
 * process on the store) holds at most one use of a link at a time (checkout_holds).
 */
import type { Charge, ChargeCreate, CheckoutChargeStatus, CheckoutPayment, CheckoutPayRequest } from '../../contract/index.js';
import { MAX_CHARGE_AMOUNT } from '../../domain/fees.js';
import type { Pricing } from '../../domain/pricing.js';
import { PIX_DEFAULT_EXPIRES_IN_S, PIX_MIN_EXPIRES_IN_S } from '../../domain/sandbox.js';
import { addDays, localDate } from '../../domain/calendar.js';
import { formatBRL } from '../../domain/money.js';
import { json, type Queryable } from '../../store/db.js';
import { clockOffset, serviceContext, type ServiceDeps } from './context.js';
import { ApiError, invalid, notFound } from '../errors.js';
import { createCharge } from './charges/create.js';
import { expireDuePixCharges } from './charges/due.js';
import { assertLinkPayable, effectiveStatus, LINK_COLUMNS, type LinkRow } from './paymentLinks.js';
import { effectivePricing } from '../../domain/pricing.js';

/** A PIX made at the checkout expires after 15 minutes (or when the link does, if sooner). */
export const CHECKOUT_PIX_EXPIRES_IN_S = 900;
/** A boleto made at the checkout is due this many days later, and payable until then only. */
export const CHECKOUT_BOLETO_DUE_DAYS = 3;

/** A link as the public checkout sees it, with its merchant's clock and public key. */
export interface PublicLink {
  row: LinkRow;
  now: Date;
  clockOffsetMs: number;
  /** the seller shown to the buyer: the submerchant's trade name, else the merchant's name */
  sellerName: string;
  /** a public key the page can tokenize cards with (an active key without IP restrictions), or null */
  publicKey: string | null;
  status: LinkRow['status'];
  methods: Array<'credit_card' | 'pix' | 'boleto'>;
  /** the merchant's effective pricing: its buyer-interest terms price the installment options shown, its boleto fee bounds a boleto's amount */
  pricing: Pricing;
}

export async function loadPublicLink(deps: ServiceDeps, id: string): Promise<PublicLink | null> {
  const row = await deps.db.get<LinkRow & { m_clock_offset_ms: number; m_name: string; m_pricing: string | null; s_trade_name: string | null }>(
    `SELECT ${LINK_COLUMNS.map((c) => `l.${c}`).join(', ')}, m.clock_offset_ms AS m_clock_offset_ms, m.name AS m_name, m.pricing AS m_pricing, s.trade_name AS s_trade_name
       FROM payment_links l JOIN merchants m ON m.id = l.merchant_id LEFT JOIN submerchants s ON s.id = l.submerchant_id
      WHERE l.id = ?`,
    [id],
  );
  if (!row) return null;
  const clockOffsetMs = clockOffset(deps, row.m_clock_offset_ms);
  const now = new Date(deps.clock.now().getTime() + clockOffsetMs);
  const keys = await deps.db.all<{ public_key: string; allowed_ips: string }>(
    'SELECT public_key, allowed_ips FROM api_keys WHERE merchant_id = ? AND is_active = 1 ORDER BY created_at, id',
    [row.merchant_id],
  );
  const key = keys.find((k) => json.from<string[]>(k.allowed_ips, []).length === 0);
  return {
    row,
    now,
    clockOffsetMs,
    sellerName: row.s_trade_name ?? row.m_name,
    publicKey: key?.public_key ?? null,
    status: effectiveStatus(row, now),
    methods: json.from<PublicLink['methods']>(row.allowed_payment_methods, []),
    pricing: effectivePricing(deps.pricing, row.m_pricing),
  };
}

/** Rules of the request against the link (400s), checked before anything is written; `boletoFee`: the merchant's pricing's. */
function checkAgainstLink(link: Pick<LinkRow, 'amount' | 'max_installments' | 'allowed_payment_methods'>, body: CheckoutPayRequest, boletoFee: number): number {
  const methods = json.from<string[]>(link.allowed_payment_methods, []);
  if (!methods.includes(body.payment_method)) throw invalid('payment_method', `this payment link accepts: ${methods.join(', ')}`);
  let amount: number;
  if (link.amount !== null) {
    amount = Number(link.amount);
    if (body.amount !== undefined && body.amount !== amount) {
      throw invalid('amount', `this payment link has a fixed amount of ${amount} cents; omit amount`);
    }
  } else {
    if (body.amount === undefined) throw invalid('amount', 'is required: this payment link lets the buyer enter the amount (cents)');
    amount = body.amount;
  }
  if (amount > MAX_CHARGE_AMOUNT) {
    // a link stored before links had the cap: the buyer cannot fix it, the seller must
    throw new ApiError('business_rule', `This payment link's amount is above the charge limit of ${MAX_CHARGE_AMOUNT} cents; please contact the seller`);
  }
  if (body.payment_method === 'boleto' && amount <= boletoFee) {
    throw invalid('amount', `must be more than ${formatBRL(boletoFee)} to pay by boleto (its fee)`);
  }
  const installments = body.payment_method === 'credit_card' ? (body.installments ?? 1) : 1;
  if (installments > Number(link.max_installments)) {
    throw invalid('installments', `must be at most ${link.max_installments} for this payment link`);
  }
  return amount;
}

/** Errors of the charge service the buyer may see as they are; anything else is the seller's problem. */
function buyerError(e: unknown): unknown {
  if (!(e instanceof ApiError)) return e;
  if (['link_inactive', 'link_expired', 'link_exhausted', 'conflict', 'rate_limited', 'invalid_token', 'service_unavailable', 'acquirer_unavailable'].includes(e.code)) {
    return e;
  }
  if (e.code === 'validation_error' && e.details?.every((d) => d.field === 'payment_details.installments')) {
    return invalid('installments', e.details[0]?.message ?? 'is not possible for this amount');
  }
  // a boleto's payer registration data the buyer typed (the address) is the buyer's to fix
  if (e.code === 'validation_error' && e.details?.length && e.details.every((d) => d.field.startsWith('customer.'))) return e;
  if (e.code === 'internal_error') return e;
  return new ApiError('business_rule', 'This payment link cannot take payments right now; please contact the seller');
}

function toPayment(c: Charge, redirectUrl: string | null, qrImage: string | null): CheckoutPayment {
  return {
    receipt_id: c.id,
    status: c.status,
    payment_method: c.payment_method,
    amount: c.amount,
    installments: c.installments,
    total_amount: c.total_amount,
    card: c.card ? { brand: c.card.brand, last_four: c.card.last_four } : null,
    pix: c.pix && qrImage ? { qr_code: c.pix.qr_code, qr_code_image: qrImage, expires_at: c.pix.expires_at } : null,
    boleto: c.boleto
      ? { digitable_line: c.boleto.digitable_line, formatted_line: c.boleto.formatted_line, due_date: c.boleto.due_date, url: c.boleto.url, expires_at: c.boleto.expires_at }
      : null,
    failure_code: c.failure_code,
    paid_at: c.captured_at,
    redirect_url: c.status === 'captured' ? redirectUrl : null,
  };
}

/** The BR Code as a QR code image (PNG data: URL), drawn by the qrcode package. */
export async function qrCodeImage(text: string): Promise<string> {
  const QRCode = (await import('qrcode')).default;
  return QRCode.toDataURL(text, { errorCorrectionLevel: 'M', margin: 2, width: 264 });
}

/** A payment request checked against its link (the 400s), before anything is written. */
export interface LinkPayment {
  link: PublicLink;
  amount: number;
}

/** The link of a payment request and the amount it pays; 404 for no such link, 400 for a request the link does not take. */
export async function checkPayment(deps: ServiceDeps, linkId: string, body: CheckoutPayRequest): Promise<LinkPayment> {
  const link = await loadPublicLink(deps, linkId);
  if (!link) throw notFound('Payment link');
  return { link, amount: checkAgainstLink(link.row, body, link.pricing.boleto_fee_amount) };
}

/**
 * POST /checkout/{id}/pay: the charge, made through the same service as POST /v1/charges (the
 * link's submerchant split, its product_type, one item named after the link), and what the
 * buyer is told of it. Errors of the charge service the buyer may not see become one message.
 */
export async function payLink(deps: ServiceDeps, payment: LinkPayment, body: CheckoutPayRequest, from: { client: string; baseUrl?: string }): Promise<CheckoutPayment> {
  const { link, amount } = payment;
  const linkId = link.row.id;
  assertLinkPayable(link.row, link.now);
  const mctx = serviceContext(deps, link.row.merchant_id, link.clockOffsetMs, from.baseUrl);
  const now = mctx.now();
  const tax = body.customer.tax_id;
  const charge: ChargeCreate = {
    amount,
    product_type: link.row.product_type as ChargeCreate['product_type'],
    customer: { ...body.customer, tax_id: tax.length === 14 ? tax.toUpperCase() : tax, type: tax.length === 11 ? 'individual' : 'company' },
    items: [{ name: link.row.title, quantity: 1, unit_price: amount, tangible: link.row.product_type === 'physical' }],
    currency: 'BRL',
    ...(link.row.submerchant_id ? { submerchant_id: link.row.submerchant_id } : {}),
    ...paymentOf(body, link.row, now),
  } as ChargeCreate;
  const client = deps.keyring.requestHash('checkout client\n', from.client);
  const guard = async (q: Queryable, chargeId: string) => reserveUse(q, linkId, body, amount, now, { client, chargeId, boletoFee: link.pricing.boleto_fee_amount });
  let created: Charge;
  try {
    created = (await createCharge(mctx, charge, { paymentLinkId: linkId, guard })).record;
  } catch (e) {
    throw buyerError(e);
  }
  const qr = created.pix ? await qrCodeImage(created.pix.qr_code) : null;
  return toPayment(created, link.row.redirect_url, qr);
}

/** The payment method and details of a checkout payment's charge. */
function paymentOf(body: CheckoutPayRequest, link: Pick<LinkRow, 'expires_at' | 'interest'>, now: Date): Pick<ChargeCreate, 'payment_method' | 'payment_details'> {
  switch (body.payment_method) {
    case 'credit_card':
      return { payment_method: 'credit_card', payment_details: { token: body.token, installments: body.installments ?? 1, interest: link.interest } };
    case 'pix':
      return { payment_method: 'pix', payment_details: { expires_in: pixExpiresIn(link, now) } };
    case 'boleto':
      // due in a few days and not payable after: a use of the link is held while it is unpaid
      return { payment_method: 'boleto', payment_details: { due_date: addDays(localDate(now), CHECKOUT_BOLETO_DUE_DAYS), pay_until_days: 0 } };
  }
}

/** The message of the envelope of a checkout payment. */
export function paymentMessage(p: CheckoutPayment): string {
  if (p.status === 'captured') return 'Payment confirmed';
  if (p.status === 'failed') return `Payment failed: ${p.failure_code}`;
  if (p.payment_method === 'boleto') return 'Boleto created; waiting for payment';
  return p.payment_method === 'pix' ? 'PIX created; waiting for payment' : 'Payment pending';
}

function pixExpiresIn(link: Pick<LinkRow, 'expires_at'>, now: Date): number {
  let s = CHECKOUT_PIX_EXPIRES_IN_S;
  if (link.expires_at) s = Math.min(s, Math.floor((Date.parse(link.expires_at) - now.getTime()) / 1000));
  return Math.max(PIX_MIN_EXPIRES_IN_S, Math.min(s, PIX_DEFAULT_EXPIRES_IN_S));
}

/**
 * Inside the transaction that inserts the charge: the link, locked and read afresh, must
 * still take this payment, and one of its remaining uses must be free (uses paid + charges of
 * the link still pending < max_uses).
 */
async function reserveUse(
  q: Queryable,
  linkId: string,
  body: CheckoutPayRequest,
  amount: number,
  now: Date,
  hold: { client: string; chargeId: string; boletoFee: number },
): Promise<void> {
  const row = await q.get<LinkRow>(`SELECT ${LINK_COLUMNS.join(', ')} FROM payment_links WHERE id = ?${q.dialect.forUpdate}`, [linkId]);
  if (!row) throw notFound('Payment link');
  assertLinkPayable(row, now);
  try {
    if (checkAgainstLink(row, body, hold.boletoFee) !== amount) throw invalid('amount', 'changed');
  } catch {
    throw new ApiError('conflict', 'The payment link changed while you were paying; reload the page and try again');
  }
  if (row.max_uses === null) return;
  const max = Number(row.max_uses);
  const paid = Number(row.current_uses);
  if (paid >= max) throw new ApiError('link_exhausted', 'This payment link has reached its maximum number of uses');
  const nowIso = now.toISOString();
  // bounded per client: a client holds at most one use of the link at a time
  const mine = await q.get<{ n: number }>(
    `SELECT COUNT(*) AS n FROM checkout_holds h JOIN charges c ON c.id = h.charge_id
      WHERE h.payment_link_id = ? AND h.client = ? AND c.status = 'pending' AND (c.pix_expires_at IS NULL OR c.pix_expires_at > ?)`,
    [linkId, hold.client, nowIso],
  );
  if (Number(mine?.n ?? 0) > 0) {
    throw new ApiError(
      'conflict',
      'You already have a payment pending on this payment link: complete it, or try again once it expires (a PIX after at most 15 minutes, a boleto after its due date)',
      undefined,
      { retryAfterS: 60 },
    );
  }
  const pending = await q.get<{ n: number }>(
    "SELECT COUNT(*) AS n FROM charges WHERE payment_link_id = ? AND status = 'pending' AND (pix_expires_at IS NULL OR pix_expires_at > ?)",
    [linkId, nowIso],
  );
  if (paid + Number(pending?.n ?? 0) >= max) {
    throw new ApiError(
      'conflict',
      'Another buyer is completing the last available use of this payment link; try again in a few minutes',
      undefined,
      { retryAfterS: 60 },
    );
  }
  await q.run('INSERT INTO checkout_holds (charge_id, payment_link_id, client, created_at) VALUES (?, ?, ?, ?)', [hold.chargeId, linkId, hold.client, nowIso]);
}

/** GET /checkout/{id}/charges/{charge_id}: the status of a payment made through this link, nothing more. */
export async function linkChargeStatus(deps: ServiceDeps, linkId: string, chargeId: string): Promise<CheckoutChargeStatus> {
  const link = await deps.db.get<{ merchant_id: string; redirect_url: string | null; clock_offset_ms: number }>(
    'SELECT l.merchant_id, l.redirect_url, m.clock_offset_ms FROM payment_links l JOIN merchants m ON m.id = l.merchant_id WHERE l.id = ?',
    [linkId],
  );
  if (!link) throw notFound('Payment');
  const sel = 'SELECT id, status, payment_method, pix_expires_at, failure_code, captured_at FROM charges WHERE id = ? AND payment_link_id = ?';
  let c = await deps.db.get<{ id: string; status: CheckoutChargeStatus['status']; payment_method: string; pix_expires_at: string | null; failure_code: string | null; captured_at: string | null }>(
    sel,
    [chargeId, linkId],
  );
  if (!c) throw notFound('Payment');
  const now = new Date(deps.clock.now().getTime() + clockOffset(deps, link.clock_offset_ms));
  if (c.status === 'pending' && c.pix_expires_at && c.pix_expires_at <= now.toISOString()) {
    // an unpaid PIX past its expiry: let the due work fail it now rather than on the merchant's next request
    await expireDuePixCharges(serviceContext(deps, link.merchant_id, Number(link.clock_offset_ms)));
    c = (await deps.db.get<typeof c>(sel, [chargeId, linkId]))!;
  }
  return {
    receipt_id: c.id,
    status: c.status,
    failure_code: c.failure_code,
    paid_at: c.captured_at,
    redirect_url: c.status === 'captured' ? link.redirect_url : null,
  };
}
