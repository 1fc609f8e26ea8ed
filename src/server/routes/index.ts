/**
 * Every handler of the service, by endpoint id, and the pages. Each resource module exports a
 * `Handlers` object for its endpoints; the pipeline refuses to start if an endpoint of the
 * contract has no handler. Due work (time-based moves) is in src/server/due.ts.
 */
import type { AppDeps } from '../context.js';
import type { Answer } from '../pipeline/request.js';
import { apiKeyHandlers } from './apiKeys.js';
import { merchantHandlers } from './merchant.js';
import { tokenHandlers } from './tokens.js';
import { pinHandlers } from './pin.js';
import { withdrawalHandlers } from './withdrawals.js';
import { recipientHandlers } from './recipients.js';
import { paymentLinkHandlers } from './paymentLinks.js';
import { chargeHandlers } from './charges.js';
import { chargebackHandlers } from './chargebacks.js';
import { receivableHandlers } from './receivables.js';
import { walletHandlers } from './wallets.js';
import { clockHandlers } from './clock.js';
import { submerchantHandlers } from './submerchants.js';
import { webhookHandlers } from './webhooks.js';
import { sandboxWalletHandlers } from './sandboxWallet.js';
import { checkoutHandlers, checkoutPages } from './checkout.js';
import { probePages } from './probes.js';
import { boletoPages } from './boleto.js';

export const handlers = {
  ...merchantHandlers,
  ...apiKeyHandlers,
  ...tokenHandlers,
  ...pinHandlers,
  ...withdrawalHandlers,
  ...recipientHandlers,
  ...paymentLinkHandlers,
  ...chargeHandlers,
  ...chargebackHandlers,
  ...receivableHandlers,
  ...walletHandlers,
  ...clockHandlers,
  ...submerchantHandlers,
  ...webhookHandlers,
  ...sandboxWalletHandlers,
  ...checkoutHandlers,
};

/** What a page's handler is given: the app's deps, the path's parameters, whether it is a HEAD. */
export interface PageInput {
  deps: AppDeps;
  params: Record<string, string>;
  head: boolean;
  /** the origin the request was addressed to */
  origin(): string;
}

export type PageHandler = (p: PageInput) => Promise<Answer>;

/** A page: not an API endpoint (no envelope, no authentication): probes, documents, the checkout, the printable boleto. */
export interface PageRoute {
  method: 'GET';
  path: string;
  handle: PageHandler;
}

export const pages: readonly PageRoute[] = [...probePages, ...checkoutPages, ...boletoPages];
