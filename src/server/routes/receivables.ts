import type { receivableEndpoints } from '../../contract/resources/receivables.js';
import type { Handlers } from '../context.js';
import { anticipationRecord, createAnticipation, type AnticipationRow } from '../services/anticipations.js';
import { receivableRecord, type ReceivableRow } from '../services/charges.js';

export const receivableHandlers: Handlers<typeof receivableEndpoints> = {
  'receivables.list': async (ctx, { query, page }) => {
    const where = ['merchant_id = ?'];
    const args: (string | number)[] = [ctx.merchantId];
    if (query.status) (where.push('status = ?'), args.push(query.status));
    if (query.payment_method) (where.push('payment_method = ?'), args.push(query.payment_method));
    if (query.settlement_date_from) (where.push('settlement_date >= ?'), args.push(query.settlement_date_from));
    if (query.settlement_date_to) (where.push('settlement_date < ?'), args.push(query.settlement_date_to));
    if (query.charge_id) (where.push('charge_id = ?'), args.push(query.charge_id));
    if (query.submerchant_id) (where.push('submerchant_id = ?'), args.push(query.submerchant_id));
    const w = where.join(' AND ');
    const total = await ctx.db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM receivables WHERE ${w}`, args);
    const rows = await ctx.db.all<ReceivableRow>(
      `SELECT * FROM receivables WHERE ${w} ORDER BY created_at DESC, id DESC, installment DESC LIMIT ? OFFSET ?`,
      [...args, page.limit, page.offset],
    );
    return { items: rows.map(receivableRecord), total: Number(total?.n ?? 0) };
  },

  'anticipations.create': async (ctx, { body }) => {
    const a = await createAnticipation(ctx, body);
    if (a.status === 'refused') ctx.message = `Anticipation refused: ${a.refusal_reason}`;
    else ctx.message = 'Anticipation approved';
    return a;
  },

  'anticipations.list': async (ctx, { query, page }) => {
    const where = ['merchant_id = ?'];
    const args: (string | number)[] = [ctx.merchantId];
    if (query.status) (where.push('status = ?'), args.push(query.status));
    if (query.type) (where.push('anticipation_type = ?'), args.push(query.type));
    if (query.start_date) (where.push('created_at >= ?'), args.push(query.start_date));
    if (query.end_date) (where.push('created_at < ?'), args.push(query.end_date));
    const w = where.join(' AND ');
    const total = await ctx.db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM anticipations WHERE ${w}`, args);
    const rows = await ctx.db.all<AnticipationRow>(
      `SELECT * FROM anticipations WHERE ${w} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
      [...args, page.limit, page.offset],
    );
    return { items: rows.map(anticipationRecord), total: Number(total?.n ?? 0) };
  },
};
