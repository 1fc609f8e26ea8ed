/**
 * A chargeback is the one operation that may take a wallet below zero: under concurrency every
 * other debit stays conditional (withdrawals racing a chargeback never end below zero
 * themselves), the store refuses any other debit below zero even written by hand, and a
 * negative wallet refuses withdrawals until settlements pay the debt. Both store backends.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { balanceOf, cardCharge, checkLedger, checkStatements } from '../helpers/money.js';

let env: TestEnv;
beforeEach(async () => {
  env = await testEnv();
});
afterEach(async () => env.close());

const withdraw = (amount: number, key: string) =>
  env.call('POST', '/v1/withdrawals', {
    type: 'pix', wallet_id: env.merchant.wallet_id, amount, pix_key: 'ana@example.com', pix_key_type: 'email',
    holder_document_type: 'cpf', holder_document: '52998224725', idempotency_key: key,
  });

describe('withdrawals racing a chargeback', () => {
  it('the chargeback always goes through; each withdrawal is debited only from a balance that covers it', async () => {
    await cardCharge(env, 10000, 1); // nets 9701
    const big = (await cardCharge(env, 50000, 1)).body.data; // nets 48505
    await env.call('POST', '/v1/sandbox/clock/advance', { days: 40 }); // both settle
    const funded = 9701 + 48505;
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(funded);

    // then twice more on a wallet that may already be below zero: each time a new charge settles first
    for (let round = 0; round < 3; round++) {
      const target = round === 0 ? big.id : (await cardCharge(env, 20000, 1)).body.data.id;
      if (round > 0) await env.call('POST', '/v1/sandbox/clock/advance', { days: 40 });
      const start = await balanceOf(env, env.merchant.wallet_id);
      const [cb, ...ws] = await Promise.all([
        env.call('POST', `/v1/sandbox/charges/${target}/chargeback`, {}),
        ...Array.from({ length: 12 }, (_, i) => withdraw(5000, `race-${round}-${i}`)),
      ]);
      expect(cb!.status, JSON.stringify(cb!.body)).toBe(201);
      expect(cb!.body.data.liabilities[0].from_wallet).toBe(cb!.body.data.amount); // its receivable had settled
      const ok = ws.filter((w) => w.status === 201);
      for (const w of ws.filter((x) => x.status !== 201)) {
        expect(w.status, JSON.stringify(w.body)).toBe(422);
        expect(['insufficient_funds', 'negative_balance']).toContain(w.body.error);
      }
      const end = await balanceOf(env, env.merchant.wallet_id);
      expect(end).toBe(start - ok.length * 5000 - cb!.body.data.amount);
      // each withdrawal left a balance of zero or more; only the chargeback's debit may end below zero
      const debits = (await env.rt.deps.db.all<{ reference_type: string; balance_after: number }>(
        "SELECT reference_type, balance_after FROM wallet_entries WHERE wallet_id = ? AND direction = 'debit'",
        [env.merchant.wallet_id],
      ));
      for (const d of debits) if (d.reference_type === 'withdrawal') expect(Number(d.balance_after)).toBeGreaterThanOrEqual(0);
      await checkLedger(env);
    }
    await checkStatements(env);
  });
});

describe('the store is the last line of defence', () => {
  it('refuses any debit entry below zero that is not a chargeback, and any balance below the floor', async () => {
    const { db, ids } = env.rt.deps;
    const insert = (direction: string, type: string, balanceAfter: number) =>
      db.run(
        `INSERT INTO wallet_entries (id, wallet_id, direction, amount, balance_after, reference_type, reference_id, description, created_at, seq)
         VALUES (?, ?, ?, 1, ?, ?, 'x', 'by hand', ?, ?)`,
        [ids(), env.merchant.wallet_id, direction, balanceAfter, type, env.clock.now().toISOString(), 1000 + Math.floor(Math.random() * 1e6)],
      );
    await expect(insert('debit', 'withdrawal', -1)).rejects.toThrow(/check/i);
    await expect(insert('debit', 'refund', -1)).rejects.toThrow(/check/i);
    await insert('debit', 'chargeback', -1);
    await insert('debit', 'chargeback_fee', -2);
    await insert('credit', 'receivable', -1);
    await db.run('UPDATE wallets SET balance = -5 WHERE id = ?', [env.merchant.wallet_id]);
    await expect(db.run('UPDATE wallets SET balance = -1000000000000001 WHERE id = ?', [env.merchant.wallet_id])).rejects.toThrow(/check/i);
  });
});
