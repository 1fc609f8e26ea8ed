/** Event names of the contract. An endpoint subscribes to a list of these, or to '*'. */
export const EVENT_NAMES = [
  'charge.pending',
  'charge.authorized',
  'charge.captured',
  'charge.failed',
  'charge.refunded',
  'charge.voided',
  'charge.expired',
  'receivable.paid',
  'withdrawal.pending',
  'withdrawal.completed',
  'withdrawal.failed',
  'anticipation.approved',
  'anticipation.refused',
  'submerchant.created',
  'submerchant.under_review',
  'submerchant.approved',
  'submerchant.rejected',
  'document.created',
  'document.replaced',
  'payment_link.created',
  'payment_link.paid',
  'chargeback.created',
  'chargeback.under_review',
  'chargeback.accepted',
  'chargeback.won',
  'chargeback.lost',
] as const;
export type EventName = (typeof EVENT_NAMES)[number];

/** The User-Agent of a webhook delivery (and of the CLI listener's forward to a local app). */
export const WEBHOOK_USER_AGENT = 'mpay-webhooks/1';

/** Longest overlap of a webhook secret rotation (7 days); the default is 24 h. */
export const MAX_ROTATION_OVERLAP_S = 7 * 86_400;
export const DEFAULT_ROTATION_OVERLAP_S = 86_400;
