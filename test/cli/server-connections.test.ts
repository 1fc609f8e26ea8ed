/**
 * `mpay server start`'s connection bounds: the flags and variables that set them, what they
 * refuse, and a real server started with small ones cutting off a slow client and refusing a
 * client past its cap.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConnectionLimits } from '../../src/cli/commands/serverStart/run.js';
import { connectionsRoom, defaultConnectionLimits, openFileLimit, peerKey } from '../../src/server/connections.js';
import { cliHome } from '../helpers/cli.js';

const defaults = defaultConnectionLimits(1024);

describe('connection bounds: settings', () => {
  it('default to 10 s for headers, 60 s for the request, 64 per client, and what the open-files limit leaves for the total', () => {
    expect(defaults).toEqual({ headersTimeoutMs: 10_000, requestTimeoutMs: 60_000, maxConnections: 480, maxPerClient: 64 });
    expect(defaultConnectionLimits(1_048_576).maxConnections).toBe(10_000);
    expect(defaultConnectionLimits(undefined).maxConnections).toBe(1_000);
    expect(connectionsRoom(1024)).toBe(480);
    expect(parseConnectionLimits({}, {}, defaults, 1024)).toEqual(defaults);
  });

  it('flags win over variables, which win over the defaults', () => {
    const env = { MPAY_HEADERS_TIMEOUT: '5', MPAY_REQUEST_TIMEOUT: '20', MPAY_MAX_CONNECTIONS: '300', MPAY_MAX_CONNECTIONS_PER_CLIENT: '0' };
    expect(parseConnectionLimits({}, env, defaults, 1024)).toEqual({ headersTimeoutMs: 5_000, requestTimeoutMs: 20_000, maxConnections: 300, maxPerClient: 0 });
    expect(parseConnectionLimits({ headersTimeout: '0.5', maxConnections: '100', maxConnectionsPerClient: '8' }, env, defaults, 1024)).toEqual({
      headersTimeoutMs: 500,
      requestTimeoutMs: 20_000,
      maxConnections: 100,
      maxPerClient: 8,
    });
  });

  it('refuses values that are not numbers, a request timeout below the headers timeout, and a total the open-files limit has no room for', () => {
    expect(() => parseConnectionLimits({ headersTimeout: '10s' }, {}, defaults, 1024)).toThrow(/--headers-timeout must be a number of seconds .* got '10s'/);
    expect(() => parseConnectionLimits({}, { MPAY_REQUEST_TIMEOUT: '0' }, defaults, 1024)).toThrow(/MPAY_REQUEST_TIMEOUT must be a number of seconds/);
    expect(() => parseConnectionLimits({ maxConnections: '0' }, {}, defaults, 1024)).toThrow(/--max-connections must be a whole number of at least 1, got '0'/);
    expect(() => parseConnectionLimits({ maxConnectionsPerClient: '-1' }, {}, defaults, 1024)).toThrow(/--max-connections-per-client must be a whole number of at least 0/);
    expect(() => parseConnectionLimits({ headersTimeout: '30', requestTimeout: '5' }, {}, defaults, 1024)).toThrow(/request timeout \(5 s\) must be at least the headers timeout \(30 s\)/);
    expect(() => parseConnectionLimits({ maxConnections: '481' }, {}, defaults, 1024)).toThrow(/--max-connections 481 is more than the open-files limit \(1024\) leaves room for \(480/);
    expect(parseConnectionLimits({ maxConnections: '5000' }, {}, defaults, undefined).maxConnections).toBe(5000);
  });

  it('reads the open-files limit of the process, and counts an IPv6 client by its /64', () => {
    if (process.platform === 'linux') expect(openFileLimit()).toBeGreaterThan(0);
    expect(openFileLimit('/nonexistent')).toBeUndefined();
    expect(peerKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(peerKey('2001:db8:1:2:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64');
    expect(peerKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(peerKey('203.0.113.7')).toBe('203.0.113.7');
  });
});

describe('mpay server start with small bounds', () => {
  const home = cliHome();
  afterAll(() => home.cleanup());

  it('cuts off slow headers at --headers-timeout and refuses a client past --max-connections-per-client', async () => {
    const server = await home.startServer(['--quiet', '--headers-timeout', '0.3', '--request-timeout', '1', '--max-connections-per-client', '2']);
    const socks: Socket[] = [];
    try {
      const port = Number(new URL(server.url).port);
      const dial = () =>
        new Promise<Socket>((resolve, reject) => {
          const s = connect({ port, host: '127.0.0.1' }, () => resolve(s));
          socks.push(s);
          s.on('error', reject);
        });
      const answer = (s: Socket) =>
        new Promise<{ first: string; ms: number }>((resolve) => {
          const t0 = performance.now();
          let got = '';
          s.on('data', (d) => (got += d.toString('latin1')));
          s.once('close', () => resolve({ first: got.split('\r\n')[0]!, ms: performance.now() - t0 }));
        });
      const slow = [await dial(), await dial()];
      for (const s of slow) s.write('GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ');
      const third = await dial();
      const refused = await answer(third);
      expect(refused.first).toBe('HTTP/1.1 503 Service Unavailable');
      expect(refused.ms).toBeLessThan(300);
      const cut = await answer(slow[0]!);
      expect(cut.first).toBe('HTTP/1.1 408 Request Timeout');
      expect(cut.ms).toBeLessThan(1_000);
    } finally {
      for (const s of socks) s.destroy();
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });
});
