import { credit } from '../../src/server/services/ledger.js';
import { createWallet } from '../../src/server/services/wallets.js';
import type { TestEnv } from './server.js';

/** Credits a wallet `times` × `amount` cents through the ledger (reference_type 'test'). */
export async function fund(env: TestEnv, walletId: string, amount: number, times = 1): Promise<void> {
  const { db, ids } = env.rt.deps;
  for (let i = 0; i < times; i++) {
    await db.tx((q) => credit(q, ids, { walletId, amount, referenceType: 'test', referenceId: ids(), description: 'test funding', at: env.clock.now() }));
  }
}

export async function balanceOf(env: TestEnv, walletId: string): Promise<number> {
  const w = await env.rt.deps.db.get<{ balance: number }>('SELECT balance FROM wallets WHERE id = ?', [walletId]);
  return Number(w!.balance);
}

/** A submerchant row with its wallet, written directly (the submerchants API is another issue). */
export async function addSubmerchant(env: TestEnv, merchantId = env.merchant.merchant_id): Promise<{ id: string; wallet_id: string }> {
  const { db, ids } = env.rt.deps;
  const id = ids();
  const ts = env.clock.now().toISOString();
  const walletId = await db.tx(async (q) => {
    await q.run(
      `INSERT INTO submerchants (id, parent_merchant_id, entity_type, trade_name, legal_name, tax_id, email, created_at, updated_at)
       VALUES (?, ?, 'pj', 'Sub Loja', 'Sub Loja LTDA', '11222333000181', 'sub@example.com', ?, ?)`,
      [id, merchantId, ts, ts],
    );
    return createWallet(q, ids, merchantId, 'submerchant', id, env.clock.now());
  });
  return { id, wallet_id: walletId };
}

export const CPF = '52998224725';
export const CNPJ = '11222333000181';
export const CNPJ_ALNUM = '12ABC34501DE35';
