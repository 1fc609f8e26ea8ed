import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { App } from './app.js';
import { CLIENT_CLOSED_STATUS } from './errors.js';
import { byteLength, JSON_TYPE, type Answer, type CoreRequest } from './pipeline/request.js';
import { readIncomingCapped } from './body.js';
import { capConnections, defaultConnectionLimits, openFileLimit, timeoutOptions, type ConnectionLimits } from './connections.js';
import type { Runtime } from './runtime.js';
import type { AppDeps } from './context.js';
import { requestIdOf } from './pipeline/log.js';

export interface RunningServer {
  url: string;
  server: Server;
  close(): Promise<void>;
}

/**
 * The client is gone: its socket closed before the answer was ready. Whatever the handler made
 * of the cut-off request is logged as 499.
 */
function incomingGone(incoming: IncomingMessage): boolean {
  return incoming.socket?.destroyed === true || (incoming.destroyed && !incoming.complete);
}

/**
 * A request of the node:http server as the pipeline sees it: headers and body straight from
 * Node's incoming message (no Web Request, stream or AbortSignal made for it).
 */
class NodeRequest implements CoreRequest {
  constructor(
    private readonly incoming: IncomingMessage,
    readonly method: string,
    readonly path: string,
    readonly search: string,
  ) {}

  get peerAddress(): string | undefined {
    return this.incoming.socket.remoteAddress;
  }

  gone(): boolean {
    return incomingGone(this.incoming);
  }

  header(name: string): string | undefined {
    const v = this.incoming.headers[name];
    return Array.isArray(v) ? v.join(', ') : v;
  }

  body(max: number): Promise<Uint8Array> {
    return readIncomingCapped(this.incoming, max);
  }

  stream(): AsyncIterable<Uint8Array> {
    return this.incoming;
  }

  origin(): string {
    return `http://${this.incoming.headers.host ?? 'localhost'}`;
  }
}

/**
 * The most of a request's body, by its Content-Length, that is read and thrown away after an
 * early answer (an upload's most and its framing, with room to spare).
 */
const DRAIN_MAX = 12 * 1024 * 1024;

/**
 * Writes the pipeline's answer. When it is ready before the whole body arrived (a refusal before
 * or while reading it), a client still sending would break its pipe writing into a closed
 * socket and never read the answer: a body of a declared length up to DRAIN_MAX is read to its
 * end and thrown away first (the request deadline still bounds it), and the connection stays
 * open; any other (chunked, or larger) is answered with `Connection: close`.
 */
function writeAnswer(res: ServerResponse, a: Answer): void {
  if (a.status === CLIENT_CLOSED_STATUS) {
    res.destroy();
    return;
  }
  const headers = a.headers;
  if (a.body !== null && !Object.keys(headers).some((k) => k.toLowerCase() === 'content-length')) headers['content-length'] = String(byteLength(a.body));
  const send = () => {
    res.writeHead(a.status, headers);
    res.end(a.body ?? undefined);
  };
  const req = res.req;
  if (req.complete || req.method === 'GET' || req.method === 'HEAD') {
    send();
    return;
  }
  const declared = Number(req.headers['content-length'] ?? Number.NaN);
  if (!Number.isFinite(declared) || declared > DRAIN_MAX || req.destroyed) {
    headers.Connection = 'close';
    send();
    return;
  }
  req.removeAllListeners('data');
  req.on('data', () => undefined);
  req.once('end', send);
  req.resume();
}

export interface ListenerOptions {
  /** the runtime's log: an answer that cannot be written is logged here */
  log?: AppDeps['log'];
  /** a connection over a cap, answered 503 when it opened: nothing it sends is served */
  refused?: (s: Socket) => boolean;
}

/**
 * The server's request listener: every request, endpoint or page, goes through the app's
 * pipeline (src/server/pipeline) and its answer is written straight to the socket. The pipeline
 * answers and logs every error of its own; an answer that cannot be written (a header Node
 * refuses, say) is logged here with its request id and, when nothing was sent yet, answered 500.
 */
export function requestListener(app: App, { log, refused = () => false }: ListenerOptions = {}): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    // a connection over a cap was answered 503 when it opened: nothing it sends is served
    if (refused(req.socket)) {
      req.socket.destroy();
      return;
    }
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    let answer: Answer | undefined;
    app
      .handle(new NodeRequest(req, req.method ?? 'GET', q < 0 ? url : url.slice(0, q), q < 0 ? '' : url.slice(q)))
      .then((a) => {
        answer = a;
        writeAnswer(res, a);
      })
      .catch((err: unknown) => {
        const given = answer?.headers['X-Request-Id'];
        const requestId = typeof given === 'string' ? given : requestIdOf(req.headers['x-request-id'] as string | undefined);
        const e = err as Error | undefined;
        log?.({ level: 'error', request_id: requestId, error: e?.name, message: `answer not written: ${e?.message}`, stack: e?.stack });
        if (!res.headersSent) {
          res.writeHead(500, { 'content-type': JSON_TYPE, 'X-Request-Id': requestId });
          res.end(JSON.stringify({ success: false, message: 'Internal error', error: 'internal_error' }));
        } else res.destroy(e);
      });
  };
}

/**
 * Serves the app over HTTP on host:port (port 0 picks a free one), within `limits` (time to send
 * a request, connections in all and per peer: connections.ts); unset parts take their defaults.
 */
export function listen(rt: Runtime, host: string, port: number, limits: Partial<ConnectionLimits> = {}): Promise<RunningServer> {
  const l = { ...defaultConnectionLimits(openFileLimit()), ...limits };
  return new Promise((resolve, reject) => {
    let refused: (s: Socket) => boolean = () => false;
    const server = createServer(timeoutOptions(l), requestListener(rt.app, { log: rt.deps.log, refused: (s) => refused(s) }));
    refused = capConnections(server, l, rt.deps.trustProxy);
    server.once('error', reject);
    server.listen(port, host, () => {
      const info = server.address() as AddressInfo;
      const h = info.family === 'IPv6' ? `[${info.address}]` : info.address;
      resolve({
        url: `http://${h}:${info.port}`,
        server,
        close: () =>
          new Promise<void>((res) => {
            server.close(() => res());
            server.closeIdleConnections();
          }),
      });
    });
  });
}
