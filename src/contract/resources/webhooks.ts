import * as z from 'zod';
import { endpoint, type CliPresentation } from '../endpoint.js';
import { hinted } from '../hints.js';
import { listQuery, qEnum, timestamp, uuid } from '../common.js';
import { DEFAULT_ROTATION_OVERLAP_S, EVENT_NAMES, MAX_ROTATION_OVERLAP_S } from '../events.js';

/** Webhook endpoint statuses (the contract's lifecycle: a 410 answer or PATCH disables). */
export const WEBHOOK_ENDPOINT_STATUSES = ['active', 'disabled'] as const;
/** Delivery attempt statuses: one log record per attempt, pending while it is in flight or queued. */
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;

const EVENT_SET: ReadonlySet<string> = new Set(EVENT_NAMES);
export const URL_MAX = 2048;

/** An http(s) URL without credentials in it (they would end up in logs and records). */
export const webhookUrl = () =>
  hinted(
    z
      .string({ error: 'must be an http(s) URL' })
      .trim()
      .max(URL_MAX, { error: `must be at most ${URL_MAX} characters` })
      .superRefine((v, ctx) => {
        let u: URL;
        try {
          u = new URL(v);
        } catch {
          ctx.addIssue({ code: 'custom', message: 'must be an absolute http(s) URL, e.g. https://example.com/webhooks' });
          return;
        }
        if (u.protocol !== 'http:' && u.protocol !== 'https:') {
          ctx.addIssue({ code: 'custom', message: `must use http or https, not ${u.protocol.replace(/:$/, '')}` });
        } else if (u.username || u.password) {
          ctx.addIssue({ code: 'custom', message: 'must not contain a user name or password' });
        } else if (u.hash) {
          ctx.addIssue({ code: 'custom', message: 'must not contain a #fragment' });
        }
      }),
    { format: 'url' },
  );

/**
 * The events an endpoint subscribes to: names from the contract's list, or ['*'] for all.
 * Unknown names are refused all at once, each named. Duplicates are dropped.
 */
export const webhookEvents = () =>
  hinted(
    z
      .array(z.string({ error: 'must be an event name' }), { error: "is required: a list of event names, or ['*']" })
      .min(1, { error: "must list at least one event name, or '*'" })
      .max(EVENT_NAMES.length + 1, { error: `must list at most ${EVENT_NAMES.length} event names` })
      .superRefine((v, ctx) => {
        const unknown = [...new Set(v.filter((n) => n !== '*' && !EVENT_SET.has(n)))];
        if (unknown.length) {
          ctx.addIssue({
            code: 'custom',
            message: `unknown event name${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}; allowed: '*' or ${EVENT_NAMES.join(', ')}`,
          });
        } else if (v.includes('*') && v.some((n) => n !== '*')) {
          ctx.addIssue({ code: 'custom', message: "'*' already means every event; give it alone or list names" });
        }
      })
      .transform((v) => [...new Set(v)]),
    { values: ['*', ...EVENT_NAMES] },
  );

export const webhookEndpoint = z.object({
  id: uuid(),
  url: z.string().describe('URI'),
  secret: z.string().optional().describe('HMAC-SHA256 secret (whsec_...); present only in the creation response'),
  has_secret: z.boolean().optional().describe('present in the retrieval responses instead of secret'),
  events: z.array(z.string()),
  status: z.enum(WEBHOOK_ENDPOINT_STATUSES),
  created_at: timestamp(),
  updated_at: timestamp(),
});
export type WebhookEndpoint = z.infer<typeof webhookEndpoint>;

export const webhookEndpointCreate = z.strictObject({
  url: webhookUrl(),
  events: webhookEvents(),
});

export const webhookEndpointUpdate = z
  .strictObject({
    status: z.enum(WEBHOOK_ENDPOINT_STATUSES, { error: 'must be active or disabled' }).optional(),
    url: webhookUrl().optional(),
    events: webhookEvents().optional(),
  })
  .refine((b) => b.status !== undefined || b.url !== undefined || b.events !== undefined, {
    error: 'give at least one of status, url, events',
  });

export { DEFAULT_ROTATION_OVERLAP_S, MAX_ROTATION_OVERLAP_S };

export const webhookSecretRotate = z.strictObject({
  overlap_seconds: z
    .int({ error: `must be a whole number of seconds from 0 to ${MAX_ROTATION_OVERLAP_S}` })
    .min(0, { error: `must be a whole number of seconds from 0 to ${MAX_ROTATION_OVERLAP_S}` })
    .max(MAX_ROTATION_OVERLAP_S, { error: `must be at most ${MAX_ROTATION_OVERLAP_S} (7 days)` })
    .optional()
    .describe('how long deliveries stay signed with the previous secret too (default 86400 = 24 h; 0 ends it now)'),
});

export const webhookSecretRotation = webhookEndpoint.extend({
  previous_secret_expires_at: timestamp().describe('until then every delivery carries the signatures of both secrets'),
});

export const webhookDeliveryLog = z.object({
  id: uuid(),
  webhook_endpoint_id: uuid(),
  event_id: uuid().describe('the event delivered; equals the webhook-id header and the payload id'),
  charge_id: uuid().nullable(),
  event_name: z.string(),
  postback_url: z.string().describe('URI'),
  status: z.enum(DELIVERY_STATUSES),
  attempt: z.int(),
  max_attempts: z.int(),
  response_status_code: z.int().nullable(),
  response_body: z.string().nullable().describe('at most 2 KiB of the response body'),
  error_message: z.string().nullable(),
  next_retry_at: timestamp().nullable(),
  delivered_at: timestamp().nullable(),
  created_at: timestamp(),
});
export type WebhookDeliveryLog = z.infer<typeof webhookDeliveryLog>;

/** The body of every delivery (Standard Webhooks). */
export const webhookPayload = z.object({
  id: uuid(),
  type: z.enum(EVENT_NAMES),
  created_at: timestamp(),
  data: z.record(z.string(), z.unknown()),
});

const TAG = 'Webhooks';
const ENDPOINT_COLUMNS = ['id', 'url', 'events', 'status', 'has_secret', 'created_at'] as const;
const LOG_COLUMNS = ['id', 'event_name', 'status', 'attempt', 'max_attempts', 'response_status_code', 'next_retry_at', 'created_at'] as const;

/** How the CLI presents this resource (src/contract/presentation.ts). */
export const webhookPresentation: CliPresentation = {
  groups: {
    webhooks: 'Webhooks: endpoints, delivery logs, retries and a local listener',
  },
  fields: {
    url: 'HTTPS URL that receives the events',
    events: 'event types to receive (* for all; see `mpay trigger --list`)',
    event_name: 'only deliveries of this event type',
    webhook_endpoint_id: 'only deliveries to this endpoint',
    event_id: 'only deliveries of this event',
  },
};

export const webhookEndpoints = [
  endpoint({
    id: 'webhookEndpoints.create',
    method: 'POST',
    path: '/v1/postbacks/endpoints',
    summary: 'Create a webhook endpoint; its signing secret is returned only here',
    auth: 'secret',
    body: webhookEndpointCreate,
    response: webhookEndpoint,
    status: 201,
    message: 'Webhook endpoint created',
    tag: TAG,
    cli: {
      command: ['webhooks', 'create'],
      example: 'mpay webhooks create --url https://shop.example.com/webhooks --events charge.captured,charge.failed',
      columns: ['id', 'url', 'events', 'status', 'secret', 'created_at'],
    },
  }),
  endpoint({
    id: 'webhookEndpoints.list',
    method: 'GET',
    path: '/v1/postbacks/endpoints',
    summary: 'List the webhook endpoints',
    auth: 'secret',
    query: listQuery({ status: qEnum(WEBHOOK_ENDPOINT_STATUSES).optional() }),
    response: webhookEndpoint,
    list: true,
    message: 'Webhook endpoints retrieved',
    tag: TAG,
    cli: {
      command: ['webhooks', 'list'],
      example: 'mpay webhooks list --status active',
      columns: ENDPOINT_COLUMNS,
      importance: ['id', 'url', 'status', 'events', 'created_at', 'has_secret'],
    },
  }),
  endpoint({
    id: 'webhookEndpoints.get',
    method: 'GET',
    path: '/v1/postbacks/endpoints/{id}',
    summary: 'Retrieve a webhook endpoint (has_secret instead of the secret)',
    auth: 'secret',
    response: webhookEndpoint,
    message: 'Webhook endpoint retrieved',
    tag: TAG,
    cli: {
      command: ['webhooks', 'get'],
      example: 'mpay webhooks get 0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f -o json',
      columns: [...ENDPOINT_COLUMNS, 'updated_at'],
    },
  }),
  endpoint({
    id: 'webhookEndpoints.update',
    method: 'PATCH',
    path: '/v1/postbacks/endpoints/{id}',
    summary: 'Enable or disable a webhook endpoint, or change its URL or events',
    auth: 'secret',
    body: webhookEndpointUpdate,
    response: webhookEndpoint,
    message: 'Webhook endpoint updated',
    tag: TAG,
    cli: {
      command: ['webhooks', 'update'],
      example: 'mpay webhooks update 0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f --status disabled',
      columns: [...ENDPOINT_COLUMNS, 'updated_at'],
    },
  }),
  endpoint({
    id: 'webhookEndpoints.delete',
    method: 'DELETE',
    path: '/v1/postbacks/endpoints/{id}',
    summary: 'Delete a webhook endpoint; its pending retries are cancelled, its log is kept',
    auth: 'secret',
    response: webhookEndpoint,
    status: 200,
    message: 'Webhook endpoint deleted',
    tag: TAG,
    cli: {
      command: ['webhooks', 'delete'],
      example: 'mpay webhooks delete 0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f --yes',
      columns: ENDPOINT_COLUMNS,
    },
  }),
  endpoint({
    id: 'webhookEndpoints.rotateSecret',
    method: 'POST',
    path: '/v1/postbacks/endpoints/{id}/rotate-secret',
    summary:
      'Replace the signing secret; the new one is returned only here. Until previous_secret_expires_at every delivery is signed with both (webhook-signature carries two v1 entries)',
    auth: 'secret',
    body: webhookSecretRotate,
    response: webhookSecretRotation,
    status: 200,
    message: 'Webhook secret rotated',
    tag: TAG,
    cli: {
      command: ['webhooks', 'rotate-secret'],
      example: 'mpay webhooks rotate-secret 0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f --overlap-seconds 3600 --yes',
      columns: ['id', 'url', 'status', 'secret', 'previous_secret_expires_at'],
    },
  }),
  endpoint({
    id: 'webhookDeliveryLogs.list',
    method: 'GET',
    path: '/v1/postbacks/delivery-logs',
    summary: 'The delivery history: one record per attempt, newest first',
    auth: 'secret',
    query: listQuery({
      status: qEnum(DELIVERY_STATUSES).optional(),
      event_name: qEnum(EVENT_NAMES).optional(),
      webhook_endpoint_id: uuid().optional(),
      charge_id: uuid().optional(),
      event_id: uuid().optional(),
    }),
    response: webhookDeliveryLog,
    list: true,
    message: 'Delivery logs retrieved',
    tag: TAG,
    cli: {
      command: ['webhooks', 'logs'],
      example: 'mpay webhooks logs --status failed --event-name charge.captured',
      columns: LOG_COLUMNS,
      importance: ['id', 'event_name', 'status', 'response_status_code', 'created_at', 'attempt', 'next_retry_at', 'max_attempts'],
    },
  }),
  endpoint({
    id: 'webhookDeliveryLogs.retry',
    method: 'POST',
    path: '/v1/postbacks/delivery-logs/{id}/retry',
    summary: 'Redeliver the event of a log record now: records a new pending attempt',
    auth: 'secret',
    response: webhookDeliveryLog,
    status: 201,
    message: 'Redelivery scheduled',
    tag: TAG,
    cli: {
      command: ['webhooks', 'retry'],
      example: 'mpay webhooks retry 0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f',
      columns: LOG_COLUMNS,
    },
  }),
] as const;
