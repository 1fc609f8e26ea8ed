export interface ErrorDetail {
  field: string;
  message: string;
}

/** Base class of every error the SDK throws. */
export class MpayError extends Error {
  override name = 'MpayError';
}

/** The service answered with an error envelope. */
export class ApiError extends MpayError {
  override name = 'ApiError';
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    readonly details: ErrorDetail[] = [],
    readonly requestId?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** The key is missing, wrong, inactive or not allowed (401 or 403). */
export class AuthenticationError extends ApiError {
  override name = 'AuthenticationError';
}

/** Input refused, before sending (client-side checks) or by the service; `field` names it. */
export class ValidationError extends ApiError {
  override name = 'ValidationError';
  constructor(
    message: string,
    readonly field: string,
    details: ErrorDetail[] = [{ field, message }],
    status = 400,
    requestId?: string,
  ) {
    super(message, status, 'validation_error', details, requestId);
  }
}

/** The service could not be reached (DNS, refused connection, timeout, TLS). */
export class ConnectionError extends MpayError {
  override name = 'ConnectionError';
  constructor(
    message: string,
    cause?: unknown,
  ) {
    super(message, { cause });
  }
}
