import type { DirectHandler } from '../sdk/embeddedTransport.js';
import type { TransportRequest, TransportResponse } from '../sdk/transport.js';
import type { App } from './app.js';
import { capInMemory } from './body.js';
import type { Answer, CoreRequest } from './pipeline/request.js';

const EMPTY = new Uint8Array(0);

/**
 * A request of the embedded service as the pipeline sees it: headers and body straight from the
 * SDK's transport request (an upload sent with progress: its chunks, each reported as the
 * handler reads it).
 */
class InProcessRequest implements CoreRequest {
  readonly peerAddress = undefined;
  constructor(
    readonly method: string,
    readonly path: string,
    readonly search: string,
    private readonly headers: Record<string, string>,
    private readonly bytes: Uint8Array,
    private readonly originUrl: string,
    private readonly chunks: AsyncIterable<Uint8Array> | undefined,
  ) {}

  header(name: string): string | undefined {
    return this.headers[name];
  }

  body(max: number): Promise<Uint8Array> {
    return capInMemory(this.bytes, this.headers['content-length'], max);
  }

  async *stream(): AsyncIterable<Uint8Array> {
    if (this.chunks) yield* this.chunks;
    else yield this.bytes;
  }

  origin(): string {
    return this.originUrl;
  }

  gone(): boolean {
    return false;
  }
}

function toTransport(a: Answer): TransportResponse {
  const headers: Record<string, string> = {};
  for (const k in a.headers) headers[k.toLowerCase()] = a.headers[k]!;
  if (a.body === null) return { status: a.status, headers, body: EMPTY };
  const bytes = typeof a.body === 'string' ? Buffer.from(a.body) : a.body;
  return { status: a.status, headers, body: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) };
}

/**
 * Requests of the embedded service answered by the app's pipeline as the node:http server's
 * are: no Web Request, Response or stream is built, and Node's fetch implementation (undici,
 * costly to load: `npm run bench:startup` times the embedded read) is not loaded by an embedded
 * command.
 */
export function inProcessHandler(app: App, origin: string): DirectHandler {
  return (req: TransportRequest, chunks?: AsyncIterable<Uint8Array>) => {
    const q = req.path.indexOf('?');
    const headers: Record<string, string> = {};
    for (const k in req.headers) headers[k.toLowerCase()] = req.headers[k]!;
    const bytes = req.body === undefined ? EMPTY : typeof req.body === 'string' ? Buffer.from(req.body) : req.body;
    const core = new InProcessRequest(req.method, q < 0 ? req.path : req.path.slice(0, q), q < 0 ? '' : req.path.slice(q), headers, bytes, origin, chunks);
    return app.handle(core).then(toTransport);
  };
}
