import type { systemEndpoints } from '../../contract/resources/system.js';
import type { Handlers } from '../context.js';
import { notFound } from '../errors.js';

export const systemHandlers: Handlers<typeof systemEndpoints> = {
  'merchant.get': async (ctx) => {
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
  },
};
