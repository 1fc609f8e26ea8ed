import type { paymentLinkEndpoints } from '../../contract/resources/paymentLinks.js';
import type { Queryable, } from '../../store/db.js';
import type { Handlers, RequestContext } from '../context.js';
import { ApiError, notFound } from '../errors.js';
import { emitEvent } from '../services/events.js';
import { checkLinkRules, LINK_COLUMNS, patchLink, toLinkRecord, type LinkRow } from '../services/paymentLinks.js';
import { listPage } from '../lists.js';

const COLS = LINK_COLUMNS.join(', ');

async function assertSubmerchant(q: Queryable, ctx: RequestContext, id: string | null | undefined): Promise<void> {
  if (!id) return;
  const sub = await q.get('SELECT id FROM submerchants WHERE id = ? AND parent_merchant_id = ?', [id, ctx.merchantId]);
  if (!sub) throw notFound('Submerchant');
}

export const paymentLinkHandlers: Handlers<typeof paymentLinkEndpoints> = {
  'paymentLinks.create': async (ctx, { body }) => {
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
      created_by: ctx.apiKeyId,
      created_at: ts,
      updated_at: ts,
    };
    checkLinkRules(row);
    return ctx.db.tx(async (q) => {
      await assertSubmerchant(q, ctx, row.submerchant_id);
      await q.run(`INSERT INTO payment_links (${COLS}) VALUES (${LINK_COLUMNS.map(() => '?').join(', ')})`, LINK_COLUMNS.map((c) => row[c]));
      const record = toLinkRecord(row, ctx.baseUrl, now);
      await emitEvent(q, ctx.deps.ids, { merchantId: ctx.merchantId, type: 'payment_link.created', data: record, at: now });
      return record;
    });
  },

  'paymentLinks.get': async (ctx, { params }) => {
    const row = await ctx.db.get<LinkRow>(`SELECT ${COLS} FROM payment_links WHERE id = ? AND merchant_id = ?`, [params.id, ctx.merchantId]);
    if (!row) throw notFound('Payment link');
    return toLinkRecord(row, ctx.baseUrl, ctx.now());
  },

  'paymentLinks.update': async (ctx, { params, body }) => {
    const now = ctx.now();
    return ctx.db.tx(async (q) => {
      const row = await q.get<LinkRow>(`SELECT ${COLS} FROM payment_links WHERE id = ? AND merchant_id = ?${q.dialect.forUpdate}`, [
        params.id,
        ctx.merchantId,
      ]);
      if (!row) throw notFound('Payment link');
      await assertSubmerchant(q, ctx, body.submerchant_id);
      const next = await patchLink(q, row, body, now);
      return toLinkRecord(next, ctx.baseUrl, now);
    });
  },

  'paymentLinks.list': (ctx, { query, page }) => {
    const now = ctx.now();
    return listPage(ctx.db, {
      from: 'payment_links',
      select: COLS,
      filters: [['merchant_id = ?', ctx.merchantId], ['status = ?', query.status], ['submerchant_id = ?', query.submerchant_id]],
      page,
      map: (r: LinkRow) => toLinkRecord(r, ctx.baseUrl, now),
    });
  },
};
