import * as z from 'zod';
import { endpoint, type CliPresentation } from '../endpoint.js';
import { money, nonEmpty, positiveCents, timestamp, uuid } from '../common.js';

/**
 * Sandbox only (an extension): move the merchant's own wallet by hand, through the same ledger
 * writers as every other movement. Lets a sandbox user fund a wallet to try withdrawals, and
 * lets the replica test drive concurrent debits from several server processes.
 */
export const walletAdjustment = z.object({
  id: uuid().describe('the wallet entry written'),
  wallet_id: uuid(),
  direction: z.enum(['credit', 'debit']),
  amount: money(),
  balance_after: money(),
  description: z.string(),
  created_at: timestamp(),
});
export type WalletAdjustment = z.infer<typeof walletAdjustment>;

export const walletAdjustmentCreate = z.strictObject({
  direction: z.enum(['credit', 'debit'], { error: "must be 'credit' or 'debit'" }),
  amount: positiveCents(),
  description: nonEmpty(255).optional(),
});

/** How the CLI presents this resource (src/contract/presentation.ts). */
export const sandboxWalletPresentation: CliPresentation = {
  groups: {
    'sandbox wallet': 'Sandbox wallet: credit or debit a wallet by hand (sandbox only)',
  },
};

export const sandboxWalletEndpoints = [
  endpoint({
    id: 'sandbox.wallet.adjust',
    method: 'POST',
    path: '/v1/sandbox/wallet/adjustments',
    summary: "Credit or debit the merchant's wallet by hand; a debit never takes the balance below zero",
    auth: 'secret',
    body: walletAdjustmentCreate,
    response: walletAdjustment,
    status: 201,
    sandbox: true,
    message: 'Wallet adjusted',
    tag: 'Sandbox',
    cli: {
      command: ['sandbox', 'wallet', 'adjust'],
      example: 'mpay sandbox wallet adjust --direction credit --amount 100000',
      columns: ['id', 'direction', 'amount', 'balance_after', 'created_at'],
    },
  }),
] as const;
