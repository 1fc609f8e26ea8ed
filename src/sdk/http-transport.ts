import { Readable } from 'node:stream';
import { ConnectionError } from './errors.js';
import { progressChunks, type Transport, type TransportRequest, type TransportResponse } from './transport.js';

/** HTTP(S) to a remote deployment with undici (loaded on first use). */
export class HttpTransport implements Transport {
  readonly target: string;
  private readonly base: string;

  constructor(baseUrl: string, private readonly timeoutMs = 30_000) {
    let u: URL;
    try {
      u = new URL(baseUrl);
    } catch {
      throw new ConnectionError(`base URL is not a valid URL: ${baseUrl}`);
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ConnectionError(`base URL must be http:// or https://, got ${baseUrl}`);
    this.base = baseUrl.replace(/\/+$/, '');
    this.target = this.base;
  }

  async send(req: TransportRequest): Promise<TransportResponse> {
    const undici = await import('undici');
    // undici is CommonJS: bundled ESM sees its exports on `default`
    const request = (undici.request ?? (undici as unknown as { default: typeof undici }).default.request) as typeof undici.request;
    try {
      const res = await request(this.base + req.path, {
        method: req.method as 'GET',
        headers: req.headers,
        body:
          req.body === undefined
            ? undefined
            : typeof req.body === 'string'
              ? req.body
              : req.onBodyProgress
                ? Readable.from(progressChunks(req.body, req.onBodyProgress), { objectMode: false })
                : Buffer.from(req.body),
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      const body = new Uint8Array(await res.body.arrayBuffer());
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
      return { status: res.statusCode, headers, body };
    } catch (e) {
      const err = e as { code?: string; message?: string };
      throw new ConnectionError(`could not reach ${this.base}: ${err.code ?? ''} ${err.message ?? ''}`.replace(/\s+/g, ' ').trim(), e);
    }
  }
}
