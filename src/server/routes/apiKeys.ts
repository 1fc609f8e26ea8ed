import type { apiKeyEndpoints } from '../../contract/resources/apiKeys.js';
import type { Handlers } from '../context.js';
import { createApiKey, listApiKeys, revokeApiKey } from '../services/apiKeys.js';

export const apiKeyHandlers: Handlers<typeof apiKeyEndpoints> = {
  'apiKeys.create': (ctx, { body }) => createApiKey(ctx, body),
  'apiKeys.list': (ctx, { query, page }) => listApiKeys(ctx, query, page),
  'apiKeys.revoke': (ctx, { params }) => revokeApiKey(ctx, params.id),
};
