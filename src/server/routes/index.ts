/**
 * Every handler of the service, by endpoint id. Each resource module exports a `Handlers`
 * object for its endpoints; createApp refuses to start if an endpoint of the contract has no
 * handler. Raw routes (pages, downloads) are registered here too;
 * due work (time-based moves) is in src/server/due.ts.
 */
import type { Hono } from 'hono';
import type { AppDeps, AppEnv } from '../context.js';
import { apiKeyHandlers } from './apiKeys.js';
import { merchantHandlers } from './merchant.js';
import { tokenHandlers } from './tokens.js';
import { pinHandlers } from './pin.js';
import { withdrawalHandlers } from './withdrawals.js';
import { recipientHandlers } from './recipients.js';
import { paymentLinkHandlers } from './paymentLinks.js';
import { chargeHandlers } from './charges.js';
import { receivableHandlers } from './receivables.js';
import { walletHandlers } from './wallets.js';
import { clockHandlers } from './clock.js';
import { submerchantHandlers } from './submerchants.js';
import { webhookHandlers } from './webhooks.js';
import { sandboxWalletHandlers } from './sandboxWallet.js';
import { checkoutHandlers, checkoutRoutes } from './checkout.js';

export const handlers = {
  ...merchantHandlers,
  ...apiKeyHandlers,
  ...tokenHandlers,
  ...pinHandlers,
  ...withdrawalHandlers,
  ...recipientHandlers,
  ...paymentLinkHandlers,
  ...chargeHandlers,
  ...receivableHandlers,
  ...walletHandlers,
  ...clockHandlers,
  ...submerchantHandlers,
  ...webhookHandlers,
  ...sandboxWalletHandlers,
  ...checkoutHandlers,
};

export const rawRoutes: Array<(app: Hono<AppEnv>, deps: AppDeps) => void> = [
  // hosted checkout page of payment links and its assets
  checkoutRoutes,
];
