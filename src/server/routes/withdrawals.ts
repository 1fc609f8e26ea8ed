import type { withdrawalEndpoints } from '../../contract/resources/withdrawals.js';
import type { Handlers } from '../context.js';
import { notFound } from '../errors.js';
import { createWithdrawal, toRecord, type WithdrawalRow } from '../services/withdrawals.js';
import { listPage } from '../lists.js';

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
    const row = await ctx.db.get<WithdrawalRow>('SELECT * FROM withdrawals WHERE id = ? AND merchant_id = ?', [params.id, ctx.merchantId]);
    if (!row) throw notFound('Withdrawal');
    return toRecord(row);
  },

  'withdrawals.list': (ctx, { query, page }) =>
    listPage(ctx.db, {
      from: 'withdrawals',
      filters: [['merchant_id = ?', ctx.merchantId], ['status = ?', query.status], ['submerchant_id = ?', query.submerchant_id]],
      page,
      map: toRecord,
    }),
};
