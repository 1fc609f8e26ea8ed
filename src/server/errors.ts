import { ERROR_STATUS, type ErrorCode, type ErrorDetail } from '../contract/errors.js';

/**
 * What an error tells the client besides its envelope; the pipeline makes the headers of it
 * (src/server/pipeline/errors.ts), so a service that throws one says nothing of HTTP.
 */
export interface ErrorHints {
  /** seconds the client should wait before trying again (Retry-After) */
  retryAfterS?: number;
  /** the methods the path takes (Allow, on a 405) */
  allow?: readonly string[];
  /** how to authenticate (WWW-Authenticate, on a 401) */
  challenge?: string;
}

/** An error the client caused or may see: becomes the error envelope with its status. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    readonly hints: ErrorHints = {},
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }
}

export const notFound = (what: string) => new ApiError('not_found', `${what} not found`);

export const invalid = (field: string, message: string) =>
  new ApiError('validation_error', `${field}: ${message}`, [{ field, message }]);

/**
 * The client went away before its request was answered (nginx's 499): nobody is left to read
 * an answer, so it is logged as 499 at info, never as an internal error with a stack.
 */
export class ClientClosedError extends Error {
  constructor() {
    super('the client closed the request');
    this.name = 'ClientClosedError';
  }
}

/** The status logged for a request whose client closed the connection before the answer. */
export const CLIENT_CLOSED_STATUS = 499;
