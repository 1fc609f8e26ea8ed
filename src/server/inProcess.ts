import type { DirectHandler } from '../sdk/embeddedTransport.js';
import type { TransportRequest, TransportResponse } from '../sdk/transport.js';
import type { App, CoreAnswer, CoreRequest } from './app.js';
import { capInMemory } from './body.js';

const EMPTY = new Uint8Array(0);

/**
 * A request of the embedded service as the pipeline sees it: headers and body straight from the
 * SDK's transport request; a Web Request is built only if a handler asks for one.
 */
class InProcessRequest implements CoreRequest {
  readonly peerAddress = undefined;
  private webRequest: Request | undefined;
  constructor(
    readonly method: string,
    readonly path: string,
    readonly search: string,
    private readonly headers: Record<string, string>,
    private readonly bytes: Uint8Array,
    private readonly origin: string,
  ) {}

  header(name: string): string | undefined {
    return this.headers[name];
  }

  body(max: number): Promise<Uint8Array> {
    return capInMemory(this.bytes, this.headers['content-length'], max);
  }

  web(): Request {
    this.webRequest ??= new Request(this.origin + this.path + this.search, { method: this.method, headers: this.headers });
    return this.webRequest;
  }

  gone(): boolean {
    return false;
  }

  bodyLeftUnread(): boolean {
    return false;
  }
}

async function toTransport(a: CoreAnswer): Promise<TransportResponse> {
  const headers: Record<string, string> = {};
  if (a.response) {
    a.response.headers.forEach((v, k) => (headers[k] = v));
    return { status: a.status, headers, body: new Uint8Array(await a.response.arrayBuffer()) };
  }
  for (const k in a.headers) headers[k.toLowerCase()] = a.headers[k]!;
  const bytes = Buffer.from(a.body);
  return { status: a.status, headers, body: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) };
}

/**
 * API requests of the embedded service answered through the app's pipeline (`app.core`), as
 * the node:http server's direct path does: no Web Request, Response or stream is built, and
 * Node's fetch implementation (undici, ~20 ms to load) is not loaded by an embedded command.
 * Uploads (multipart), requests sent with upload progress and whatever is not an API endpoint
 * give undefined: the transport sends those through `app.fetch`, as before.
 */
export function inProcessHandler(app: App, origin: string): DirectHandler {
  return (req: TransportRequest) => {
    if (req.onBodyProgress) return undefined;
    const q = req.path.indexOf('?');
    const path = q < 0 ? req.path : req.path.slice(0, q);
    const route = app.core.match(req.method, path);
    if (!route || route.e.multipart) return undefined;
    const headers: Record<string, string> = {};
    for (const k in req.headers) headers[k.toLowerCase()] = req.headers[k]!;
    const bytes = req.body === undefined ? EMPTY : typeof req.body === 'string' ? Buffer.from(req.body) : req.body;
    return app.core.handle(new InProcessRequest(req.method, path, q < 0 ? '' : req.path.slice(q), headers, bytes, origin), route).then(toTransport);
  };
}
