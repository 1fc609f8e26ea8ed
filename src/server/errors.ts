import { ERROR_STATUS, type ErrorCode, type ErrorDetail } from '../contract/errors.js';

/** An error the client caused or may see: becomes the error envelope with its status. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }
}

export const notFound = (what: string) => new ApiError('not_found', `${what} not found`);

export const invalid = (field: string, message: string) =>
  new ApiError('validation_error', `${field}: ${message}`, [{ field, message }]);
