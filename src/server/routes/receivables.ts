import type { receivableEndpoints } from '../../contract/resources/receivables.js';
import type { Handlers } from '../context.js';
import { createAnticipation, listAnticipations } from '../services/anticipations.js';
import { listReceivables } from '../services/receivables.js';

export const receivableHandlers: Handlers<typeof receivableEndpoints> = {
  'receivables.list': (ctx, { query, page }) => listReceivables(ctx, query, page),

  'anticipations.create': async (ctx, { body }) => {
    const a = await createAnticipation(ctx, body);
    if (a.status === 'refused') ctx.message = `Anticipation refused: ${a.refusal_reason}`;
    else ctx.message = 'Anticipation approved';
    return a;
  },

  'anticipations.list': (ctx, { query, page }) => listAnticipations(ctx, query, page),
};
