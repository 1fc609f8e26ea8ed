import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { BIN, cliHome } from '../helpers/cli.js';
import { openRuntime } from '../../src/server/runtime.js';

const home = cliHome();
afterAll(() => home.cleanup());

interface Listening {
  child: ChildProcess;
  secret: string;
  lines: () => any[];
  stderr: () => string;
  exited: Promise<number>;
  waitFor(pred: (line: any) => boolean, ms?: number): Promise<any>;
}

const children: ChildProcess[] = [];
afterEach(async () => {
  // a failed test must not leave its endpoint behind for the next one
  for (const c of children.splice(0)) {
    if (c.exitCode !== null || c.signalCode !== null) continue;
    const gone = new Promise((r) => c.on('close', r));
    c.kill('SIGTERM');
    await gone;
  }
});

/** Spawns `mpay webhooks listen --print-secret -o jsonl …` and waits for the secret line. */
function listen(args: string[] = []): Promise<Listening> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'webhooks', 'listen', '--print-secret', '-o', 'jsonl', ...args], { env: home.env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let out = '';
    let err = '';
    let secret: string | null = null;
    const exited = new Promise<number>((r) => child.on('close', (c) => r(c ?? -1)));
    const lines = () =>
      out
        .split('\n')
        .slice(1)
        .filter(Boolean)
        .map((l) => JSON.parse(l));
    const waitFor = (pred: (line: any) => boolean, ms = 20_000) =>
      new Promise<any>((res, rej) => {
        const started = Date.now();
        const tick = () => {
          const hit = lines().find(pred);
          if (hit) return res(hit);
          if (Date.now() - started > ms) return rej(new Error(`no matching line within ${ms} ms; stdout: ${out}; stderr: ${err}`));
          setTimeout(tick, 50);
        };
        tick();
      });
    // ready: the secret on stdout and the "Listening on" line on stderr (two pipes, any order)
    const check = () => {
      const m = /^(whsec_\S+)\n/.exec(out);
      if (m && !secret && err.includes('Listening on')) {
        secret = m[1]!;
        resolve({ child, secret, lines, stderr: () => err, exited, waitFor });
      }
    };
    child.stderr.on('data', (d) => {
      err += d;
      check();
    });
    child.stdout.on('data', (d) => {
      out += d;
      check();
    });
    child.on('close', (c) => {
      if (!secret) reject(new Error(`listen exited ${c}: ${err}`));
    });
  });
}

describe('mpay webhooks listen (embedded)', () => {
  it('prints a verified JSONL line for an event made by another mpay process; SIGTERM removes the endpoint', async () => {
    home.run(['merchant', 'get']); // the profile exists before two processes race for it
    const l = await listen();
    const eps = home.run(['webhooks', 'list']).json();
    expect(eps).toHaveLength(1);
    expect(eps[0]).toMatchObject({ events: ['*'], status: 'active' });
    expect(l.stderr()).toContain(`endpoint ${eps[0].id}`);

    const link = home.run(['links', 'create', '--title', 'Curso', '--product-type', 'digital', '--allowed-payment-methods', 'pix']);
    expect(link.code, link.stderr).toBe(0);
    const id = link.json().id;
    const line = await l.waitFor((x) => x.type === 'payment_link.created' && x.event?.data?.id === id);
    expect(line).toMatchObject({ verified: true, type: 'payment_link.created', id: expect.any(String), received_at: expect.any(String) });
    expect(line.forward_status).toBeUndefined();

    l.child.kill('SIGTERM');
    expect(await l.exited).toBe(0);
    expect(l.stderr()).toContain(`SIGTERM: endpoint ${eps[0].id} removed`);
    expect(home.run(['webhooks', 'list']).json()).toEqual([]);
  }, 60_000);

  it('delivers events of processes that did not deliver them (its own worker on the data dir)', async () => {
    const l = await listen(['--events', 'payment_link.created']);
    // write an event through the service in this process, which never delivers anything
    const cfg = JSON.parse(readFileSync(join(home.env.MPAY_CONFIG_DIR!, 'config.json'), 'utf8'));
    const { public_key, secret_key } = cfg.profiles.default;
    const rt = await openRuntime({ dataDir: home.dataDir });
    let linkId: string;
    try {
      const res = await rt.app.request('/v1/payment-links', {
        method: 'POST',
        headers: { authorization: 'Basic ' + Buffer.from(`${public_key}:${secret_key}`).toString('base64'), 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'Sem entrega', product_type: 'digital', allowed_payment_methods: ['pix'] }),
      });
      expect(res.status).toBe(201);
      linkId = ((await res.json()) as { data: { id: string } }).data.id;
    } finally {
      await rt.close();
    }
    const line = await l.waitFor((x) => x.event?.data?.id === linkId);
    expect(line).toMatchObject({ verified: true, type: 'payment_link.created' });
    l.child.kill('SIGINT');
    expect(await l.exited).toBe(130); // Ctrl-C exits 130
    expect(home.run(['webhooks', 'list']).json()).toEqual([]);
  }, 60_000);

  it('--forward-to sends the raw body and valid webhook-* headers to the app and prints its status', async () => {
    const got: { headers: IncomingHttpHeaders; body: string }[] = [];
    const app: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        got.push({ headers: req.headers, body });
        res.writeHead(202).end('accepted');
      });
    });
    await new Promise<void>((r) => app.listen(0, '127.0.0.1', () => r()));
    const appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}/hooks`;
    try {
      const l = await listen(['--events', 'payment_link.created,charge.pending', '--forward-to', appUrl]);
      const eps = home.run(['webhooks', 'list']).json();
      expect(eps[0].events.sort()).toEqual(['charge.pending', 'payment_link.created']);
      const id = home.run(['links', 'create', '--title', 'Fwd', '--product-type', 'digital', '--allowed-payment-methods', 'pix']).json().id;
      const line = await l.waitFor((x) => x.event?.data?.id === id);
      expect(line).toMatchObject({ verified: true, forward_status: 202, forward_ms: expect.any(Number) });
      const fwd = got.find((g) => g.body.includes(id));
      expect(fwd).toBeDefined();
      // the app can verify what it got with the endpoint secret printed by --print-secret
      const msg = new Webhook(l.secret).verify(fwd!.body, {
        'webhook-id': String(fwd!.headers['webhook-id']),
        'webhook-timestamp': String(fwd!.headers['webhook-timestamp']),
        'webhook-signature': String(fwd!.headers['webhook-signature']),
      }) as { type: string; data: { id: string } };
      expect(msg).toMatchObject({ type: 'payment_link.created', data: { id } });
      expect(fwd!.headers['webhook-id']).toBe(line.id);
      l.child.kill('SIGTERM');
      expect(await l.exited).toBe(0);
      expect(home.run(['webhooks', 'list']).json()).toEqual([]);
    } finally {
      await new Promise<void>((r) => app.close(() => r()));
    }
  }, 60_000);

  it('bad flags are usage errors and register nothing', () => {
    for (const args of [['--events', 'charge.nope'], ['--events', '*,charge.pending'], ['--forward-to', 'not a url'], ['--port', 'x']]) {
      const r = home.run(['webhooks', 'listen', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^error: /m);
    }
    expect(home.run(['webhooks', 'list']).json()).toEqual([]);
    expect(home.run(['webhooks', 'listen', '--help']).stdout).toContain('Examples:');
  });
});

describe('webhooks listen on a terminal (injected IO and target)', () => {
  it('prints a table line per event and removes the endpoint on SIGINT', async () => {
    const { testEnv } = await import('../helpers/server.js');
    const { MpayClient } = await import('../../src/sdk/client.js');
    const { EmbeddedTransport } = await import('../../src/sdk/embeddedTransport.js');
    const { bufferIO } = await import('../../src/cli/io.js');
    const { webhooksListen } = await import('../../src/cli/commands/webhooksListen/run.js');
    const { deliverDue } = await import('../../src/server/webhooks/worker.js');
    const { EventEmitter } = await import('node:events');
    const env = await testEnv();
    try {
      const client = new MpayClient({ transport: new EmbeddedTransport(env.rt.app.fetch), publicKey: env.merchant.public_key, secretKey: env.merchant.secret_key });
      const io = bufferIO({ tty: true, env: { NO_COLOR: '1' } });
      const signals = new EventEmitter();
      const done = webhooksListen({}, { events: ['payment_link.created'] }, io, {
        openTarget: async () => ({ kind: 'remote', profileName: 't', baseUrl: 'http://test', client, close: async () => undefined }),
        signals,
      });
      const until = async (pred: () => boolean) => {
        for (let i = 0; i < 200 && !pred(); i++) await new Promise((r) => setTimeout(r, 25));
        expect(pred()).toBe(true);
      };
      await until(() => io.stderr.includes('Listening on'));
      const link = await env.call('POST', '/v1/payment-links', { title: 'Mesa', product_type: 'physical', allowed_payment_methods: ['pix'] });
      expect(link.status).toBe(201);
      await deliverDue(env.rt.deps, { deadlineMs: 2_000 });
      await until(() => io.stdout.includes('payment_link.created'));
      expect(io.stdout).toMatch(/^\d\d:\d\d:\d\d {2}payment_link\.created +\S+ {2}✓ verified\n$/);
      signals.emit('SIGINT');
      expect(await done).toBe(130);
      expect(io.stderr).toMatch(/SIGINT: endpoint \S+ removed/);
      expect((await env.call('GET', '/v1/postbacks/endpoints')).body.data).toEqual([]);
      expect(signals.listenerCount('SIGINT')).toBe(0);
    } finally {
      await env.close();
    }
  }, 30_000);
});
