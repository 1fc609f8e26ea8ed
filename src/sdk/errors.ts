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

/**
 * Something answered, but not the mpay API: the body is not its JSON envelope (a web server's
 * page, another service's JSON, a proxy's error). The mpay service was not reached.
 */
export class NotMpayApiError extends ConnectionError {
  override name = 'NotMpayApiError';
  constructor(
    /** the base URL (or embedded target) that answered */
    readonly target: string,
    readonly method: string,
    readonly path: string,
    readonly httpStatus: number,
    readonly contentType: string | undefined,
    /** the start of what it answered */
    readonly excerpt: string,
  ) {
    super(`${target} is not an mpay API: ${method} ${path} answered HTTP ${httpStatus} (${contentType ?? 'no content type'}) ${excerpt}`);
  }
}
