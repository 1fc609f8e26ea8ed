import type { PaymentLink, PaymentLinkUpdate } from '../../contract/resources/paymentLinks.js';
import { assertTransition, canTransition } from '../../domain/lifecycle.js';
import { json, type Queryable } from '../../store/db.js';
import { transition } from '../../store/transition.js';
import type { BodyFor, Page, PageRequest, QueryFor, ServiceContext, ServiceDeps } from './context.js';
import { ApiError, notFound } from '../errors.js';
import { emitEvent } from './events.js';
import { listPage } from '../lists.js';
import { assertSubmerchantOf } from './onboarding.js';
import { merchantPricing } from './merchants.js';

export interface LinkRow {
  id: string;
  merchant_id: string;
  submerchant_id: string | null;
  title: string;
  description: string | null;
  amount: number | null;
  currency: string;
  product_type: string;
  allowed_payment_methods: string;
  max_installments: number;
  /** who pays the card installments' interest (merchant | buyer) */
  interest: PaymentLink['interest'];
  expires_at: string | null;
  max_uses: number | null;
  current_uses: number;
  status: PaymentLink['status'];
  redirect_url: string | null;
  cover_image_url: string | null;
  primary_color: string | null;
  summary_color: string | null;
  logo_url: string | null;
  metadata: string;
  created_by: string;
  created_at: string;
  updated_at: string;
}

export const LINK_COLUMNS = [
  'id', 'merchant_id', 'submerchant_id', 'title', 'description', 'amount', 'currency', 'product_type', 'allowed_payment_methods',
  'max_installments', 'interest', 'expires_at', 'max_uses', 'current_uses', 'status', 'redirect_url', 'cover_image_url', 'primary_color',
  'summary_color', 'logo_url', 'metadata', 'created_by', 'created_at', 'updated_at',
] as const;

/** The status as of `now`: an active or inactive link whose expires_at has passed is expired. */
export function effectiveStatus(r: Pick<LinkRow, 'status' | 'expires_at'>, now: Date): LinkRow['status'] {
  if ((r.status === 'active' || r.status === 'inactive') && r.expires_at && r.expires_at <= now.toISOString()) return 'expired';
  return r.status;
}

export function checkoutUrl(baseUrl: string, id: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/checkout/${id}`;
}

export function toLinkRecord(r: LinkRow, baseUrl: string, now: Date): PaymentLink {
  return {
    id: r.id,
    merchant_id: r.merchant_id,
    submerchant_id: r.submerchant_id,
    title: r.title,
    description: r.description,
    amount: r.amount === null ? null : Number(r.amount),
    checkout_url: checkoutUrl(baseUrl, r.id),
    currency: r.currency,
    product_type: r.product_type,
    allowed_payment_methods: json.from<PaymentLink['allowed_payment_methods']>(r.allowed_payment_methods, []),
    max_installments: Number(r.max_installments),
    interest: r.interest,
    expires_at: r.expires_at,
    max_uses: r.max_uses === null ? null : Number(r.max_uses),
    current_uses: Number(r.current_uses),
    status: effectiveStatus(r, now),
    redirect_url: r.redirect_url,
    cover_image_url: r.cover_image_url,
    primary_color: r.primary_color,
    summary_color: r.summary_color,
    logo_url: r.logo_url,
    metadata: json.from<Record<string, unknown>>(r.metadata, {}),
    created_by: r.created_by,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

/**
 * Rules on the whole link (after a create or a merge of a PATCH). `boletoFee`: the fixed fee of a
 * paid boleto in the merchant's pricing now, which a fixed amount must exceed when boleto is allowed.
 */
export function checkLinkRules(r: Pick<LinkRow, 'amount' | 'max_installments' | 'interest' | 'allowed_payment_methods' | 'max_uses' | 'current_uses'>, boletoFee: number): void {
  const methods = json.from<string[]>(r.allowed_payment_methods, []);
  if (methods.includes('boleto') && r.amount !== null && Number(r.amount) <= boletoFee) {
    throw new ApiError('validation_error', `amount: a boleto must be of more than its fee (${boletoFee} cents)`, [
      { field: 'amount', message: `must be more than ${boletoFee} cents (the boleto fee) when boleto is in allowed_payment_methods` },
    ]);
  }
  if (r.max_installments > 1 && !methods.includes('credit_card')) {
    throw new ApiError('validation_error', 'max_installments: installments need credit_card in allowed_payment_methods', [
      { field: 'max_installments', message: 'must be 1 unless credit_card is in allowed_payment_methods' },
    ]);
  }
  if (r.interest === 'buyer' && !methods.includes('credit_card')) {
    throw new ApiError('validation_error', 'interest: buyer interest is for card installments; it needs credit_card in allowed_payment_methods', [
      { field: 'interest', message: 'must be merchant unless credit_card is in allowed_payment_methods' },
    ]);
  }
  if (r.max_uses !== null && Number(r.max_uses) <= Number(r.current_uses)) {
    throw new ApiError('validation_error', `max_uses: must be more than the ${r.current_uses} uses the link already has`, [
      { field: 'max_uses', message: `must be more than current_uses (${r.current_uses})` },
    ]);
  }
}

/** Fields a PATCH may set, and the column each one writes (JSON ones serialised). */
const PATCHABLE: Record<keyof PaymentLinkUpdate, (v: unknown) => unknown> = {
  title: (v) => v,
  product_type: (v) => v,
  allowed_payment_methods: (v) => JSON.stringify(v),
  status: (v) => v,
  submerchant_id: (v) => v,
  description: (v) => v,
  amount: (v) => v,
  currency: (v) => v,
  max_installments: (v) => v,
  interest: (v) => v,
  expires_at: (v) => (v === null ? null : new Date(v as string).toISOString()),
  max_uses: (v) => v,
  metadata: (v) => JSON.stringify(v),
  redirect_url: (v) => v,
  cover_image_url: (v) => v,
  primary_color: (v) => v,
  summary_color: (v) => v,
  logo_url: (v) => v,
};

/** Applies a PATCH to a link row inside the caller's transaction (`boletoFee`: checkLinkRules'); returns the new row. */
export async function patchLink(q: Queryable, row: LinkRow, patch: PaymentLinkUpdate, now: Date, boletoFee: number): Promise<LinkRow> {
  const current = effectiveStatus(row, now);
  if (current === 'expired' || current === 'exhausted') {
    throw new ApiError('invalid_state', `The payment link is ${current}; a ${current} link can no longer be changed`);
  }
  const next: LinkRow = { ...row };
  const set: Record<string, string | number | null> = {};
  for (const [k, v] of Object.entries(patch) as [keyof PaymentLinkUpdate, unknown][]) {
    if (v === undefined || k === 'status') continue;
    const col = PATCHABLE[k](v) as string | number | null;
    (next as unknown as Record<string, unknown>)[k] = col;
    set[k] = col;
  }
  const moves = patch.status !== undefined && patch.status !== row.status;
  if (moves) assertTransition('payment_link', row.status, patch.status!);
  if (next.expires_at && next.expires_at <= now.toISOString()) {
    throw new ApiError('validation_error', 'expires_at: must be in the future', [{ field: 'expires_at', message: 'must be in the future' }]);
  }
  if (patch.status !== undefined) next.status = patch.status;
  checkLinkRules(next, boletoFee);
  next.updated_at = now.toISOString();
  set.updated_at = next.updated_at;
  if (moves) await transition(q, 'payment_link', row.id, row.status, patch.status!, set);
  else {
    const cols = Object.keys(set);
    await q.run(`UPDATE payment_links SET ${cols.map((c) => `${c} = ?`).join(', ')} WHERE id = ?`, [...cols.map((c) => set[c]!), row.id]);
  }
  return next;
}

/** A service context with the public origin the links' checkout_url are made from. */
export type LinkContext = ServiceContext & { baseUrl: string };

const COLS = LINK_COLUMNS.join(', ');

/** A new link of the merchant (event payment_link.created); `createdBy`: the API key that made it. */
export async function createLink(ctx: LinkContext, body: BodyFor<'paymentLinks.create'>, createdBy: string): Promise<PaymentLink> {
  const now = ctx.now();
  const ts = now.toISOString();
  const expiresAt = body.expires_at ? new Date(body.expires_at).toISOString() : null;
  if (expiresAt && expiresAt <= ts) {
    throw new ApiError('validation_error', 'expires_at: must be in the future', [{ field: 'expires_at', message: 'must be in the future' }]);
  }
  const row: LinkRow = {
    id: ctx.deps.ids(),
    merchant_id: ctx.merchantId,
    submerchant_id: body.submerchant_id ?? null,
    title: body.title,
    description: body.description ?? null,
    amount: body.amount ?? null,
    currency: body.currency ?? 'BRL',
    product_type: body.product_type,
    allowed_payment_methods: JSON.stringify(body.allowed_payment_methods),
    max_installments: body.max_installments ?? 1,
    interest: body.interest ?? 'merchant',
    expires_at: expiresAt,
    max_uses: body.max_uses ?? null,
    current_uses: 0,
    status: 'active',
    redirect_url: body.redirect_url ?? null,
    cover_image_url: body.cover_image_url ?? null,
    primary_color: body.primary_color ?? null,
    summary_color: body.summary_color ?? null,
    logo_url: body.logo_url ?? null,
    metadata: JSON.stringify(body.metadata ?? {}),
    created_by: createdBy,
    created_at: ts,
    updated_at: ts,
  };
  checkLinkRules(row, (await merchantPricing(ctx.db, ctx.deps, ctx.merchantId)).boleto_fee_amount);
  return ctx.db.tx(async (q) => {
    if (row.submerchant_id) await assertSubmerchantOf(q, ctx.merchantId, row.submerchant_id);
    await q.run(`INSERT INTO payment_links (${COLS}) VALUES (${LINK_COLUMNS.map(() => '?').join(', ')})`, LINK_COLUMNS.map((c) => row[c]));
    const record = toLinkRecord(row, ctx.baseUrl, now);
    await emitEvent(q, ctx.deps.ids, { merchantId: ctx.merchantId, type: 'payment_link.created', data: record, at: now });
    return record;
  });
}

/** The merchant's link, by id (404 otherwise). */
export async function getLink(ctx: LinkContext, id: string): Promise<PaymentLink> {
  const row = await ctx.db.get<LinkRow>(`SELECT ${COLS} FROM payment_links WHERE id = ? AND merchant_id = ?`, [id, ctx.merchantId]);
  if (!row) throw notFound('Payment link');
  return toLinkRecord(row, ctx.baseUrl, ctx.now());
}

/** A PATCH of the merchant's link (patchLink), its row locked. */
export async function updateLink(ctx: LinkContext, id: string, body: BodyFor<'paymentLinks.update'>): Promise<PaymentLink> {
  const now = ctx.now();
  return ctx.db.tx(async (q) => {
    const row = await q.get<LinkRow>(`SELECT ${COLS} FROM payment_links WHERE id = ? AND merchant_id = ?${q.dialect.forUpdate}`, [id, ctx.merchantId]);
    if (!row) throw notFound('Payment link');
    if (body.submerchant_id) await assertSubmerchantOf(q, ctx.merchantId, body.submerchant_id);
    const next = await patchLink(q, row, body, now, (await merchantPricing(q, ctx.deps, ctx.merchantId)).boleto_fee_amount);
    return toLinkRecord(next, ctx.baseUrl, now);
  });
}

/** The merchant's links, newest first. */
export function listLinks(ctx: LinkContext, query: QueryFor<'paymentLinks.list'>, page: PageRequest): Promise<Page<PaymentLink>> {
  const now = ctx.now();
  return listPage(ctx.db, {
    from: 'payment_links',
    select: COLS,
    filters: [['merchant_id = ?', ctx.merchantId], ['status = ?', query.status], ['submerchant_id = ?', query.submerchant_id]],
    page,
    map: (r: LinkRow) => toLinkRecord(r, ctx.baseUrl, now),
  });
}

/**
 * Moves the links of a merchant whose expires_at has passed (merchant clock) to expired.
 * Reads first, so a request with nothing due takes no write lock.
 */
export async function expireDueLinks(db: ServiceDeps['db'], merchantId: string, now: Date): Promise<number> {
  const nowIso = now.toISOString();
  const any = await db.get(
    `SELECT id FROM payment_links WHERE merchant_id = ? AND expires_at IS NOT NULL AND expires_at <= ? AND status IN ('active', 'inactive') LIMIT 1`,
    [merchantId, nowIso],
  );
  if (!any) return 0;
  return db.tx(async (q) => {
    const r = await q.run(
      `UPDATE payment_links SET status = 'expired', updated_at = ?
        WHERE merchant_id = ? AND expires_at IS NOT NULL AND expires_at <= ? AND status IN ('active', 'inactive')`,
      [nowIso, merchantId, nowIso],
    );
    return r.changes;
  });
}

/** Whether a buyer may pay the link now: 422 link_inactive / link_expired / link_exhausted otherwise. */
export function assertLinkPayable(r: Pick<LinkRow, 'status' | 'expires_at'>, now: Date): void {
  const s = effectiveStatus(r, now);
  if (s === 'inactive') throw new ApiError('link_inactive', 'This payment link is inactive');
  if (s === 'expired') throw new ApiError('link_expired', 'This payment link has expired');
  if (s === 'exhausted') throw new ApiError('link_exhausted', 'This payment link has reached its maximum number of uses');
}

/**
 * Records one confirmed payment through a link, inside the caller's transaction (the one that
 * confirms the charge): current_uses + 1, exhausted when it reaches max_uses, and the
 * payment_link.paid event. A payment already confirmed is always counted, even if the link
 * changed state while the buyer paid.
 */
export async function recordLinkUse(
  q: Queryable,
  deps: Pick<ServiceDeps, 'ids'> & { baseUrl: string },
  linkId: string,
  at: Date,
  opts: { chargeId?: string } = {},
): Promise<PaymentLink> {
  const row = await q.get<LinkRow>(`SELECT ${LINK_COLUMNS.join(', ')} FROM payment_links WHERE id = ?${q.dialect.forUpdate}`, [linkId]);
  if (!row) throw notFound('Payment link');
  const uses = Number(row.current_uses) + 1;
  let status = row.status;
  const ts = at.toISOString();
  if (row.max_uses !== null && uses >= Number(row.max_uses) && canTransition('payment_link', row.status, 'exhausted')) {
    status = 'exhausted';
    await transition(q, 'payment_link', row.id, row.status, 'exhausted', { current_uses: uses, updated_at: ts });
  } else await q.run('UPDATE payment_links SET current_uses = ?, updated_at = ? WHERE id = ?', [uses, ts, row.id]);
  const record = toLinkRecord({ ...row, current_uses: uses, status, updated_at: ts }, deps.baseUrl, at);
  await emitEvent(q, deps.ids, { merchantId: row.merchant_id, type: 'payment_link.paid', data: record, chargeId: opts.chargeId ?? null, at });
  return record;
}
