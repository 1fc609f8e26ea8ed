import type { recipientEndpoints } from '../../contract/resources/recipients.js';
import type { Handlers } from '../context.js';
import { listRecipients, putRecipient } from '../services/recipients.js';

export const recipientHandlers: Handlers<typeof recipientEndpoints> = {
  /** Creates the owner's primary recipient of the type (201) or replaces its details (200). */
  'recipients.put': async (ctx, { body }) => {
    const { record, created } = await putRecipient(ctx, body);
    if (created) {
      ctx.status = 201;
      ctx.message = 'Recipient created';
    } else {
      ctx.message = 'Recipient updated';
    }
    return record;
  },

  'recipients.list': (ctx, { query, page }) => listRecipients(ctx, query, page),
};
