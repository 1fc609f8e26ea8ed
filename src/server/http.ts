import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { App } from './app.js';
import { CLIENT_CLOSED_STATUS } from './errors.js';
import { byteLength, JSON_TYPE, type Answer, type CoreRequest } from './pipeline/request.js';
import { readIncomingCapped } from './body.js';
import { capConnections, defaultConnectionLimits, openFileLimit, timeoutOptions, type ConnectionLimits } from './connections.js';
import type { Runtime } from './runtime.js';

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

  /**
   * The body has not all arrived although the answer is ready (a refusal before or while
   * reading it). The server would discard the rest only up to a point and then break the socket
   * under a keep-alive client, so the answer says `Connection: close` instead.
   */
  bodyLeftUnread(): boolean {
    return !this.incoming.complete && this.method !== 'GET' && this.method !== 'HEAD';
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

function writeAnswer(res: ServerResponse, a: Answer): void {
  if (a.status === CLIENT_CLOSED_STATUS) {
    res.destroy();
    return;
  }
  const headers = a.headers;
  if (a.body !== null && !Object.keys(headers).some((k) => k.toLowerCase() === 'content-length')) headers['content-length'] = String(byteLength(a.body));
  res.writeHead(a.status, headers);
  res.end(a.body ?? undefined);
}

/**
 * The server's request listener: every request, endpoint or page, goes through the app's
 * pipeline (src/server/pipeline) and its answer is written straight to the socket.
 */
export function requestListener(app: App, refused: (s: Socket) => boolean = () => false): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    // a connection over a cap was answered 503 when it opened: nothing it sends is served
    if (refused(req.socket)) {
      req.socket.destroy();
      return;
    }
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    app
      .handle(new NodeRequest(req, req.method ?? 'GET', q < 0 ? url : url.slice(0, q), q < 0 ? '' : url.slice(q)))
      .then((a) => writeAnswer(res, a))
      .catch((err: unknown) => {
        // the pipeline answers every error itself: this is a write that failed (a closed socket)
        if (!res.headersSent) {
          res.writeHead(500, { 'content-type': JSON_TYPE });
          res.end(JSON.stringify({ success: false, message: 'Internal error', error: 'internal_error' }));
        } else res.destroy(err as Error);
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
    const server = createServer(timeoutOptions(l), requestListener(rt.app, (s) => refused(s)));
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
