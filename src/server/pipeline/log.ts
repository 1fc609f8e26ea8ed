import { randomUUID } from 'node:crypto';
import type { AppDeps } from '../context.js';

/**
 * The request id: the client's own when it sent a sane one, else a new one (node:crypto's
 * randomUUID: the global crypto's loads Web Crypto, ~1 ms of an embedded command, bench/startup).
 */
export function requestIdOf(given: string | undefined): string {
  return given && /^[A-Za-z0-9._-]{8,64}$/.test(given) ? given : randomUUID();
}

/** The one line every request leaves in the request log: never a body or a header. */
export function logRequest(deps: Pick<AppDeps, 'log'>, requestId: string, method: string, path: string, status: number, started: number): void {
  deps.log?.({ level: 'info', request_id: requestId, method, path, status, ms: Math.round((performance.now() - started) * 10) / 10 });
}
