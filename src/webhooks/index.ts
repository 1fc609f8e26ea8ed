/** Public API of the webhook machinery (see docs/webhooks.md). */
export { DeliveryWorker, deliverDue, defaultSleep, resolveDeliveryOptions, type WorkerOptions, type DeliverDueOptions, type DeliverDueResult, type AttemptReport, type Sleep } from './worker.js';
export {
  RETRY_SCHEDULE_MS,
  MAX_ATTEMPTS,
  DEFAULT_TIMEOUT_MS,
  RESPONSE_BODY_LIMIT,
  JITTER_FRACTION,
  scheduledAt,
  type DeliveryOptions,
} from './delivery.js';
export { startListener, WebhookListener, type ListenOptions, type ListenEvent, type ReceivedEvent, type ForwardedEvent, type ErrorEvent, type ApiCall, type WebhookMessage } from './listen.js';
export { generateSecret, sign, webhookHeaders } from './signature.js';
export { blockedReason, guardedLookup, type Resolver } from './netguard.js';
