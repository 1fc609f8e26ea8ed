import { InvalidTransitionError } from '../../domain/lifecycle.js';
import { StoreUnavailable } from '../../store/db.js';
import type { AppDeps } from '../context.js';
import { ApiError } from '../errors.js';
import { errorBody } from '../idempotency.js';
import { jsonAnswer, type Answer } from './request.js';

/**
 * Any error as what the client is told: an ApiError as it is; a move the lifecycle does not
 * allow as 409 invalid_state; a busy store as 503; anything else logged with the request id
 * and answered 500 internal_error with no internals.
 */
export function toApiError(err: unknown, deps: Pick<AppDeps, 'log'>, requestId: string): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof InvalidTransitionError) return new ApiError('invalid_state', err.message);
  const code = (err as { code?: string })?.code;
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_SNAPSHOT' || err instanceof StoreUnavailable) {
    return new ApiError('service_unavailable', 'The service is busy; retry shortly', undefined, { retryAfterS: 1 });
  }
  deps.log?.({ level: 'error', request_id: requestId, error: (err as Error)?.name, message: (err as Error)?.message, stack: (err as Error)?.stack });
  return new ApiError('internal_error', `Internal error; quote request id ${requestId} to support`);
}

/** The error envelope of an error, with its status and the headers of its hints (Retry-After, Allow, WWW-Authenticate). */
export function errorAnswer(err: unknown, deps: Pick<AppDeps, 'log'>, requestId: string): Answer {
  const e = toApiError(err, deps, requestId);
  const headers: Record<string, string> = {};
  if (e.hints.retryAfterS !== undefined) headers['Retry-After'] = String(e.hints.retryAfterS);
  if (e.hints.allow) headers.Allow = e.hints.allow.join(', ');
  if (e.hints.challenge) headers['WWW-Authenticate'] = e.hints.challenge;
  return jsonAnswer(e.status, errorBody(e), headers);
}
