/**
 * The contract: every resource and request schema, the endpoint table, error codes and event
 * names. Server, SDK, CLI and OpenAPI all derive from this module; nothing else defines the
 * shape of a resource.
 */
import { apiKeyEndpoints } from './resources/apiKeys.js';
import { tokenEndpoints } from './resources/tokens.js';
import { merchantEndpoints } from './resources/merchant.js';
import { pinEndpoints } from './resources/pin.js';
import { withdrawalEndpoints } from './resources/withdrawals.js';
import { recipientEndpoints } from './resources/recipients.js';
import { paymentLinkEndpoints } from './resources/paymentLinks.js';
import { submerchantEndpoints } from './resources/submerchants.js';
import { webhookEndpoints } from './resources/webhooks.js';
import { sandboxWalletEndpoints } from './resources/sandboxWallet.js';
import type { Endpoint } from './endpoint.js';
import { chargeEndpoints } from './resources/charges.js';
import { receivableEndpoints } from './resources/receivables.js';
import { walletEndpoints } from './resources/wallets.js';
import { clockEndpoints } from './resources/clock.js';
import { checkoutEndpoints } from './resources/checkout.js';
import { chargebackEndpoints } from './resources/chargebacks.js';

export * from './common.js';
export * from './errors.js';
export * from './endpoint.js';
export * from './events.js';
export * from './resources/apiKeys.js';
export * from './resources/tokens.js';
export * from './resources/merchant.js';
export * from './resources/pin.js';
export * from './resources/withdrawals.js';
export * from './resources/recipients.js';
export * from './resources/paymentLinks.js';
export * from './resources/charges.js';
export * from './resources/pricing.js';
export * from './resources/receivables.js';
export * from './resources/wallets.js';
export * from './resources/clock.js';
export * from './resources/submerchants.js';
export * from './resources/webhooks.js';
export * from './resources/sandboxWallet.js';
export * from './filters.js';
export * from './resources/checkout.js';
export * from './resources/chargebacks.js';

export const endpoints = [
  ...merchantEndpoints,
  ...apiKeyEndpoints,
  ...tokenEndpoints,
  ...pinEndpoints,
  ...withdrawalEndpoints,
  ...recipientEndpoints,
  ...paymentLinkEndpoints,
  ...chargeEndpoints,
  ...chargebackEndpoints,
  ...receivableEndpoints,
  ...walletEndpoints,
  ...clockEndpoints,
  ...submerchantEndpoints,
  ...webhookEndpoints,
  ...sandboxWalletEndpoints,
  ...checkoutEndpoints,
] as const;

export type AnyEndpoint = Endpoint;
