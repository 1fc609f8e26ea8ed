/**
 * Concurrent withdrawals from 4 OS processes on one data directory (the worker of
 * test/server/withdrawals.processes.test.ts): a wallet of 10 × 100 cents, 4 × 8 requests of
 * 100 → exactly 10 paid, the rest insufficient_funds, the balance never below zero at any
 * entry of the chain, and it ends at exactly 0.
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openRuntime } from '../../src/server/runtime.js';
import { createMerchant } from '../../src/server/services/merchants.js';
import { credit } from '../../src/server/services/ledger.js';
import { basic } from '../helpers/server.js';
import { CPF } from '../helpers/money.js';
import { bundleWorker, root } from '../helpers/bundle.js';
import { report } from './helpers.js';

const PROCS = 4;
const PER = 8;
const FUNDS = 10;
let worker: { file: string; outDir: string };
beforeAll(async () => {
  worker = await bundleWorker('test/fixtures/withdraw-worker.ts', 'withdraw-worker');
}, 60_000);
afterAll(() => rmSync(worker.outDir, { recursive: true, force: true }));

it(`withdrawals from ${PROCS} processes → never below zero, exactly ${FUNDS} paid`, async () => {
  // a real disk: the processes race through SQLite's file locks and fsyncs
  const dir = mkdtempSync(join(tmpdir(), 'mpay-rel-wd-'));
  const rt = await openRuntime({ dataDir: dir, rateLimit: null });
  try {
    const m = await rt.deps.db.tx((q) => createMerchant(q, rt.deps, 'Loja Multi', new Date()));
    for (let i = 0; i < FUNDS; i++) {
      await rt.deps.db.tx((q) =>
        credit(q, rt.deps.ids, { walletId: m.wallet_id, amount: 100, referenceType: 'test', referenceId: rt.deps.ids(), description: 'funding', at: new Date() }),
      );
    }
    const body = (key: string) => ({
      type: 'pix',
      wallet_id: m.wallet_id,
      amount: 100,
      pix_key: 'ana@example.com',
      pix_key_type: 'email',
      holder_document_type: 'cpf',
      holder_document: CPF,
      idempotency_key: key,
    });
    const workers = Array.from({ length: PROCS }, (_, p) => {
      const child = fork(worker.file, [], {
        cwd: root,
        env: {
          ...process.env,
          MPAY_WORKER: JSON.stringify({ dataDir: dir, auth: basic(m.public_key, m.secret_key), mode: 'withdraw', bodies: Array.from({ length: PER }, (_, i) => body(`p${p}-w${i}`)) }),
        },
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        execArgv: [],
      });
      const messages: any[] = [];
      child.on('message', (msg) => messages.push(msg));
      const exit = new Promise<void>((res) => child.on('exit', () => res()));
      return { child, messages, exit };
    });
    const until = async (cond: () => boolean) => {
      const end = Date.now() + 60_000;
      while (!cond()) {
        if (Date.now() > end) throw new Error('timed out waiting for the workers');
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    await until(() => workers.every((w) => w.messages.some((x) => x.kind === 'ready' || x.kind === 'error')));
    for (const w of workers) w.child.send('go');
    await until(() => workers.every((w) => w.messages.some((x) => x.kind === 'done' || x.kind === 'error')));
    await Promise.all(workers.map((w) => w.exit));
    expect(workers.flatMap((w) => w.messages.filter((x) => x.kind === 'error'))).toEqual([]);
    const results = workers.flatMap((w) => w.messages.find((x) => x.kind === 'done').results as { status: number; error: string | null }[]);
    const paid = results.filter((r) => r.status === 201).length;
    const refused = results.filter((r) => r.status === 422 && r.error === 'insufficient_funds').length;
    const fiveXX = results.filter((r) => r.status >= 500).length;
    const entries = await rt.deps.db.all<{ direction: string; amount: number; balance_after: number }>(
      'SELECT direction, amount, balance_after FROM wallet_entries WHERE wallet_id = ? ORDER BY seq',
      [m.wallet_id],
    );
    let running = 0;
    let lowest = Infinity;
    let chainBreaks = 0;
    for (const e of entries) {
      running += e.direction === 'credit' ? Number(e.amount) : -Number(e.amount);
      lowest = Math.min(lowest, running);
      if (Number(e.balance_after) !== running) chainBreaks++;
    }
    const balance = Number((await rt.deps.db.get<{ balance: number }>('SELECT balance FROM wallets WHERE id = ?', [m.wallet_id]))!.balance);
    const rows = Number((await rt.deps.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM withdrawals'))!.n);
    report(
      `withdrawals ${PROCS} processes × ${PER} of 100 on a wallet of ${FUNDS * 100} → ${paid} paid (${rows} rows), ${refused} insufficient_funds, ${fiveXX} × 5xx, lowest balance ${lowest}, final ${balance}, ${chainBreaks} chain breaks`,
    );
    expect(results).toHaveLength(PROCS * PER);
    expect(paid).toBe(FUNDS);
    expect(rows).toBe(FUNDS);
    expect(refused).toBe(PROCS * PER - FUNDS);
    expect(fiveXX).toBe(0);
    expect(lowest).toBeGreaterThanOrEqual(0);
    expect(balance).toBe(0);
    expect(chainBreaks).toBe(0);
  } finally {
    await rt.close();
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);
