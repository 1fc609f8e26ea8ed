/** Stable snake_case error codes and their HTTP status (the contract's wire conventions). */
export const ERROR_STATUS = {
  invalid_json: 400,
  validation_error: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  idempotency_conflict: 409,
  conflict: 409,
  invalid_state: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  insufficient_funds: 422,
  card_declined: 422,
  link_expired: 422,
  link_inactive: 422,
  link_exhausted: 422,
  invalid_token: 422,
  pin_required: 422,
  invalid_pin: 422,
  pin_locked: 422,
  business_rule: 422,
  submerchant_not_approved: 422,
  acquirer_unavailable: 422,
  storage_quota_exceeded: 422,
  // the wallet's balance is below zero (a chargeback took more than it held): withdrawals and
  // anticipations wait until settlements bring it back to zero
  negative_balance: 422,
  // a PIX is returned (a devolução) up to 90 days after it was paid (src/domain/pixReturns.ts)
  refund_window_closed: 422,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

export interface ErrorDetail {
  field: string;
  message: string;
}
