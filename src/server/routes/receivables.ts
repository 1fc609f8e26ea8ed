import type { receivableEndpoints } from '../../contract/resources/receivables.js';
import type { Handlers } from '../context.js';
import { anticipationRecord, createAnticipation, } from '../services/anticipations.js';
import { receivableRecord } from '../services/charges/rows.js';
import { listPage } from '../lists.js';

export const receivableHandlers: Handlers<typeof receivableEndpoints> = {
  'receivables.list': (ctx, { query, page }) =>
    listPage(ctx.db, {
      from: 'receivables',
      filters: [
        ['merchant_id = ?', ctx.merchantId],
        ['status = ?', query.status],
        ['payment_method = ?', query.payment_method],
        ['settlement_date >= ?', query.settlement_date_from],
        ['settlement_date < ?', query.settlement_date_to],
        ['charge_id = ?', query.charge_id],
        ['submerchant_id = ?', query.submerchant_id],
      ],
      order: 'created_at DESC, id DESC, installment DESC',
      page,
      map: receivableRecord,
    }),

  'anticipations.create': async (ctx, { body }) => {
    const a = await createAnticipation(ctx, body);
    if (a.status === 'refused') ctx.message = `Anticipation refused: ${a.refusal_reason}`;
    else ctx.message = 'Anticipation approved';
    return a;
  },

  'anticipations.list': (ctx, { query, page }) =>
    listPage(ctx.db, {
      from: 'anticipations',
      filters: [
        ['merchant_id = ?', ctx.merchantId],
        ['status = ?', query.status],
        ['anticipation_type = ?', query.type],
        ['created_at >= ?', query.start_date],
        ['created_at < ?', query.end_date],
      ],
      page,
      map: anticipationRecord,
    }),
};
