import { progressChunks, type Transport, type TransportRequest, type TransportResponse } from './transport.js';

export type FetchHandler = (req: Request) => Response | Promise<Response>;
/**
 * Answers a request without Web Request and Response objects (the service's own in-process
 * path), or gives undefined for the requests it leaves to the FetchHandler.
 */
export type DirectHandler = (req: TransportRequest, chunks?: AsyncIterable<Uint8Array>) => Promise<TransportResponse> | undefined;

/**
 * Calls the service's request handler in-process: the same Request and Response objects an
 * HTTP server would see, without a socket; or, when given one, the service's direct handler,
 * which answers the same bytes without building them.
 */
export class EmbeddedTransport implements Transport {
  constructor(
    private readonly handler: FetchHandler,
    readonly target: string = 'embedded',
    /** origin the embedded app believes it is served at (links it hands out) */
    private readonly origin: string = 'http://127.0.0.1:4010',
    private readonly direct?: DirectHandler,
  ) {}

  async send(req: TransportRequest): Promise<TransportResponse> {
    // a body sent with progress goes as chunks, each reported as the service takes it
    const answer = this.direct?.(req, req.onBodyProgress && req.body instanceof Uint8Array ? progressChunks(req.body, req.onBodyProgress) : undefined);
    if (answer) return answer;
    let body: BodyInit | undefined = req.body === undefined ? undefined : typeof req.body === 'string' ? req.body : Buffer.from(req.body);
    if (req.onBodyProgress && req.body instanceof Uint8Array) {
      // a pull stream: each chunk is reported when the handler reads it
      const it = progressChunks(req.body, req.onBodyProgress);
      body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const next = await it.next();
          if (next.done) controller.close();
          else controller.enqueue(new Uint8Array(next.value));
        },
      });
    }
    const res = await this.handler(
      new Request(this.origin + req.path, {
        method: req.method,
        headers: req.headers,
        body,
        ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
      } as RequestInit),
    );
    const headers: Record<string, string> = {};
    res.headers.forEach((v, k) => (headers[k] = v));
    return { status: res.status, headers, body: new Uint8Array(await res.arrayBuffer()) };
  }
}
