import type { withdrawalEndpoints } from '../../contract/resources/withdrawals.js';
import type { SqlValue } from '../../store/db.js';
import type { Handlers } from '../context.js';
import { notFound } from '../errors.js';
import { createWithdrawal, toRecord, type WithdrawalRow } from '../services/withdrawals.js';

export const withdrawalHandlers: Handlers<typeof withdrawalEndpoints> = {
  'withdrawals.create': async (ctx, { body }) => {
    const { record, created } = await createWithdrawal(ctx, body);
    if (!created) {
      ctx.status = 200;
      ctx.message = 'Withdrawal already requested with this idempotency_key; existing withdrawal returned';
    }
    return record;
  },

  'withdrawals.get': async (ctx, { params }) => {
    const row = await ctx.db.get<WithdrawalRow>('SELECT * FROM withdrawals WHERE id = ? AND merchant_id = ?', [params.id!, ctx.merchantId]);
    if (!row) throw notFound('Withdrawal');
    return toRecord(row);
  },

  'withdrawals.list': async (ctx, { query, page }) => {
    const where = ['merchant_id = ?'];
    const args: SqlValue[] = [ctx.merchantId];
    if (query.status) {
      where.push('status = ?');
      args.push(query.status);
    }
    if (query.submerchant_id) {
      where.push('submerchant_id = ?');
      args.push(query.submerchant_id);
    }
    const w = where.join(' AND ');
    const total = await ctx.db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM withdrawals WHERE ${w}`, args);
    const rows = await ctx.db.all<WithdrawalRow>(`SELECT * FROM withdrawals WHERE ${w} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`, [
      ...args,
      page.limit,
      page.offset,
    ]);
    return { items: rows.map(toRecord), total: Number(total?.n ?? 0) };
  },
};
