/**
 * The sandbox's hand adjustment of the merchant's own wallet: a credit or a debit through the
 * ledger's writers, like every other movement (a debit never takes the balance below zero).
 */
import type { WalletAdjustment } from '../../contract/resources/sandboxWallet.js';
import type { BodyFor, ServiceContext } from './context.js';
import { notFound } from '../errors.js';
import { post } from './ledger.js';
import { walletOf } from './wallets.js';

export async function adjustWallet(ctx: ServiceContext, body: BodyFor<'sandbox.wallet.adjust'>): Promise<WalletAdjustment> {
  const at = ctx.now();
  return ctx.db.tx(async (q) => {
    const walletId = await walletOf(q, 'merchant', ctx.merchantId);
    if (!walletId) throw notFound('Wallet');
    const description = body.description ?? `sandbox ${body.direction}`;
    // A hand adjustment has no other record: its entry is the reference (a UUID, as every
    // reference_id; the request id is the client's string and is not one).
    const id = ctx.deps.ids();
    const e = await post(q, ctx.deps.ids, body.direction, {
      id,
      walletId,
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
}
