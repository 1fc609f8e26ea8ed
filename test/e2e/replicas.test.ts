/**
 * Two real `mpay server start --database <url>` processes on one PostgreSQL database, driven
 * together the way a load balancer would: withdrawals split across both against one wallet,
 * Idempotency-Key requests replayed across both, keys created on one used on the other, the
 * last two keys revoked one through each at once, a
 * file uploaded through one downloaded through the other, and 500 events delivered by the two
 * processes' webhook workers, each once.
 * Runs in the `postgres` vitest project only (needs MPAY_TEST_DATABASE_URL); `npm test`
 * builds bin/mpay.js first.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgDb } from '../../src/store/postgres.js';
import { freshPgSchema, type PgSchema } from '../helpers/backend.js';
import { basic } from '../helpers/server.js';
import { cliHome } from '../helpers/cli.js';
import { CPF } from '../helpers/money.js';
import { pjBody } from '../helpers/onboarding.js';
import { realPdf, realPng } from '../helpers/files.js';

type Started = Awaited<ReturnType<ReturnType<typeof cliHome>['startServer']>>;

let schema: PgSchema;
let db: PgDb;
const homes: Array<ReturnType<typeof cliHome>> = [];
let servers: Started[] = [];
let creds: { merchant_id: string; wallet_id: string; public_key: string; secret_key: string };
const masterKey = randomBytes(32).toString('base64');

async function call(server: Started, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(server.url + path, {
    method,
    headers: {
      authorization: basic(creds.public_key, creds.secret_key),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text), replayed: res.headers.get('idempotent-replayed') === 'true' };
}

const PIN = '4829';
/** A PIX withdrawal (fee 0) from the merchant's wallet, with the PIN set through server A. */
const withdraw = (server: Started, amount: number, headers: Record<string, string> = {}, key = `w-${randomUUID()}`) =>
  call(
    server,
    'POST',
    '/v1/withdrawals',
    {
      type: 'pix',
      wallet_id: creds.wallet_id,
      amount,
      pix_key: 'ana@example.com',
      pix_key_type: 'email',
      holder_document_type: 'cpf',
      holder_document: CPF,
      idempotency_key: key,
      pin: PIN,
    },
    headers,
  );
/** Funding goes through the sandbox wallet adjustment (a credit). */
const fund = (server: Started, amount: number, headers: Record<string, string> = {}) =>
  call(server, 'POST', '/v1/sandbox/wallet/adjustments', { direction: 'credit', amount }, headers);

const balance = async () =>
  (await db.get<{ balance: number }>('SELECT balance FROM wallets WHERE id = ?', [creds.wallet_id]))!.balance;

describe('two server processes on one PostgreSQL database', () => {
  beforeAll(async () => {
    schema = await freshPgSchema();
    const env = { MPAY_MASTER_KEY: masterKey };
    // each process has its own data directory: nothing is shared but the database and the key
    const a = cliHome();
    const b = cliHome();
    const admin = cliHome();
    homes.push(a, b, admin);
    // started together on an empty schema: both apply the migrations, under the lock
    // (no rate limit: the tests send hundreds of requests with one key)
    servers = await Promise.all([a, b].map((h) => h.startServer(['--quiet', '--rate-limit', 'off', '--database', schema.url], { env })));
    const made = await admin.runAsync(['admin', 'merchants', 'create', '--name', 'Replica Store', '--database', schema.url, '--json'], { env });
    expect(made.code, made.stderr).toBe(0);
    creds = made.json();
    db = new PgDb(schema.url);
    // a PIN set through one process is checked by the other on every withdrawal
    const pin = await call(servers[0]!, 'PUT', '/v1/merchant/pin', { pin: PIN });
    expect(pin.status, pin.text).toBe(200);
  }, 120_000);

  afterAll(async () => {
    for (const s of servers) if (s.child.exitCode === null) s.child.kill('SIGKILL');
    await db?.close();
    await schema?.drop();
    for (const h of homes) h.cleanup();
  });

  it('both are ready, applied the migrations once, and know the merchant created by the admin command', async () => {
    for (const s of servers) {
      expect((await fetch(s.url + '/readyz')).status).toBe(200);
      const me = await call(s, 'GET', '/v1/merchant');
      expect(me.status).toBe(200);
      expect(me.body.data).toMatchObject({ id: creds.merchant_id, wallet_id: creds.wallet_id });
    }
    const versions = await db.all<{ version: number; n: number }>('SELECT version, COUNT(*) AS n FROM schema_migrations GROUP BY version');
    expect(versions.length).toBeGreaterThan(0);
    for (const v of versions) expect(v.n).toBe(1);
  });

  it('a key created through one process authenticates on the other', async () => {
    const made = await call(servers[0]!, 'POST', '/v1/api-keys', { name: 'from-a' });
    expect(made.status).toBe(201);
    const res = await fetch(servers[1]!.url + '/v1/merchant', { headers: { authorization: basic(made.body.data.public_key, made.body.data.secret_key) } });
    expect(res.status).toBe(200);
  });

  it('the last two active keys revoked at once, one through each process: one 200, one 409, one key left', async () => {
    const made = await homes[2]!.runAsync(['admin', 'merchants', 'create', '--name', 'Key Store', '--database', schema.url, '--json'], {
      env: { MPAY_MASTER_KEY: masterKey },
    });
    expect(made.code, made.stderr).toBe(0);
    const m = made.json() as typeof creds;
    const first = await db.get<{ id: string }>('SELECT id FROM api_keys WHERE merchant_id = ?', [m.merchant_id]);
    let held = { id: first!.id, auth: basic(m.public_key, m.secret_key) };
    const revoke = async (s: Started, k: typeof held) => {
      const res = await fetch(`${s.url}/v1/api-keys/${k.id}`, { method: 'DELETE', headers: { authorization: k.auth } });
      return { status: res.status, body: (await res.json()) as { error?: string } };
    };
    // each round: a second key, then both revoked at once (each request authenticated by the
    // key it revokes), one through each process
    for (let round = 0; round < 10; round++) {
      const res = await fetch(`${servers[round % 2]!.url}/v1/api-keys`, {
        method: 'POST',
        headers: { authorization: held.auth, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `round-${round}` }),
      });
      expect(res.status).toBe(201);
      const k = ((await res.json()) as { data: { id: string; public_key: string; secret_key: string } }).data;
      const pair = [held, { id: k.id, auth: basic(k.public_key, k.secret_key) }];
      const answers = await Promise.all(pair.map((key, i) => revoke(servers[i]!, key)));
      expect(answers.map((a) => a.status).sort(), JSON.stringify(answers)).toEqual([200, 409]);
      expect(answers.find((a) => a.status === 409)!.body.error).toBe('conflict');
      const active = await db.all<{ id: string }>('SELECT id FROM api_keys WHERE merchant_id = ? AND is_active = 1', [m.merchant_id]);
      expect(active.map((a) => a.id)).toEqual([pair[answers.findIndex((a) => a.status === 409)]!.id]);
      held = pair.find((p) => p.id === active[0]!.id)!;
    }
  });

  it('concurrent withdrawals split across both: exactly the affordable number succeed', async () => {
    const start = await balance();
    expect((await fund(servers[0]!, 10_000)).status).toBe(201);
    const before = await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM wallet_entries WHERE wallet_id = ?', [creds.wallet_id]);
    // 10 000 + start cents, 60 PIX withdrawals of 300 (fee 0): floor((start + 10000) / 300) fit
    const affordable = Math.floor((start + 10_000) / 300);
    expect(affordable).toBeLessThan(60);
    const results = await Promise.all(Array.from({ length: 60 }, (_, i) => withdraw(servers[i % 2]!, 300)));
    const ok = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status === 422);
    expect(ok).toHaveLength(affordable);
    expect(refused).toHaveLength(60 - affordable);
    for (const r of refused) expect(r.body.error, r.text).toBe('insufficient_funds');
    for (const r of ok) expect(r.body.data).toMatchObject({ type: 'pix', amount: 300, fee: 0, netAmount: 300, wallet_id: creds.wallet_id });
    // both processes took part in the successes
    expect(new Set(results.map((r, i) => (r.status === 201 ? i % 2 : -1)).filter((x) => x >= 0)).size).toBe(2);
    expect(await balance()).toBe(start + 10_000 - affordable * 300);
    const after = await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM wallet_entries WHERE wallet_id = ?', [creds.wallet_id]);
    expect(after!.n - before!.n).toBe(affordable);
    const rows = await db.all<{ id: string }>('SELECT id FROM withdrawals WHERE wallet_id = ?', [creds.wallet_id]);
    expect(rows.map((r) => r.id).sort()).toEqual(ok.map((r) => r.body.data.id).sort());
    // the running balances are a strict sequence that never goes below 0: no two debits saw
    // the same balance
    const runs = await db.all<{ balance_after: number }>(
      "SELECT balance_after FROM wallet_entries WHERE wallet_id = ? AND reference_type = 'withdrawal'",
      [creds.wallet_id],
    );
    expect(runs).toHaveLength(affordable);
    expect(new Set(runs.map((r) => r.balance_after)).size).toBe(runs.length);
    for (const r of runs) expect(r.balance_after).toBeGreaterThanOrEqual(0);
  });

  it('one withdrawal idempotency_key sent to both processes at once makes one withdrawal', async () => {
    const start = await balance();
    const key = `once-${randomUUID()}`;
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => withdraw(servers[i % 2]!, 100, {}, key)));
    const created = results.filter((r) => r.status === 201);
    expect(created, results.map((r) => `${r.status} ${r.text}`).join('\n')).toHaveLength(1);
    const again = results.filter((r) => r.status === 200);
    expect(again).toHaveLength(9);
    for (const r of again) expect(r.body.data.id).toBe(created[0]!.body.data.id);
    expect(await balance()).toBe(start - 100);
  });

  it('one Idempotency-Key sent to both processes at once has one effect and one response', async () => {
    const key = `replica-${randomUUID()}`;
    const start = await balance();
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => fund(servers[i % 2]!, 700, { 'idempotency-key': key })));
    for (const r of results) expect(r.status).toBe(201);
    expect(results.filter((r) => !r.replayed)).toHaveLength(1);
    expect(new Set(results.map((r) => r.text)).size).toBe(1);
    expect(await balance()).toBe(start + 700);
    const entries = await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM wallet_entries WHERE id = ?', [results[0]!.body.data.id]);
    expect(entries!.n).toBe(1);
    // a replay later, on either process, is still the same response
    for (const s of servers) {
      const again = await fund(s, 700, { 'idempotency-key': key });
      expect(again.replayed).toBe(true);
      expect(again.text).toBe(results[0]!.text);
    }
    // and the key with another body is a conflict on the other process
    const other = await fund(servers[1]!, 701, { 'idempotency-key': key });
    expect(other.status).toBe(409);
    expect(other.body.error).toBe('idempotency_conflict');
    expect(await balance()).toBe(start + 700);
  });

  it('a refused withdrawal replayed on the other process is the same refusal', async () => {
    const key = `replica-${randomUUID()}`;
    const tooMuch = (await balance()) + 1;
    const first = await withdraw(servers[0]!, tooMuch, { 'idempotency-key': key }, key);
    expect(first.status).toBe(422);
    expect(first.body.error).toBe('insufficient_funds');
    const second = await withdraw(servers[1]!, tooMuch, { 'idempotency-key': key }, key);
    expect(second.status).toBe(422);
    expect(second.replayed).toBe(true);
    expect(second.text).toBe(first.text);
  });

  it('a file uploaded through one process is downloaded, byte for byte, through the other', async () => {
    const sub = await call(servers[0]!, 'POST', '/v1/submerchants', pjBody());
    expect(sub.status, sub.text).toBe(201);
    for (const [up, down, bytes, name, mime] of [
      [servers[0]!, servers[1]!, realPdf(), 'contrato.pdf', 'application/pdf'],
      [servers[1]!, servers[0]!, realPng(), 'rg.png', 'image/png'],
    ] as const) {
      const fd = new FormData();
      fd.append('file', new Blob([new Uint8Array(bytes)], { type: mime }), name);
      const res = await fetch(`${up.url}/v1/submerchants/${sub.body.data.id}/upload`, {
        method: 'POST',
        body: fd,
        headers: { authorization: basic(creds.public_key, creds.secret_key) },
      });
      const made = (await res.json()) as any;
      expect(res.status, JSON.stringify(made)).toBe(201);
      expect(made.data).toMatchObject({ fileName: name, fileSize: bytes.length, mimeType: mime });
      const got = await fetch(`${down.url}/v1/files/${made.data.key}`, { headers: { authorization: basic(creds.public_key, creds.secret_key) } });
      expect(got.status).toBe(200);
      expect(got.headers.get('content-type')).toBe(mime);
      expect(Buffer.from(await got.arrayBuffer()).equals(bytes)).toBe(true);
      // the bytes are in the database, not in either process's data directory
      const blob = await db.get<{ size: number }>('SELECT size FROM file_blobs WHERE key = ?', [made.data.key]);
      expect(blob?.size).toBe(bytes.length);
    }
  });

  it("500 events are delivered by the two processes' workers, each once to each endpoint", async () => {
    const EVENTS = 500;
    // the receiver: counts every request per endpoint path by webhook-id, and notes which
    // server process opened each connection (Linux: the socket's inode in /proc)
    const seen = new Map<string, Map<string, number>>([
      ['/a', new Map()],
      ['/b', new Map()],
    ]);
    const subjects = new Map<string, Set<string>>([
      ['/a', new Set()],
      ['/b', new Set()],
    ]);
    const secrets = new Map<string, Webhook>();
    const bodies: { path: string; body: string; headers: IncomingMessage['headers'] }[] = [];
    const byProcess = new Map<number, number>();
    const connOwner = new WeakMap<Socket, number>();
    const receiver: Server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '';
        const id = String(req.headers['webhook-id']);
        const counts = seen.get(path);
        if (counts) counts.set(id, (counts.get(id) ?? 0) + 1);
        const body = Buffer.concat(chunks).toString('utf8');
        bodies.push({ path, body, headers: req.headers });
        subjects.get(path)?.add(JSON.parse(body).data.id);
        const owner = connOwner.get(req.socket) ?? -1;
        byProcess.set(owner, (byProcess.get(owner) ?? 0) + 1);
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    const pids = servers.map((s) => s.child.pid!);
    receiver.on('connection', (sock: Socket) => connOwner.set(sock, ownerOf(sock.remotePort!, sock.localPort!, pids)));
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    try {
      // one endpoint created through each process, both for submerchant.created only
      for (const [i, path] of (['/a', '/b'] as const).entries()) {
        const ep = await call(servers[i]!, 'POST', '/v1/postbacks/endpoints', { url: base + path, events: ['submerchant.created'] });
        expect(ep.status, ep.text).toBe(201);
        secrets.set(path, new Webhook(ep.body.data.secret));
      }
      // 500 events: 500 submerchants created through both processes, 16 requests in flight
      const created: string[] = [];
      let next = 0;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (next < EVENTS) {
            const i = next++;
            const r = await call(servers[i % 2]!, 'POST', '/v1/submerchants', pjBody({ trade_name: `Loja ${i}` }));
            expect(r.status, r.text).toBe(201);
            created.push(r.body.data.id);
          }
        }),
      );
      expect(new Set(created).size).toBe(EVENTS);
      const want = new Set(created);
      const complete = () => [...subjects.values()].every((got) => [...want].every((id) => got.has(id)));
      const deadline = Date.now() + 90_000;
      while (!complete()) {
        if (Date.now() > deadline) {
          throw new Error(`not all delivered in 90 s: ${[...subjects].map(([p, g]) => `${p} ${[...want].filter((id) => g.has(id)).length}/${EVENTS}`).join(', ')}`);
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      // until every delivery of these endpoints is final and unleased: no worker holds one to
      // send, so no duplicate can still arrive
      const unsettled = async () =>
        (await db.get<{ n: number }>(
          `SELECT COUNT(*) AS n FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
            WHERE e.url IN (?, ?) AND (d.state = 'scheduled' OR d.lease_owner IS NOT NULL)`,
          [base + '/a', base + '/b'],
        ))!.n;
      const settleBy = Date.now() + 30_000;
      for (let n = await unsettled(); Number(n) > 0; n = await unsettled()) {
        if (Date.now() > settleBy) throw new Error(`${n} deliveries still scheduled or leased after 30 s`);
        await new Promise((r) => setTimeout(r, 100));
      }

      for (const [path, counts] of seen) {
        const ours = [...counts].filter(([, n]) => n > 0);
        // no webhook-id twice to one endpoint, and exactly one event per submerchant created
        for (const [id, n] of ours) expect(n, `${path} ${id}`).toBe(1);
        const delivered = await db.all<{ event_id: string }>(
          `SELECT d.event_id FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
            WHERE e.url = ? AND d.state = 'delivered'`,
          [base + path],
        );
        expect(delivered.length).toBeGreaterThanOrEqual(EVENTS);
        expect(new Set(delivered.map((r) => r.event_id))).toEqual(new Set(counts.keys()));
      }
      // one attempt each: every log row of these endpoints is a first attempt that succeeded
      const logs = await db.all<{ attempt: number; status: string; n: number }>(
        `SELECT l.attempt, l.status, COUNT(*) AS n FROM webhook_delivery_logs l JOIN webhook_endpoints e ON e.id = l.webhook_endpoint_id
          WHERE e.url IN (?, ?) GROUP BY l.attempt, l.status`,
        [base + '/a', base + '/b'],
      );
      expect(logs).toEqual([{ attempt: 1, status: 'delivered', n: seen.get('/a')!.size + seen.get('/b')!.size }]);
      // signed with each endpoint's secret
      for (const b of bodies) {
        expect(() =>
          secrets.get(b.path)!.verify(b.body, {
            'webhook-id': String(b.headers['webhook-id']),
            'webhook-timestamp': String(b.headers['webhook-timestamp']),
            'webhook-signature': String(b.headers['webhook-signature']),
          }),
        ).not.toThrow();
      }
      // both processes' workers delivered a share
      for (const pid of pids) expect(byProcess.get(pid) ?? 0, JSON.stringify([...byProcess])).toBeGreaterThan(0);
      expect(byProcess.get(-1) ?? 0).toBe(0);
    } finally {
      receiver.closeAllConnections();
      await new Promise((r) => receiver.close(r));
    }
  }, 180_000);

  it('SIGTERM stops a process cleanly while the other keeps serving', async () => {
    const [a, b] = servers as [Started, Started];
    a.child.kill('SIGTERM');
    expect(await a.exited).toBe(0);
    expect((await call(b, 'GET', '/v1/merchant')).status).toBe(200);
    expect((await fund(b, 1)).status).toBe(201);
  });
});

/**
 * The pid among `pids` whose process holds the client end of a loopback TCP connection from
 * `port` to `peer` (Linux: /proc/net/tcp{,6} gives the socket's inode, /proc/<pid>/fd links to it).
 * -1 when none does.
 */
function ownerOf(port: number, peer: number, pids: number[]): number {
  const hex = (n: number) => n.toString(16).toUpperCase().padStart(4, '0');
  let inode: string | undefined;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[1]?.endsWith(`:${hex(port)}`) && f[2]?.endsWith(`:${hex(peer)}`)) inode = f[9];
    }
  }
  if (!inode) return -1;
  for (const pid of pids) {
    try {
      for (const fd of readdirSync(`/proc/${pid}/fd`)) {
        try {
          if (readlinkSync(`/proc/${pid}/fd/${fd}`) === `socket:[${inode}]`) return pid;
        } catch {
          // closed meanwhile
        }
      }
    } catch {
      // not ours to read
    }
  }
  return -1;
}
