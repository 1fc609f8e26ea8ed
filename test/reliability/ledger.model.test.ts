/**
 * Model-based test of the ledger core (src/server/services/ledger.ts): fast-check runs random
 * sequences of credits, debits and transfers (a debit and a credit in one transaction) against
 * a real SQLite store and a plain model of balances, and checks after every command that the
 * stored balance equals the model's, that a debit beyond the balance is refused with
 * insufficient_funds and changes nothing, and at the end of each run that every wallet's entry
 * chain replays to its balance (seq 1..n, balance_after running, never below zero).
 */
import { rmSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openRuntime, type Runtime } from '../../src/server/runtime.js';
import { createMerchant } from '../../src/server/services/merchants.js';
import { credit, debit } from '../../src/server/services/ledger.js';
import { createWallet } from '../../src/server/services/wallets.js';
import { ApiError } from '../../src/server/errors.js';
import { memTempDir, report } from './helpers.js';

const TARGET_OPS = 10_000;
const WALLETS = 3;

let dir: string;
let rt: Runtime;
let merchantId: string;
beforeAll(async () => {
  dir = memTempDir('mpay-ledger-model-');
  rt = await openRuntime({ dataDir: dir, rateLimit: null });
  merchantId = (await rt.deps.db.tx((q) => createMerchant(q, rt.deps, 'Loja Modelo', new Date()))).merchant_id;
});
afterAll(async () => {
  await rt.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Model {
  balances: number[];
}
interface Real {
  wallets: string[];
}

let ops = 0;
let violations = 0;
let refused = 0;

async function balanceOf(walletId: string): Promise<number> {
  return Number((await rt.deps.db.get<{ balance: number }>('SELECT balance FROM wallets WHERE id = ?', [walletId]))!.balance);
}

async function check(m: Model, r: Real, i: number): Promise<void> {
  const actual = await balanceOf(r.wallets[i]!);
  if (actual !== m.balances[i]) {
    violations++;
    throw new Error(`wallet ${i}: stored balance ${actual} ≠ model ${m.balances[i]}`);
  }
}

const movement = (walletId: string, amount: number) => ({
  walletId,
  amount,
  referenceType: 'model',
  referenceId: rt.deps.ids(),
  description: 'model-based test',
  at: new Date(),
});

/** Runs fn; true if it committed, false if it was refused with insufficient_funds. */
async function attempt(fn: () => Promise<unknown>): Promise<boolean> {
  try {
    await fn();
    return true;
  } catch (e) {
    if (e instanceof ApiError && e.code === 'insufficient_funds') return false;
    throw e;
  }
}

class Credit implements fc.AsyncCommand<Model, Real> {
  constructor(readonly w: number, readonly amount: number) {}
  check = () => true;
  async run(m: Model, r: Real) {
    ops++;
    await rt.deps.db.tx((q) => credit(q, rt.deps.ids, movement(r.wallets[this.w]!, this.amount)));
    m.balances[this.w]! += this.amount;
    await check(m, r, this.w);
  }
  toString = () => `credit(${this.w}, ${this.amount})`;
}

class Debit implements fc.AsyncCommand<Model, Real> {
  constructor(readonly w: number, readonly amount: number) {}
  check = () => true;
  async run(m: Model, r: Real) {
    ops++;
    const ok = await attempt(() => rt.deps.db.tx((q) => debit(q, rt.deps.ids, movement(r.wallets[this.w]!, this.amount))));
    const expected = m.balances[this.w]! >= this.amount;
    if (ok !== expected) {
      violations++;
      throw new Error(`debit(${this.w}, ${this.amount}) ${ok ? 'went through' : 'was refused'} with model balance ${m.balances[this.w]}`);
    }
    if (ok) m.balances[this.w]! -= this.amount;
    else refused++;
    await check(m, r, this.w);
  }
  toString = () => `debit(${this.w}, ${this.amount})`;
}

class Transfer implements fc.AsyncCommand<Model, Real> {
  constructor(readonly from: number, readonly to: number, readonly amount: number) {}
  check = () => this.from !== this.to;
  async run(m: Model, r: Real) {
    ops++;
    const ok = await attempt(() =>
      rt.deps.db.tx(async (q) => {
        await credit(q, rt.deps.ids, movement(r.wallets[this.to]!, this.amount));
        await debit(q, rt.deps.ids, movement(r.wallets[this.from]!, this.amount));
      }),
    );
    const expected = m.balances[this.from]! >= this.amount;
    if (ok !== expected) {
      violations++;
      throw new Error(`transfer ${ok ? 'went through' : 'was refused'} with model balance ${m.balances[this.from]}`);
    }
    if (ok) {
      m.balances[this.from]! -= this.amount;
      m.balances[this.to]! += this.amount;
    } else refused++;
    // a refused transfer rolled back its credit too
    await check(m, r, this.from);
    await check(m, r, this.to);
  }
  toString = () => `transfer(${this.from} → ${this.to}, ${this.amount})`;
}

async function checkChains(r: Real, m: Model): Promise<void> {
  for (let i = 0; i < r.wallets.length; i++) {
    const entries = await rt.deps.db.all<{ direction: string; amount: number; balance_after: number; seq: number }>(
      'SELECT direction, amount, balance_after, seq FROM wallet_entries WHERE wallet_id = ? ORDER BY seq',
      [r.wallets[i]!],
    );
    let running = 0;
    entries.forEach((e, k) => {
      running += e.direction === 'credit' ? Number(e.amount) : -Number(e.amount);
      if (Number(e.seq) !== k + 1 || running < 0 || Number(e.balance_after) !== running) {
        violations++;
        throw new Error(`wallet ${i}: entry ${k + 1} breaks the chain (seq ${e.seq}, balance_after ${e.balance_after}, running ${running})`);
      }
    });
    if (running !== m.balances[i]) {
      violations++;
      throw new Error(`wallet ${i}: entries replay to ${running}, model ${m.balances[i]}`);
    }
  }
}

const amount = fc.oneof(fc.integer({ min: 1, max: 100 }), fc.integer({ min: 1, max: 1_000_000 }));
const wallet = fc.integer({ min: 0, max: WALLETS - 1 });
const commands = [
  fc.tuple(wallet, amount).map(([w, a]) => new Credit(w, a)),
  fc.tuple(wallet, amount).map(([w, a]) => new Debit(w, a)),
  fc.tuple(wallet, wallet, amount).map(([f, t, a]) => new Transfer(f, t, a)),
];

it(`${TARGET_OPS} random ledger operations against a model of balances: 0 invariant violations`, async () => {
  const started = performance.now();
  let runs = 0;
  await fc.assert(
    fc.asyncProperty(fc.commands(commands, { maxCommands: 1000, size: 'max' }), async (cmds) => {
      runs++;
      const now = new Date();
      const wallets = await rt.deps.db.tx(async (q) => {
        const out: string[] = [];
        for (let i = 0; i < WALLETS; i++) out.push(await createWallet(q, rt.deps.ids, merchantId, 'submerchant', rt.deps.ids(), now));
        return out;
      });
      const model: Model = { balances: wallets.map(() => 0) };
      const real: Real = { wallets };
      await fc.asyncModelRun(() => ({ model, real }), cmds);
      await checkChains(real, model);
    }),
    // keep going until at least TARGET_OPS operations ran (runs are up to 1,000 commands)
    { numRuns: 40, interruptAfterTimeLimit: 120_000, markInterruptAsFailure: false, endOnFailure: true },
  );
  const integrity = await rt.deps.db.get<{ integrity_check: string }>('PRAGMA integrity_check');
  const secs = (performance.now() - started) / 1000;
  report(`ledger model ${ops} operations in ${runs} runs (${refused} refused for insufficient funds) → ${violations} invariant violations, integrity ${integrity!.integrity_check} (${secs.toFixed(1)} s)`);
  expect(violations).toBe(0);
  expect(integrity!.integrity_check).toBe('ok');
  expect(ops).toBeGreaterThanOrEqual(TARGET_OPS);
}, 180_000);
