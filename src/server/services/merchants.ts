import { randomBytes } from 'node:crypto';
import type { Queryable } from '../../store/db.js';
import type { IdGenerator } from '../../domain/ids.js';
import type { Keyring } from '../keyring.js';
import type { Merchant } from '../../contract/resources/merchant.js';
import type { Mode, ServiceContext } from './context.js';
import { notFound } from '../errors.js';
import { createWallet } from './wallets.js';

export interface KeyPair {
  public_key: string;
  secret_key: string;
}

export function generateKeyPair(mode: Mode): KeyPair {
  const env = mode === 'production' ? 'live' : 'test';
  return {
    public_key: `pk_${env}_${randomBytes(16).toString('hex')}`,
    secret_key: `sk_${env}_${randomBytes(24).toString('base64url')}`,
  };
}

/**
 * Locks the merchant's row until the caller's transaction ends (`FOR UPDATE`; on SQLite a plain
 * read, as BEGIN IMMEDIATE already holds the database's one write lock), so that transactions
 * which count a merchant's rows and then write one run one at a time and each sees the last
 * one's write.
 */
export async function lockMerchant(q: Queryable, merchantId: string): Promise<void> {
  await q.get(`SELECT id FROM merchants WHERE id = ?${q.dialect.forUpdate}`, [merchantId]);
}

export interface NewMerchant {
  merchant_id: string;
  wallet_id: string;
  public_key: string;
  secret_key: string;
}

/** A merchant with its BRL wallet and first key pair, in the caller's transaction. */
export async function createMerchant(
  q: Queryable,
  deps: { ids: IdGenerator; keyring: Keyring; mode: Mode },
  name: string,
  now: Date,
): Promise<NewMerchant> {
  const ts = now.toISOString();
  const merchantId = deps.ids();
  const keys = generateKeyPair(deps.mode);
  await q.run('INSERT INTO merchants (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)', [merchantId, name, ts, ts]);
  const walletId = await createWallet(q, deps.ids, merchantId, 'merchant', merchantId, now);
  await q.run(
    `INSERT INTO api_keys (id, merchant_id, name, public_key, secret_hash, is_active, allowed_ips, created_at)
     VALUES (?, ?, 'default', ?, ?, 1, '[]', ?)`,
    [deps.ids(), merchantId, keys.public_key, deps.keyring.hashSecret(keys.secret_key), ts],
  );
  return { merchant_id: merchantId, wallet_id: walletId, ...keys };
}

/** The merchant record of GET /v1/merchant. */
export async function merchantRecord(ctx: ServiceContext): Promise<Merchant> {
  const m = await ctx.db.get<{ id: string; name: string; pin_hash: string | null; created_at: string; wallet_id: string }>(
    `SELECT m.id, m.name, m.pin_hash, m.created_at, w.id AS wallet_id
       FROM merchants m JOIN wallets w ON w.owner_type = 'merchant' AND w.owner_id = m.id
      WHERE m.id = ?`,
    [ctx.merchantId],
  );
  if (!m) throw notFound('Merchant');
  return {
    id: m.id,
    name: m.name,
    wallet_id: m.wallet_id,
    pin_enabled: !!m.pin_hash,
    mode: ctx.deps.mode,
    clock: ctx.now().toISOString(),
    created_at: m.created_at,
  };
}
