import { getRequestListener } from '@hono/node-server';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { incomingBodyLeftUnread, incomingGone, type App, type CoreAnswer, type CoreRequest } from './app.js';
import { readIncomingCapped } from './body.js';
import { capConnections, defaultConnectionLimits, openFileLimit, timeoutOptions, type ConnectionLimits } from './connections.js';
import type { Runtime } from './runtime.js';

export interface RunningServer {
  url: string;
  server: Server;
  close(): Promise<void>;
}

/**
 * A request of the node:http server as the pipeline sees it: headers and body straight from
 * Node's incoming message; a Web Request is built only if a handler asks for one.
 */
class NodeRequest implements CoreRequest {
  private webRequest: Request | undefined;
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

  bodyLeftUnread(): boolean {
    return incomingBodyLeftUnread(this.incoming, this.method);
  }

  header(name: string): string | undefined {
    const v = this.incoming.headers[name];
    return Array.isArray(v) ? v.join(', ') : v;
  }

  body(max: number): Promise<Uint8Array> {
    return readIncomingCapped(this.incoming, max);
  }

  web(): Request {
    if (!this.webRequest) {
      const headers = new Headers();
      const raw = this.incoming.rawHeaders;
      for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
      // the body (JSON endpoints only come this way) was read by the pipeline already
      this.webRequest = new Request(`http://${this.incoming.headers.host ?? 'localhost'}${this.incoming.url}`, { method: this.method, headers });
    }
    return this.webRequest;
  }
}

async function writeAnswer(res: ServerResponse, a: CoreAnswer): Promise<void> {
  if (!a.response) {
    a.headers['content-length'] = String(Buffer.byteLength(a.body));
    res.writeHead(a.status, a.headers);
    res.end(a.body);
    return;
  }
  const r = a.response;
  const body = r.body ? Buffer.from(await r.arrayBuffer()) : undefined;
  const headers: Record<string, string> = {};
  r.headers.forEach((v, k) => (headers[k] = v));
  if (body) headers['content-length'] = String(body.byteLength);
  res.writeHead(r.status, headers);
  res.end(body);
}

/**
 * The server's request listener. An API endpoint (a JSON body, no percent-encoded path) goes
 * straight into the app's pipeline (`app.core`), with no Web Request, Response, stream or
 * AbortSignal made for it; everything else (the checkout pages, probes, 404s, 405s, HEAD,
 * uploads) goes through Hono on @hono/node-server.
 */
export function requestListener(app: App, refused: (s: Socket) => boolean = () => false): (req: IncomingMessage, res: ServerResponse) => void {
  const hono = getRequestListener(app.fetch);
  return (req, res) => {
    // a connection over a cap was answered 503 when it opened: nothing it sends is served
    if (refused(req.socket)) {
      req.socket.destroy();
      return;
    }
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const route = url.charCodeAt(0) === 47 /* / */ ? app.core.match(req.method ?? 'GET', path) : undefined;
    if (!route || route.e.multipart) {
      void hono(req, res);
      return;
    }
    app.core
      .handle(new NodeRequest(req, req.method!, path, q < 0 ? '' : url.slice(q)), route)
      .then((a) => writeAnswer(res, a))
      .catch((err: unknown) => {
        // the pipeline answers every error itself: this is a write that failed (a closed socket)
        if (!res.headersSent) {
          res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
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
