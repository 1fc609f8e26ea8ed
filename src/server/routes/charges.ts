import type { chargeEndpoints } from '../../contract/resources/charges.js';
import type { Handlers } from '../context.js';
import { chargeRecord, createCharge, loadCharge, payPixCharge, refundCharge, type ChargeRow } from '../services/charges.js';

export const chargeHandlers: Handlers<typeof chargeEndpoints> = {
  'charges.create': async (ctx, { body }) => {
    const c = await createCharge(ctx, body);
    if (c.status === 'failed') ctx.message = `Charge failed: ${c.failure_code}`;
    else if (c.status === 'captured') ctx.message = 'Charge captured';
    else ctx.message = c.payment_method === 'pix' ? 'PIX charge created; waiting for payment' : 'Charge created; pending';
    return c;
  },

  'charges.get': async (ctx, { params }) => chargeRecord(await loadCharge(ctx.db, ctx.merchantId, params.id!)),

  'charges.list': async (ctx, { query, page }) => {
    const where = ['merchant_id = ?'];
    const args: (string | number)[] = [ctx.merchantId];
    if (query.status) (where.push('status = ?'), args.push(query.status));
    if (query.payment_method) (where.push('payment_method = ?'), args.push(query.payment_method));
    if (query.submerchant_id) (where.push('submerchant_id = ?'), args.push(query.submerchant_id));
    if (query.start_date) (where.push('created_at >= ?'), args.push(query.start_date));
    if (query.end_date) (where.push('created_at < ?'), args.push(query.end_date));
    const w = where.join(' AND ');
    const total = await ctx.db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM charges WHERE ${w}`, args);
    const rows = await ctx.db.all<ChargeRow>(`SELECT * FROM charges WHERE ${w} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`, [
      ...args,
      page.limit,
      page.offset,
    ]);
    return { items: rows.map(chargeRecord), total: Number(total?.n ?? 0) };
  },

  'charges.refund': async (ctx, { params }) => refundCharge(ctx, params.id!),

  'charges.sandboxPay': async (ctx, { params }) => payPixCharge(ctx, params.id!),
};
