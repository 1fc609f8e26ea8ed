import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import type { Runtime } from './runtime.js';

export interface RunningServer {
  url: string;
  server: ServerType;
  close(): Promise<void>;
}

/** Serves the app over HTTP on host:port (port 0 picks a free one). */
export function listen(rt: Runtime, host: string, port: number): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: rt.app.fetch, hostname: host, port }, (info: AddressInfo) => {
      const h = info.family === 'IPv6' ? `[${info.address}]` : info.address;
      resolve({
        url: `http://${h}:${info.port}`,
        server,
        close: () =>
          new Promise<void>((res) => {
            server.close(() => res());
            (server as unknown as { closeIdleConnections?: () => void }).closeIdleConnections?.();
          }),
      });
    });
    server.once('error', reject);
  });
}
