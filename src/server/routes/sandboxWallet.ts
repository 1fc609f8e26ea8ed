import type { sandboxWalletEndpoints } from '../../contract/resources/sandboxWallet.js';
import type { Handlers } from '../context.js';
import { notFound } from '../errors.js';
import { post } from '../services/ledger.js';

export const sandboxWalletHandlers: Handlers<typeof sandboxWalletEndpoints> = {
  'sandbox.wallet.adjust': async (ctx, { body }) => {
    const at = ctx.now();
    return ctx.db.tx(async (q) => {
      const w = await q.get<{ id: string }>("SELECT id FROM wallets WHERE owner_type = 'merchant' AND owner_id = ?", [ctx.merchantId]);
      if (!w) throw notFound('Wallet');
      const description = body.description ?? `sandbox ${body.direction}`;
      // A hand adjustment has no other record: its entry is the reference (a UUID, as every
      // reference_id; the request id is the client's string and is not one).
      const id = ctx.deps.ids();
      const e = await post(q, ctx.deps.ids, body.direction, {
        id,
        walletId: w.id,
        amount: body.amount,
        referenceType: 'sandbox_adjustment',
        referenceId: id,
        description,
        at,
      });
      return {
        id: e.id,
        wallet_id: e.wallet_id,
        direction: e.direction,
        amount: e.amount,
        balance_after: e.balance_after,
        description: e.description,
        created_at: e.created_at,
      };
    });
  },
};
