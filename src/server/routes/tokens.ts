import type { tokenEndpoints } from '../../contract/resources/tokens.js';
import type { Handlers } from '../context.js';
import { tokenize } from '../services/tokens.js';

export const tokenHandlers: Handlers<typeof tokenEndpoints> = {
  'tokens.create': async (ctx, { body }) => {
    const { result, created } = await tokenize(ctx, body.card);
    if (!created) {
      ctx.status = 200;
      ctx.message = 'Card already tokenized; existing token returned';
    }
    return result;
  },
};
