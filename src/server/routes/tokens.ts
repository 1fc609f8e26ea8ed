import type { tokenEndpoints } from '../../contract/resources/tokens.js';
import type { Handlers } from '../context.js';
import { tokenize } from '../services/tokens.js';

export const tokenHandlers: Handlers<typeof tokenEndpoints> = {
  'tokens.create': async (ctx, { body }) => tokenize(ctx, body.card),
};
