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
import { sandboxWalletHandlers } from './sandboxWallet.js';

export const handlers = {
  ...systemHandlers,
  ...apiKeyHandlers,
  ...tokenHandlers,
  ...sandboxWalletHandlers,
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const rawRoutes: Array<(app: Hono<any>, deps: AppDeps) => void> = [];

export const dueWork: Array<(ctx: RequestContext) => Promise<void>> = [];
