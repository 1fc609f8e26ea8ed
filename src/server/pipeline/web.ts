import { readCapped } from '../body.js';
import { CLIENT_CLOSED_STATUS } from '../errors.js';
import type { Answer, CoreRequest } from './request.js';

/** A Web Request (`app.fetch`: tests, the SDK's embedded transport given a fetch handler) as the pipeline sees it. */
export class WebRequest implements CoreRequest {
  readonly method: string;
  readonly path: string;
  readonly search: string;
  readonly peerAddress = undefined;
  private readonly url: URL;

  constructor(private readonly req: Request) {
    this.url = new URL(req.url);
    this.method = req.method;
    this.path = this.url.pathname;
    this.search = this.url.search;
  }

  header(name: string): string | undefined {
    return this.req.headers.get(name) ?? undefined;
  }

  body(max: number): Promise<Uint8Array> {
    return readCapped(this.req, max);
  }

  async *stream(): AsyncIterable<Uint8Array> {
    if (!this.req.body) return;
    const reader = this.req.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        yield value;
      }
    } finally {
      reader.releaseLock();
    }
  }

  origin(): string {
    return this.url.origin;
  }

  gone(): boolean {
    return this.req.signal?.aborted === true;
  }
}

/** The pipeline's answer as a Web Response. */
export function toWebResponse(a: Answer): Response {
  return new Response(a.status === CLIENT_CLOSED_STATUS ? null : (a.body as BodyInit | null), { status: a.status, headers: a.headers });
}
