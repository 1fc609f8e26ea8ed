/**
 * The library behind `mpay webhooks listen`: a local receiver on 127.0.0.1 that registers a
 * temporary webhook endpoint on the current target, verifies each arriving message with the
 * public Standard Webhooks verifier, optionally forwards it (raw body + webhook-* headers) to
 * the developer's app, and deletes the endpoint on close().
 *
 * It reports what happens as typed events, either through EventEmitter listeners
 * ('received', 'forwarded', 'error') or as an async iterator of `ListenEvent`s:
 *
 *   const l = await startListener({ client, events: ['charge.captured'], forwardTo: 'http://localhost:3000/hooks' });
 *   for await (const ev of l) if (ev.type === 'received') console.log(ev.event?.type, ev.verified);
 *
 * An 'error' event is only emitted to EventEmitter listeners when there is at least one, so an
 * unobserved error never throws; the iterator always gets it.
 *
 * Reply to the service: 400 when the signature does not verify; otherwise 200, or, when
 * forwarding, the app's own status (502 when the app cannot be reached), so that a failing
 * app sees the service's retries just as it would in production.
 */
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { Webhook } from 'standardwebhooks';
import { WEBHOOK_USER_AGENT } from '../contract/events.js';
import type { MpayClient } from '../sdk/client.js';

/** What the listener needs of the SDK client: answers whatever their status (it reports refusals itself). */
export type ListenerClient = Pick<MpayClient, 'exchange'>;

export interface ListenOptions {
  /** how to reach the service: the CLI's SDK client */
  client: ListenerClient;
  /** event names to subscribe to; default ['*'] */
  events?: string[];
  /** interface to listen on; default 127.0.0.1 */
  host?: string;
  /** port to listen on; default 0 (any free port) */
  port?: number;
  /** URL to register instead of the local one (a tunnel in front of this receiver) */
  publicUrl?: string;
  /** forward each verified message to this URL */
  forwardTo?: string;
  /** time limit of a forward; default 10 s (the service gives the whole exchange 15 s) */
  forwardTimeoutMs?: number;
  /** largest message accepted; default 1 MiB */
  maxBodyBytes?: number;
}

export interface WebhookMessage {
  id: string;
  type: string;
  created_at: string;
  data: Record<string, unknown>;
}

export interface ReceivedEvent {
  type: 'received';
  /** the parsed message; null when the body is not a JSON message */
  event: WebhookMessage | null;
  verified: boolean;
  /** why verification failed */
  error?: string;
  webhookId: string | null;
  /** raw body as received */
  body: string;
  receivedAt: string;
}

export interface ForwardedEvent {
  type: 'forwarded';
  eventId: string | null;
  /** the app's status code; null when it could not be reached */
  status: number | null;
  error?: string;
  durationMs: number;
}

export interface ErrorEvent {
  type: 'error';
  error: Error;
}

export type ListenEvent = ReceivedEvent | ForwardedEvent | ErrorEvent;

const WEBHOOK_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

function readBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) over = true;
      else chunks.push(c);
    });
    req.on('end', () => resolve(over ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function headerOf(req: IncomingMessage, name: string): string | null {
  const v = req.headers[name];
  return Array.isArray(v) ? (v[0] ?? null) : (v ?? null);
}

export class WebhookListener extends EventEmitter {
  /** the local receiver's URL */
  readonly url: string;
  /** the URL registered with the service */
  readonly registeredUrl: string;
  readonly endpointId: string;
  /** the endpoint's signing secret (for --print-secret) */
  readonly secret: string;
  readonly events: string[];
  private readonly verifier: Webhook;
  private readonly queue: ListenEvent[] = [];
  private readonly waiters: ((r: IteratorResult<ListenEvent>) => void)[] = [];
  private closed: Promise<void> | null = null;
  private ended = false;

  /** @internal use startListener() */
  constructor(
    private readonly server: Server,
    private readonly opts: ListenOptions,
    info: { url: string; registeredUrl: string; endpointId: string; secret: string; events: string[] },
  ) {
    super();
    this.url = info.url;
    this.registeredUrl = info.registeredUrl;
    this.endpointId = info.endpointId;
    this.secret = info.secret;
    this.events = info.events;
    this.verifier = new Webhook(info.secret);
  }

  /** @internal */
  publish(ev: ListenEvent): void {
    if (this.ended) return;
    if (ev.type === 'error') {
      if (this.listenerCount('error') > 0) this.emit('error', ev.error);
    } else {
      this.emit(ev.type, ev);
    }
    const w = this.waiters.shift();
    if (w) w({ value: ev, done: false });
    else this.queue.push(ev);
  }

  /** @internal the receiver's request handler */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const reply = (status: number, text: string) => {
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(text);
    };
    if (req.method !== 'POST') return reply(405, 'only POST is accepted here\n');
    const raw = await readBody(req, this.opts.maxBodyBytes ?? 1024 * 1024);
    if (raw === null) {
      this.publish({ type: 'error', error: new Error('a message larger than the receiver accepts arrived; refused with 413') });
      return reply(413, 'payload too large\n');
    }
    const body = raw.toString('utf8');
    const headers: Record<string, string> = {};
    for (const h of WEBHOOK_HEADERS) {
      const v = headerOf(req, h);
      if (v !== null) headers[h] = v;
    }
    let verified = false;
    let error: string | undefined;
    try {
      this.verifier.verify(body, headers);
      verified = true;
    } catch (e) {
      error = (e as Error).message || 'signature verification failed';
    }
    let event: WebhookMessage | null = null;
    try {
      const parsed = JSON.parse(body) as Partial<WebhookMessage>;
      if (parsed && typeof parsed === 'object' && typeof parsed.id === 'string' && typeof parsed.type === 'string') {
        event = parsed as WebhookMessage;
      }
    } catch {
      /* not JSON: reported with event null */
    }
    const received: ReceivedEvent = {
      type: 'received',
      event,
      verified,
      webhookId: headers['webhook-id'] ?? null,
      body,
      receivedAt: new Date().toISOString(),
    };
    if (error) received.error = error;
    this.publish(received);
    if (!verified) return reply(400, 'signature verification failed\n');
    if (!this.opts.forwardTo) return reply(200, 'ok\n');

    const started = performance.now();
    const ac = new AbortController();
    const timeoutMs = this.opts.forwardTimeoutMs ?? 10_000;
    const timer = setTimeout(() => ac.abort(), timeoutMs);
    const fwd: ForwardedEvent = { type: 'forwarded', eventId: event?.id ?? received.webhookId, status: null, durationMs: 0 };
    let appBody = '';
    try {
      const r = await request(this.opts.forwardTo, {
        method: 'POST',
        headers: { 'content-type': headerOf(req, 'content-type') ?? 'application/json', 'user-agent': WEBHOOK_USER_AGENT, ...headers },
        body: raw,
        signal: ac.signal,
      });
      fwd.status = r.statusCode;
      appBody = (await r.body.text()).slice(0, 2048);
    } catch (e) {
      fwd.error = ac.signal.aborted ? `the app did not answer within ${timeoutMs} ms` : describe(e);
    } finally {
      clearTimeout(timer);
      fwd.durationMs = Math.round(performance.now() - started);
    }
    this.publish(fwd);
    if (fwd.status === null) return reply(502, `could not forward to the app: ${fwd.error}\n`);
    reply(fwd.status, appBody);
  }

  /** Stops the receiver and deletes the temporary endpoint. Safe to call more than once. */
  close(): Promise<void> {
    this.closed ??= (async () => {
      await new Promise<void>((resolve) => {
        this.server.close(() => resolve());
        this.server.closeAllConnections();
      });
      let failure: Error | null = null;
      try {
        const r = (await this.opts.client.exchange('webhookEndpoints.delete', { params: { id: this.endpointId } })).envelope;
        if (!r.success && r.error !== 'not_found') failure = new Error(`could not delete webhook endpoint ${this.endpointId}: ${r.message ?? r.error}`);
      } catch (e) {
        failure = new Error(`could not delete webhook endpoint ${this.endpointId}: ${describe(e)}`);
      }
      this.ended = true;
      for (const w of this.waiters.splice(0)) w({ value: undefined, done: true });
      this.emit('close');
      if (failure) throw failure;
    })();
    return this.closed;
  }

  [Symbol.asyncIterator](): AsyncIterator<ListenEvent> {
    return {
      next: () => {
        const ev = this.queue.shift();
        if (ev) return Promise.resolve({ value: ev, done: false });
        if (this.ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => this.waiters.push(resolve));
      },
      return: async () => {
        await this.close().catch(() => undefined);
        return { value: undefined, done: true };
      },
    };
  }
}

function describe(e: unknown): string {
  const x = e as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = x?.cause?.code ?? x?.code;
  if (code === 'ECONNREFUSED') return 'connection refused';
  return x?.cause?.message ?? x?.message ?? String(e);
}

/** Starts the receiver and registers its endpoint; close() undoes both. */
export async function startListener(opts: ListenOptions): Promise<WebhookListener> {
  let listener: WebhookListener | null = null;
  const server = createServer((req, res) => {
    if (!listener) {
      res.writeHead(503).end();
      return;
    }
    listener.handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) res.writeHead(500).end();
      listener!.publish({ type: 'error', error: e as Error });
    });
  });
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const h = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  const url = `http://${h}:${addr.port}/`;
  const registeredUrl = opts.publicUrl ?? url;
  const events = opts.events?.length ? opts.events : ['*'];
  let created;
  try {
    created = (await opts.client.exchange('webhookEndpoints.create', { body: { url: registeredUrl, events } })).envelope;
  } catch (e) {
    await new Promise<void>((r) => server.close(() => r()));
    throw e;
  }
  const data = created.data;
  if (!created.success || !data?.id || !data.secret) {
    await new Promise<void>((r) => server.close(() => r()));
    throw new Error(`could not register a webhook endpoint for ${registeredUrl}: ${created.message ?? created.error ?? 'no secret returned'}`);
  }
  listener = new WebhookListener(server, opts, { url, registeredUrl, endpointId: data.id, secret: data.secret, events: data.events ?? events });
  return listener;
}
