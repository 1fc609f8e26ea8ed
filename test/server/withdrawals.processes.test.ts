/**
 * Withdrawals across OS processes on one SQLite data directory, and crashes (SIGKILL) between
 * the writes of a withdrawal. The worker (test/fixtures/withdraw-worker.ts) is bundled with
 * esbuild so every child runs the real service code against the same files.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openRuntime, type Runtime } from '../../src/server/runtime.js';
import { createMerchant, type NewMerchant } from '../../src/server/services/merchants.js';
import { credit } from '../../src/server/services/ledger.js';
import { basic } from '../helpers/server.js';
import { CPF } from '../helpers/money.js';
import { bundleWorker, root } from '../helpers/bundle.js';

let workerFile: string;
let outDir: string;

beforeAll(async () => {
  ({ file: workerFile, outDir } = await bundleWorker('test/fixtures/withdraw-worker.ts', 'proc-withdraw-worker'));
}, 60_000);
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

let dir: string;
let rt: Runtime;
let m: NewMerchant;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mpay-proc-'));
  rt = await openRuntime({ dataDir: dir, rateLimit: null });
  m = await rt.deps.db.tx((q) => createMerchant(q, rt.deps, 'Loja Multi', new Date()));
  // the wallet of 100 × 10: ten credits of 100 cents
  for (let i = 0; i < 10; i++) {
    await rt.deps.db.tx((q) =>
      credit(q, rt.deps.ids, { walletId: m.wallet_id, amount: 100, referenceType: 'test', referenceId: rt.deps.ids(), description: 'funding', at: new Date() }),
    );
  }
});
afterEach(async () => {
  await rt.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Job {
  mode: 'withdraw' | 'sweep';
  bodies?: unknown[];
  clockMs?: number;
  crashAfter?: string;
}

function spawnWorker(job: Job): { child: ChildProcess; messages: any[]; exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }> } {
  const child = fork(workerFile, [], {
    cwd: root,
    env: { ...process.env, MPAY_WORKER: JSON.stringify({ dataDir: dir, auth: basic(m.public_key, m.secret_key), ...job }) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv: [],
  });
  const messages: any[] = [];
  child.on('message', (msg) => messages.push(msg));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) => child.on('exit', (code, signal) => res({ code, signal })));
  return { child, messages, exit };
}

const until = async (cond: () => boolean, ms = 30_000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out waiting for workers');
    await new Promise((r) => setTimeout(r, 10));
  }
};

const pixBody = (key: string, amount = 100) => ({
  type: 'pix',
  wallet_id: m.wallet_id,
  amount,
  pix_key: 'ana@example.com',
  pix_key_type: 'email',
  holder_document_type: 'cpf',
  holder_document: CPF,
  idempotency_key: key,
});

async function ledgerState() {
  const db = rt.deps.db;
  const balance = Number((await db.get<{ balance: number }>('SELECT balance FROM wallets WHERE id = ?', [m.wallet_id]))!.balance);
  const entries = await db.all<any>('SELECT direction, amount, balance_after, reference_type, reference_id FROM wallet_entries WHERE wallet_id = ? ORDER BY rowid', [
    m.wallet_id,
  ]);
  const withdrawals = await db.all<any>('SELECT id, status, amount FROM withdrawals');
  const events = await db.all<any>('SELECT type, resource_id FROM events');
  const integrity = await db.get<{ integrity_check: string }>('PRAGMA integrity_check');
  return { balance, entries, withdrawals, events, integrity: integrity!.integrity_check };
}

/** Replays the entries in commit order: each balance_after follows from the one before. */
function expectConsistentChain(entries: any[], finalBalance: number): void {
  let running = 0;
  for (const e of entries) {
    running += e.direction === 'credit' ? Number(e.amount) : -Number(e.amount);
    expect(running).toBeGreaterThanOrEqual(0);
    expect(Number(e.balance_after)).toBe(running);
  }
  expect(running).toBe(finalBalance);
}

describe('withdrawals from several OS processes on one data directory', () => {
  it('a wallet of 100 × 10 pays exactly 10 withdrawals of 100; the rest get insufficient_funds; never below 0', async () => {
    const PROCS = 4;
    const PER = 6;
    const workers = Array.from({ length: PROCS }, (_, p) =>
      spawnWorker({ mode: 'withdraw', bodies: Array.from({ length: PER }, (_, i) => pixBody(`p${p}-w${i}`)) }),
    );
    await until(() => workers.every((w) => w.messages.some((x) => x.kind === 'ready' || x.kind === 'error')));
    for (const w of workers) w.child.send('go');
    await until(() => workers.every((w) => w.messages.some((x) => x.kind === 'done' || x.kind === 'error')), 60_000);
    await Promise.all(workers.map((w) => w.exit));
    const errors = workers.flatMap((w) => w.messages.filter((x) => x.kind === 'error'));
    expect(errors).toEqual([]);
    const results = workers.flatMap((w) => w.messages.find((x) => x.kind === 'done').results as any[]);
    expect(results).toHaveLength(PROCS * PER);
    expect(results.filter((r) => r.status === 201)).toHaveLength(10);
    const refused = results.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(PROCS * PER - 10);
    for (const r of refused) expect(r).toMatchObject({ status: 422, error: 'insufficient_funds' });
    // the batches of the processes overlapped in time: they really raced each other
    const spans = workers.map((w) => w.messages.find((x) => x.kind === 'done') as { started: number; finished: number });
    const overlapping = spans.filter((a) => spans.some((b) => b !== a && a.started < b.finished && b.started < a.finished));
    expect(overlapping.length).toBeGreaterThanOrEqual(2);

    const s = await ledgerState();
    expect(s.integrity).toBe('ok');
    expect(s.balance).toBe(0);
    expect(s.withdrawals).toHaveLength(10);
    const debits = s.entries.filter((e) => e.reference_type === 'withdrawal');
    expect(debits).toHaveLength(10);
    expect(new Set(debits.map((d) => d.reference_id))).toEqual(new Set(s.withdrawals.map((w) => w.id)));
    expectConsistentChain(s.entries, 0);
  }, 90_000);

  it('the same idempotency_key sent from several processes at once makes one withdrawal', async () => {
    const workers = Array.from({ length: 4 }, () => spawnWorker({ mode: 'withdraw', bodies: Array.from({ length: 5 }, () => pixBody('same-key', 300)) }));
    await until(() => workers.every((w) => w.messages.some((x) => x.kind === 'ready' || x.kind === 'error')));
    for (const w of workers) w.child.send('go');
    await until(() => workers.every((w) => w.messages.some((x) => x.kind === 'done' || x.kind === 'error')), 60_000);
    await Promise.all(workers.map((w) => w.exit));
    const results = workers.flatMap((w) => (w.messages.find((x) => x.kind === 'done')?.results ?? []) as any[]);
    expect(results).toHaveLength(20);
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 200)).toHaveLength(19);
    expect(new Set(results.map((r) => r.id)).size).toBe(1);
    const s = await ledgerState();
    expect(s.withdrawals).toHaveLength(1);
    expect(s.balance).toBe(700);
    expectConsistentChain(s.entries, 700);
  }, 90_000);
});

/**
 * The points between the writes of a withdrawal, as the statement each comes after: the worker's
 * store kills the process at the next statement of that transaction (or at its COMMIT).
 */
const AFTER = {
  'withdrawal.inserted': '^\\s*INSERT INTO withdrawals',
  'withdrawal.debited': '^\\s*INSERT INTO wallet_entries',
  'withdrawal.evented': '^\\s*INSERT INTO events',
  'withdrawal.failing': '^\\s*UPDATE withdrawals SET status',
  'withdrawal.reversed': '^\\s*INSERT INTO wallet_entries',
};

describe('a crash between two writes of a withdrawal leaves no partial state', () => {
  for (const point of ['withdrawal.inserted', 'withdrawal.debited', 'withdrawal.evented'] as const) {
    it(`killed at ${point}: no withdrawal, no debit, no event, balance intact; the key is still free`, async () => {
      const w = spawnWorker({ mode: 'withdraw', bodies: [pixBody('crash-1', 400)], crashAfter: AFTER[point] });
      await until(() => w.messages.some((x) => x.kind === 'ready'));
      w.child.send('go');
      const exit = await w.exit;
      expect(exit.signal).toBe('SIGKILL');
      const s = await ledgerState();
      expect(s.integrity).toBe('ok');
      expect(s.withdrawals).toEqual([]);
      expect(s.entries.filter((e) => e.reference_type !== 'test')).toEqual([]);
      expect(s.events).toEqual([]);
      expect(s.balance).toBe(1000);
      // the database is usable and the same request now goes through once
      const again = spawnWorker({ mode: 'withdraw', bodies: [pixBody('crash-1', 400)] });
      await until(() => again.messages.some((x) => x.kind === 'ready'));
      again.child.send('go');
      await again.exit;
      expect(again.messages.find((x) => x.kind === 'done').results[0].status).toBe(201);
      const after = await ledgerState();
      expect(after.withdrawals).toHaveLength(1);
      expect(after.balance).toBe(600);
      expectConsistentChain(after.entries, 600);
    }, 60_000);
  }

  for (const point of ['withdrawal.failing', 'withdrawal.reversed'] as const) {
    it(`killed at ${point} while failing a withdrawal: status and reversal commit together`, async () => {
      const create = spawnWorker({ mode: 'withdraw', bodies: [pixBody('to-fail', 199)] });
      await until(() => create.messages.some((x) => x.kind === 'ready'));
      create.child.send('go');
      await create.exit;
      const id = create.messages.find((x) => x.kind === 'done').results[0].id as string;
      const later = Date.now() + 3600_000;
      // first sweep moves pending → processing; the second, killed, fails it
      const toProcessing = spawnWorker({ mode: 'sweep', clockMs: Date.now() + 1500 });
      await toProcessing.exit;
      expect((await rt.deps.db.get<any>('SELECT status FROM withdrawals WHERE id = ?', [id])).status).toBe('processing');

      const crash = spawnWorker({ mode: 'sweep', clockMs: later, crashAfter: AFTER[point] });
      expect((await crash.exit).signal).toBe('SIGKILL');
      let s = await ledgerState();
      expect(s.integrity).toBe('ok');
      expect(s.withdrawals).toEqual([{ id, status: 'processing', amount: 199 }]);
      expect(s.entries.filter((e) => e.reference_type === 'withdrawal_reversal')).toEqual([]);
      expect(s.events.map((e) => e.type)).toEqual(['withdrawal.pending']);
      expect(s.balance).toBe(801);

      const retry = spawnWorker({ mode: 'sweep', clockMs: later });
      await retry.exit;
      expect(retry.messages.find((x) => x.kind === 'done').moves).toBe(1);
      s = await ledgerState();
      expect(s.withdrawals).toEqual([{ id, status: 'failed', amount: 199 }]);
      expect(s.entries.filter((e) => e.reference_type === 'withdrawal_reversal')).toHaveLength(1);
      expect(s.events.map((e) => e.type).sort()).toEqual(['withdrawal.failed', 'withdrawal.pending']);
      expect(s.balance).toBe(1000);
      expectConsistentChain(s.entries, 1000);
    }, 60_000);
  }
});
