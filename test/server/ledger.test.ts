import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { credit, debit, MAX_WALLET_BALANCE } from '../../src/server/services/ledger.js';
import { testEnv, type TestEnv } from '../helpers/server.js';

let env: TestEnv;
beforeEach(async () => {
  env = await testEnv();
});
afterEach(async () => env.close());

describe('ledger', () => {
  const move = (amount: number) => ({ walletId: env.merchant.wallet_id, amount, referenceType: 'test', referenceId: 'r', description: 'test', at: env.clock.now() });

  it('keeps a running balance on immutable entries', async () => {
    const { db, ids } = env.rt.deps;
    await db.tx((q) => credit(q, ids, move(1000)));
    const e = await db.tx((q) => debit(q, ids, move(300)));
    expect(e.balance_after).toBe(700);
    const w = await db.get<{ balance: number }>('SELECT balance FROM wallets WHERE id = ?', [env.merchant.wallet_id]);
    expect(w!.balance).toBe(700);
  });

  it('refuses a debit below zero and changes nothing', async () => {
    const { db, ids } = env.rt.deps;
    await db.tx((q) => credit(q, ids, move(100)));
    await expect(db.tx((q) => debit(q, ids, move(101)))).rejects.toMatchObject({ code: 'insufficient_funds' });
    const n = await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM wallet_entries');
    expect(n!.n).toBe(1);
  });

  it('refuses a credit past the maximum balance and changes nothing', async () => {
    const { db, ids } = env.rt.deps;
    await db.tx((q) => credit(q, ids, move(MAX_WALLET_BALANCE)));
    await expect(db.tx((q) => credit(q, ids, move(1)))).rejects.toMatchObject({ code: 'business_rule' });
    await expect(db.tx((q) => credit(q, ids, move(Number.MAX_SAFE_INTEGER)))).rejects.toMatchObject({ code: 'business_rule' });
    const w = await db.get<{ balance: number }>('SELECT balance FROM wallets WHERE id = ?', [env.merchant.wallet_id]);
    expect(w!.balance).toBe(MAX_WALLET_BALANCE);
  });

  it('refuses fractional cents', async () => {
    const { db, ids } = env.rt.deps;
    await expect(db.tx((q) => credit(q, ids, move(1.5)))).rejects.toThrow(/integer/);
  });
});
