import type { sandboxWalletEndpoints } from '../../contract/resources/sandboxWallet.js';
import type { Handlers } from '../context.js';
import { adjustWallet } from '../services/sandboxWallet.js';

export const sandboxWalletHandlers: Handlers<typeof sandboxWalletEndpoints> = {
  'sandbox.wallet.adjust': (ctx, { body }) => adjustWallet(ctx, body),
};
