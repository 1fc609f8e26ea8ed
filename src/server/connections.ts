/**
 * Bounds on the HTTP connections a server holds, so that slow or numerous clients cannot
 * starve the others:
 *
 * - time: a request's headers must arrive within `headersTimeoutMs`, the whole request (headers
 *   and body) within `requestTimeoutMs`; node:http answers `408` and closes the socket, checking
 *   every `checkIntervalMs` (node's default checks every 30 s, which let a slow client hold a
 *   socket half a minute past its deadline);
 * - count: at most `maxConnections` open at once in all, and at most `maxPerClient` from one
 *   peer (an IPv6 peer counts by its /64, which one host usually holds whole). A connection
 *   over either cap is answered `503` with `Retry-After` and closed at once, before any of its
 *   request is read, so the file descriptors left serve the clients within their share.
 *
 * The per-client count is per socket peer, not per X-Forwarded-For client: a peer in
 * `--trust-proxy` is a load balancer carrying many clients, and only the total applies to it.
 */
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { isIP, type Socket } from 'node:net';
import ipaddr from 'ipaddr.js';
import { blockListOf, ipIn, normalizeIp } from './auth.js';

export interface ConnectionLimits {
  /** ms for a request's headers to arrive (node:http `headersTimeout`) */
  headersTimeoutMs: number;
  /** ms for the whole request, headers and body, to arrive (node:http `requestTimeout`) */
  requestTimeoutMs: number;
  /** connections open at once, all peers together */
  maxConnections: number;
  /** connections open at once from one peer (0: no per-peer cap) */
  maxPerClient: number;
}

export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_PER_CLIENT = 64;
/** The total when the descriptor limit cannot be read, and the most it is set to by default. */
export const FALLBACK_MAX_CONNECTIONS = 1_000;
export const MAX_DEFAULT_CONNECTIONS = 10_000;
/** Descriptors kept for everything but client sockets: the database, its WAL, logs, webhook sockets. */
export const RESERVED_FDS = 64;

/** The soft limit on open files of this process (Linux /proc), or undefined where it cannot be read. */
export function openFileLimit(limitsFile = '/proc/self/limits'): number | undefined {
  try {
    const line = readFileSync(limitsFile, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
    if (soft === 'unlimited') return Number.MAX_SAFE_INTEGER;
    const n = Number(soft);
    return Number.isInteger(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The most connections the descriptor limit leaves room for: each may hold two descriptors
 * (its socket, and the temp file of an upload it streams), after RESERVED_FDS for the rest.
 */
export function connectionsRoom(fdLimit: number | undefined): number | undefined {
  return fdLimit === undefined ? undefined : Math.max(1, Math.floor((fdLimit - RESERVED_FDS) / 2));
}

export function defaultConnectionLimits(fdLimit: number | undefined): ConnectionLimits {
  return {
    headersTimeoutMs: DEFAULT_HEADERS_TIMEOUT_MS,
    requestTimeoutMs: DEFAULT_REQUEST_TIMEOUT_MS,
    maxConnections: Math.min(MAX_DEFAULT_CONNECTIONS, connectionsRoom(fdLimit) ?? FALLBACK_MAX_CONNECTIONS),
    maxPerClient: DEFAULT_MAX_PER_CLIENT,
  };
}

/** The node:http server options that carry the time bounds. */
export function timeoutOptions(l: ConnectionLimits): { headersTimeout: number; requestTimeout: number; connectionsCheckingInterval: number } {
  return {
    headersTimeout: l.headersTimeoutMs,
    requestTimeout: l.requestTimeoutMs,
    // a deadline is enforced within a quarter of the shorter bound (at most 1 s late)
    connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(Math.min(l.headersTimeoutMs, l.requestTimeoutMs) / 4))),
  };
}

const OVER_CAP = Buffer.from(
  'HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json; charset=utf-8\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: 95\r\n\r\n' +
    '{"success":false,"message":"Too many connections; retry shortly","error":"service_unavailable"}',
);

/** The key a peer's connections are counted under: its address, or an IPv6 peer's /64. */
export function peerKey(address: string): string {
  const ip = normalizeIp(address);
  if (isIP(ip) !== 6) return ip;
  const prefix = ipaddr.IPv6.parse(ip.replace(/%.*$/, '')).toByteArray().slice(0, 8);
  return `${ipaddr.fromByteArray([...prefix, 0, 0, 0, 0, 0, 0, 0, 0]).toString()}/64`;
}

/**
 * Counts the server's connections and answers those over a cap with 503 (see above). Answers
 * the test the request listener asks: was this socket refused (its request is not served).
 */
export function capConnections(server: Server, limits: ConnectionLimits, trustProxy: readonly string[] = []): (socket: Socket) => boolean {
  const proxies = trustProxy.length ? blockListOf([...trustProxy]) : null;
  const perPeer = new Map<string, number>();
  let open = 0;
  const refused = new WeakSet<Socket>();
  server.prependListener('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    const key = address === undefined || limits.maxPerClient <= 0 || (proxies && ipIn(proxies, address)) ? undefined : peerKey(address);
    const mine = key === undefined ? 0 : (perPeer.get(key) ?? 0);
    if (open >= limits.maxConnections || (key !== undefined && mine >= limits.maxPerClient)) {
      refused.add(socket);
      socket.end(OVER_CAP);
      // whatever the peer sends is not read; the socket goes once the answer is out, or after 1 s
      socket.pause();
      socket.setTimeout(1_000, () => socket.destroy());
      socket.once('finish', () => socket.destroy());
      return;
    }
    open++;
    if (key !== undefined) perPeer.set(key, mine + 1);
    socket.once('close', () => {
      open--;
      if (key === undefined) return;
      const n = (perPeer.get(key) ?? 1) - 1;
      if (n <= 0) perPeer.delete(key);
      else perPeer.set(key, n);
    });
  });
  return (socket) => refused.has(socket);
}
