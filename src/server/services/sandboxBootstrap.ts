import type { ServiceDeps } from './context.js';
import { createMerchant, generateKeyPair, type NewMerchant } from './merchants.js';
import { walletOf } from './wallets.js';

/**
 * Credentials for the embedded default: the data directory's sandbox merchant (created on
 * first use, remembered in `meta`) and a fresh key pair for it. Safe when several processes
 * bootstrap one data directory at once: the write transaction serializes them and the merchant
 * is created exactly once.
 */
export async function sandboxCredentials(deps: ServiceDeps, keyName = 'cli'): Promise<NewMerchant> {
  return deps.db.tx(async (q) => {
    const now = deps.clock.now();
    const row = await q.get<{ value: string }>("SELECT value FROM meta WHERE key = 'sandbox_merchant_id'");
    if (!row) {
      const m = await createMerchant(q, deps, 'Sandbox merchant', now);
      await q.run("INSERT INTO meta (key, value) VALUES ('sandbox_merchant_id', ?)", [m.merchant_id]);
      return m;
    }
    const walletId = await walletOf(q, 'merchant', row.value);
    const keys = generateKeyPair(deps.mode);
    await q.run(
      `INSERT INTO api_keys (id, merchant_id, name, public_key, secret_hash, is_active, allowed_ips, created_at)
       VALUES (?, ?, ?, ?, ?, 1, '[]', ?)`,
      [deps.ids(), row.value, keyName, keys.public_key, deps.keyring.hashSecret(keys.secret_key), now.toISOString()],
    );
    return { merchant_id: row.value, wallet_id: walletId!, ...keys };
  });
}

/**
 * Whether a key pair kept for a data directory still opens that directory's sandbox merchant:
 * an active key of it whose secret matches. A directory emptied and made again has a new
 * sandbox merchant, and the kept keys then open nothing.
 */
export async function sandboxKeysValid(deps: ServiceDeps, keys: { public_key: string; secret_key: string }): Promise<boolean> {
  const row = await deps.db.get<{ secret_hash: string }>(
    `SELECT k.secret_hash FROM api_keys k JOIN meta m ON m.key = 'sandbox_merchant_id' AND m.value = k.merchant_id
     WHERE k.public_key = ? AND k.is_active = 1`,
    [keys.public_key],
  );
  return !!row && deps.keyring.verifySecret(keys.secret_key, row.secret_hash);
}
