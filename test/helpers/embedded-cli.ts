import { bufferIO } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import type { Target } from '../../src/cli/target.js';
import { MpayClient } from '../../src/sdk/client.js';
import { EmbeddedTransport } from '../../src/sdk/embeddedTransport.js';
import type { TestEnv } from './server.js';

/**
 * The CLI run in-process against a test env's app (an embedded target with its merchant's
 * keys), output captured. `env` is read at each call, so it may be set in a beforeAll.
 */
export function embeddedCli(env: () => TestEnv) {
  const target = async (): Promise<Target> => ({
    kind: 'embedded',
    profileName: 'test',
    client: new MpayClient({ transport: new EmbeddedTransport(env().rt.app.fetch), publicKey: env().merchant.public_key, secretKey: env().merchant.secret_key }),
    close: async () => undefined,
  });
  return async (args: string[], o: { tty?: boolean; stdin?: string } = {}) => {
    const io = bufferIO({ tty: o.tty, stdin: o.stdin, env: { NO_COLOR: '1' } });
    const code = await main(args, io, target);
    return { code, stdout: io.stdout, stderr: io.stderr };
  };
}
