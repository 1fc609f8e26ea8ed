/**
 * The contract's resource modules, each loaded when it is first asked for. A module builds its
 * zod schemas as it loads, and the whole contract is ~1,800 schemas: a process that
 * serves one endpoint (every embedded CLI command) builds the schemas of that endpoint's
 * resource only. The server routes by the table the build generates from the same modules
 * (generated/operations.json: method, path, credentials, resource), which needs no schema.
 * Importing this module loads none of them.
 */
import type { AnyEndpoint } from './index.js';

export const RESOURCE_LOADERS = {
  merchant: async () => (await import('./resources/merchant.js')).merchantEndpoints,
  apiKeys: async () => (await import('./resources/apiKeys.js')).apiKeyEndpoints,
  tokens: async () => (await import('./resources/tokens.js')).tokenEndpoints,
  pin: async () => (await import('./resources/pin.js')).pinEndpoints,
  withdrawals: async () => (await import('./resources/withdrawals.js')).withdrawalEndpoints,
  recipients: async () => (await import('./resources/recipients.js')).recipientEndpoints,
  paymentLinks: async () => (await import('./resources/paymentLinks.js')).paymentLinkEndpoints,
  charges: async () => (await import('./resources/charges.js')).chargeEndpoints,
  chargebacks: async () => (await import('./resources/chargebacks.js')).chargebackEndpoints,
  receivables: async () => (await import('./resources/receivables.js')).receivableEndpoints,
  wallets: async () => (await import('./resources/wallets.js')).walletEndpoints,
  clock: async () => (await import('./resources/clock.js')).clockEndpoints,
  submerchants: async () => (await import('./resources/submerchants.js')).submerchantEndpoints,
  webhooks: async () => (await import('./resources/webhooks.js')).webhookEndpoints,
  sandboxWallet: async () => (await import('./resources/sandboxWallet.js')).sandboxWalletEndpoints,
  checkout: async () => (await import('./resources/checkout.js')).checkoutEndpoints,
} satisfies Record<string, () => Promise<readonly AnyEndpoint[]>>;

export type ResourceName = keyof typeof RESOURCE_LOADERS;
