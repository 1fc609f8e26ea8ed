import type { Queryable } from '../../store/db.js';
import type { IdGenerator } from '../../domain/ids.js';

export type WalletOwner = 'merchant' | 'submerchant';

/** Creates the BRL wallet of a merchant or submerchant, in the caller's transaction. */
export async function createWallet(
  q: Queryable,
  ids: IdGenerator,
  merchantId: string,
  ownerType: WalletOwner,
  ownerId: string,
  now: Date,
): Promise<string> {
  const id = ids();
  const ts = now.toISOString();
  await q.run(
    `INSERT INTO wallets (id, merchant_id, owner_type, owner_id, currency, balance, created_at, updated_at)
     VALUES (?, ?, ?, ?, 'BRL', 0, ?, ?)`,
    [id, merchantId, ownerType, ownerId, ts, ts],
  );
  return id;
}
