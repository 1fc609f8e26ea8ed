import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}

export type Behaviour = (req: Received, res: ServerResponse) => void | Promise<void>;

export interface Receiver {
  url: string;
  port: number;
  requests: Received[];
  /** change what the receiver answers */
  behave(b: Behaviour): void;
  close(): Promise<void>;
}

/** A real HTTP receiver on 127.0.0.1 that records every request. Answers 200 "ok" by default. */
export async function receiver(b: Behaviour = (_r, res) => void res.end('ok')): Promise<Receiver> {
  let behaviour = b;
  const requests: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      requests.push(r);
      Promise.resolve(behaviour(r, res)).catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    requests,
    behave(nb) {
      behaviour = nb;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Webhook headers of a recorded request, as the standardwebhooks verifier wants them. */
/** The three Standard Webhooks headers of a received request (named, so each is a string). */
export function whHeaders(r: Received): { 'webhook-id': string; 'webhook-timestamp': string; 'webhook-signature': string } {
  return {
    'webhook-id': String(r.headers['webhook-id']),
    'webhook-timestamp': String(r.headers['webhook-timestamp']),
    'webhook-signature': String(r.headers['webhook-signature']),
  };
}
