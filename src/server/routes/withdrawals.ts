import type { withdrawalEndpoints } from '../../contract/resources/withdrawals.js';
import type { Handlers } from '../context.js';
import { createWithdrawal, getWithdrawal, listWithdrawals } from '../services/withdrawals.js';

export const withdrawalHandlers: Handlers<typeof withdrawalEndpoints> = {
  'withdrawals.create': async (ctx, { body }) => {
    const { record, created } = await createWithdrawal(ctx, body);
    if (!created) {
      ctx.status = 200;
      ctx.message = 'Withdrawal already requested with this idempotency_key; existing withdrawal returned';
    }
    return record;
  },

  'withdrawals.get': (ctx, { params }) => getWithdrawal(ctx, params.id),

  'withdrawals.list': (ctx, { query, page }) => listWithdrawals(ctx, query, page),
};
