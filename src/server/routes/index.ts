/**
 * Every handler of the service, by endpoint id. Each resource module exports a `Handlers`
 * object for its endpoints; createApp refuses to start if an endpoint of the contract has no
 * handler. Raw routes (pages, downloads) and due work (time-based moves run before each
 * authenticated request) are registered here too.
 */
import type { Hono } from 'hono';
import type { AppDeps, RequestContext } from '../context.js';
import { apiKeyHandlers } from './apiKeys.js';
import { systemHandlers } from './system.js';
import { tokenHandlers } from './tokens.js';
import { pinHandlers } from './pin.js';
import { withdrawalHandlers } from './withdrawals.js';
import { recipientHandlers } from './recipients.js';
import { paymentLinkHandlers } from './paymentLinks.js';
import { advanceWithdrawals } from '../services/withdrawals.js';
import { expireDueLinks } from '../services/paymentLinks.js';

export const handlers = {
  ...systemHandlers,
  ...apiKeyHandlers,
  ...tokenHandlers,
  ...pinHandlers,
  ...withdrawalHandlers,
  ...recipientHandlers,
  ...paymentLinkHandlers,
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const rawRoutes: Array<(app: Hono<any>, deps: AppDeps) => void> = [];

export const dueWork: Array<(ctx: RequestContext) => Promise<void>> = [
  // sandbox payout rail: pending → processing → completed | failed (src/domain/sandbox-payouts.ts)
  async (ctx) => {
    await advanceWithdrawals(ctx.deps, ctx.merchantId, ctx.now());
  },
  // payment links whose expires_at has passed → expired
  async (ctx) => {
    await expireDueLinks(ctx.db, ctx.merchantId, ctx.now());
  },
];
