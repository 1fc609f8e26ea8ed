/**
 * Two real `mpay server start --database <url>` processes on one PostgreSQL database, driven
 * together the way a load balancer would: money moves split across both against one wallet,
 * Idempotency-Key requests replayed across both, keys created on one used on the other.
 * Runs in the `postgres` vitest project only (needs MPAY_TEST_DATABASE_URL); `npm test`
 * builds bin/mpay.js first.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgDb } from '../../src/store/postgres.js';
import { freshPgSchema, type PgSchema } from '../helpers/backend.js';
import { basic } from '../helpers/server.js';
import { cliHome } from '../helpers/cli.js';

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

/**
 * A money-out operation against the merchant's wallet. Until the payouts branch lands this is
 * the sandbox wallet debit; then it becomes `POST /v1/withdrawals` (with a recipient and PIN)
 * and the assertions below stay as they are: one 201 per affordable debit, 422
 * insufficient_funds for the rest.
 */
const withdraw = (server: Started, amount: number, headers: Record<string, string> = {}) =>
  call(server, 'POST', '/v1/sandbox/wallet/adjustments', { direction: 'debit', amount }, headers);
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
    servers = await Promise.all([a, b].map((h) => h.startServer(['--quiet', '--database', schema.url], { env })));
    const made = await admin.runAsync(['admin', 'merchants', 'create', '--name', 'Replica Store', '--database', schema.url, '--json'], { env });
    expect(made.code, made.stderr).toBe(0);
    creds = made.json();
    db = new PgDb(schema.url);
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

  it('concurrent withdrawals split across both: exactly the affordable number succeed', async () => {
    const start = await balance();
    expect((await fund(servers[0]!, 10_000)).status).toBe(201);
    const before = await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM wallet_entries WHERE wallet_id = ?', [creds.wallet_id]);
    // 10 000 + start cents, 60 withdrawals of 300: floor((start + 10000) / 300) fit
    const affordable = Math.floor((start + 10_000) / 300);
    const results = await Promise.all(Array.from({ length: 60 }, (_, i) => withdraw(servers[i % 2]!, 300)));
    const ok = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status === 422);
    expect(ok).toHaveLength(affordable);
    expect(refused).toHaveLength(60 - affordable);
    for (const r of refused) expect(r.body.error).toBe('insufficient_funds');
    // both processes took part in the successes
    expect(new Set(results.map((r, i) => (r.status === 201 ? i % 2 : -1)).filter((x) => x >= 0)).size).toBe(2);
    expect(await balance()).toBe(start + 10_000 - affordable * 300);
    const after = await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM wallet_entries WHERE wallet_id = ?', [creds.wallet_id]);
    expect(after!.n - before!.n).toBe(affordable);
    // the running balances are a strict sequence: no two debits saw the same balance
    const runs = await db.all<{ balance_after: number }>(
      "SELECT balance_after FROM wallet_entries WHERE wallet_id = ? AND direction = 'debit'",
      [creds.wallet_id],
    );
    expect(new Set(runs.map((r) => r.balance_after)).size).toBe(runs.length);
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
    const first = await withdraw(servers[0]!, tooMuch, { 'idempotency-key': key });
    expect(first.status).toBe(422);
    const second = await withdraw(servers[1]!, tooMuch, { 'idempotency-key': key });
    expect(second.status).toBe(422);
    expect(second.replayed).toBe(true);
    expect(second.text).toBe(first.text);
  });

  it('SIGTERM stops a process cleanly while the other keeps serving', async () => {
    const [a, b] = servers as [Started, Started];
    a.child.kill('SIGTERM');
    expect(await a.exited).toBe(0);
    expect((await call(b, 'GET', '/v1/merchant')).status).toBe(200);
    expect((await fund(b, 1)).status).toBe(201);
  });
});
