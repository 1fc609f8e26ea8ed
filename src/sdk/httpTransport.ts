import { ConnectionError } from './errors.js';
import { progressChunks, type Transport, type TransportRequest, type TransportResponse } from './transport.js';

/** HTTP(S) to a remote deployment with node:http(s) (loaded on first use). */
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
    // node:http rather than undici: undici is slow to load, and its idle keep-alive socket and
    // timers hold the process after the answer (`npm run bench:startup`, the remote read); the global agents
    // keep connections alive for a run of requests and let the process exit as soon as it is done.
    const url = new URL(this.base + req.path);
    const { request } = url.protocol === 'https:' ? await import('node:https') : await import('node:http');
    const body = req.body === undefined ? undefined : typeof req.body === 'string' ? Buffer.from(req.body) : req.body;
    const headers: Record<string, string> = { ...req.headers };
    if (body !== undefined && !Object.keys(headers).some((k) => k.toLowerCase() === 'content-length')) headers['content-length'] = String(body.byteLength);
    try {
      return await new Promise<TransportResponse>((resolve, reject) => {
        const r = request(url, { method: req.method, headers, timeout: this.timeoutMs }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            const out: Record<string, string> = {};
            for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
            resolve({ status: res.statusCode ?? 0, headers: out, body: new Uint8Array(Buffer.concat(chunks)) });
          });
        });
        r.on('timeout', () => r.destroy(Object.assign(new Error(`no answer within ${this.timeoutMs / 1000} s`), { code: 'ETIMEDOUT' })));
        r.on('error', reject);
        if (body === undefined) r.end();
        else if (req.onBodyProgress) {
          // the file's bytes as they leave, for a progress bar
          void (async () => {
            for await (const chunk of progressChunks(body, req.onBodyProgress!)) {
              if (!r.write(chunk)) await new Promise<void>((ok) => r.once('drain', ok));
            }
            r.end();
          })().catch(reject);
        } else r.end(body);
      });
    } catch (e) {
      const err = e as { code?: string; message?: string };
      // Node's message names the code already (connect ECONNREFUSED 127.0.0.1:1): once is enough
      const why = err.code && !err.message?.includes(err.code) ? `${err.code} ${err.message ?? ''}` : (err.message ?? err.code ?? '');
      throw new ConnectionError(`could not reach ${this.base}: ${why}`.replace(/\s+/g, ' ').trim(), e);
    }
  }
}
