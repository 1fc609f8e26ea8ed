/**
 * mpay/embedded: the service itself, in-process, for tests and scripts that want a sandbox
 * without a server. A separate entry from the SDK ('mpay'), which never loads the server or its
 * store engines (better-sqlite3, pg).
 *
 *   import { MpayClient } from 'mpay';
 *   import { openEmbedded } from 'mpay/embedded';
 *   const sandbox = await openEmbedded('./mpay-data');
 *   const client = new MpayClient({ transport: sandbox.transport, publicKey, secretKey });
 *   await sandbox.close();
 */
import { openRuntime } from '../server/runtime.js';
import { inProcessHandler } from '../server/inProcess.js';
import { EmbeddedTransport } from './embeddedTransport.js';
import type { Transport } from './transport.js';

/** Opens the embedded service on a data directory and returns a transport to it. */
export async function openEmbedded(dataDir: string): Promise<{ transport: Transport; close(): Promise<void> }> {
  const rt = await openRuntime({ dataDir });
  const origin = 'http://127.0.0.1:4010';
  return { transport: new EmbeddedTransport(rt.app.fetch, `embedded:${dataDir}`, origin, inProcessHandler(rt.app, origin)), close: () => rt.close() };
}
