import type { paymentLinkEndpoints } from '../../contract/resources/paymentLinks.js';
import type { Handlers } from '../context.js';
import { createLink, getLink, listLinks, updateLink } from '../services/paymentLinks.js';

export const paymentLinkHandlers: Handlers<typeof paymentLinkEndpoints> = {
  'paymentLinks.create': (ctx, { body }) => createLink(ctx, body, ctx.apiKeyId),
  'paymentLinks.get': (ctx, { params }) => getLink(ctx, params.id),
  'paymentLinks.update': (ctx, { params, body }) => updateLink(ctx, params.id, body),
  'paymentLinks.list': (ctx, { query, page }) => listLinks(ctx, query, page),
};
