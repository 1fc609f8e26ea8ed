import type { walletEndpoints } from '../../contract/resources/wallets.js';
import type { Handlers } from '../context.js';
import { listEntries, listWallets, walletStatement } from '../services/wallets.js';

export const walletHandlers: Handlers<typeof walletEndpoints> = {
  'wallets.list': (ctx, { query, page }) => listWallets(ctx, query, page),
  'wallets.entries': (ctx, { params, query, page }) => listEntries(ctx, params.wallet_id, query, page),
  'wallets.statement': (ctx, { params, query, page }) => walletStatement(ctx, params.wallet_id, query, page),
};
