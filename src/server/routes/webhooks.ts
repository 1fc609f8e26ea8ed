import type { webhookEndpoints } from '../../contract/resources/webhooks.js';
import type { Handlers } from '../context.js';
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listDeliveryLogs,
  listEndpoints,
  redeliver,
  rotateSecret,
  updateEndpoint,
} from '../services/webhookEndpoints.js';

export const webhookHandlers: Handlers<typeof webhookEndpoints> = {
  'webhookEndpoints.create': (ctx, { body }) => createEndpoint(ctx, body),
  'webhookEndpoints.list': (ctx, { query, page }) => listEndpoints(ctx, query, page),
  'webhookEndpoints.get': (ctx, { params }) => getEndpoint(ctx, params.id),
  'webhookEndpoints.update': (ctx, { params, body }) => updateEndpoint(ctx, params.id, body),
  'webhookEndpoints.delete': (ctx, { params }) => deleteEndpoint(ctx, params.id),
  'webhookEndpoints.rotateSecret': (ctx, { params, body }) => rotateSecret(ctx, params.id, body),
  'webhookDeliveryLogs.list': (ctx, { query, page }) => listDeliveryLogs(ctx, query, page),
  'webhookDeliveryLogs.retry': async (ctx, { params }) => {
    const { record, created } = await redeliver(ctx, params.id);
    if (!created) {
      ctx.status = 200;
      ctx.message = 'A redelivery is already pending';
    }
    return record;
  },
};
