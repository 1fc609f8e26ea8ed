import type { ServiceDeps } from '../context.js';
import { createMerchant, generateKeyPair, type NewMerchant } from './merchants.js';

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
    const wallet = await q.get<{ id: string }>("SELECT id FROM wallets WHERE owner_type = 'merchant' AND owner_id = ?", [row.value]);
    const keys = generateKeyPair(deps.mode);
    await q.run(
      `INSERT INTO api_keys (id, merchant_id, name, public_key, secret_hash, is_active, allowed_ips, created_at)
       VALUES (?, ?, ?, ?, ?, 1, '[]', ?)`,
      [deps.ids(), row.value, keyName, keys.public_key, deps.keyring.hashSecret(keys.secret_key), now.toISOString()],
    );
    return { merchant_id: row.value, wallet_id: wallet!.id, ...keys };
  });
}
