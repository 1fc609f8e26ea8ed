import type { AppDeps, Principal } from '../context.js';
import type { ApiError } from '../errors.js';
import { ApiLimits, CheckoutLimits, DEFAULT_RATE_LIMITS } from '../rateLimit.js';

/**
 * The limit stage: the API's budgets (per merchant, per client, failed authentications) and the
 * hosted checkout's (per client, per payment link), owned by one app. `deps.rateLimit` and
 * `deps.checkoutRateLimit` are read as they are now (null: no limits), so a server's settings
 * may be replaced while it runs.
 */
export class Limits {
  private api: { cfg: AppDeps['rateLimit']; limits: ApiLimits | null } | undefined;
  private checkout: { cfg: AppDeps['checkoutRateLimit']; limits: CheckoutLimits | null } | undefined;

  constructor(private readonly deps: AppDeps) {}

  private apiLimits(): ApiLimits | null {
    const cfg = this.deps.rateLimit;
    if (!this.api || this.api.cfg !== cfg) this.api = { cfg, limits: cfg === null ? null : new ApiLimits(cfg ?? DEFAULT_RATE_LIMITS) };
    return this.api.limits;
  }

  private checkoutLimits(): CheckoutLimits | null {
    const cfg = this.deps.checkoutRateLimit;
    if (!this.checkout || this.checkout.cfg !== cfg) this.checkout = { cfg, limits: cfg === null ? null : new CheckoutLimits(cfg) };
    return this.checkout.limits;
  }

  /** After a 401: the error to answer (the 401, or a 429 once a budget is spent). */
  authFailed(err: ApiError, client: string, publicKey: string | undefined): ApiError {
    return this.apiLimits()?.authFailed(err, client, publicKey, Date.now()) ?? err;
  }

  /** An authenticated request: its merchant's budget (secret key) or its client's (public key). */
  afterAuth(principal: Principal, client: string): void {
    this.apiLimits()?.afterAuth(principal, client, Date.now());
  }

  /** Before the body of an operation anyone may call (the checkout's pay) is read: the client's pay budget. */
  publicBody(client: string): void {
    this.checkoutLimits()?.take('payPerIp', client, Date.now());
  }

  /** A status poll of the hosted checkout: the client's poll budget. */
  checkoutPoll(client: string): void {
    this.checkoutLimits()?.take('pollPerIp', client, Date.now());
  }

  /** A payment a link takes: its share of the link's budget; returns what gives it back. */
  admitLinkPayment(linkId: string, client: string): () => void {
    return this.checkoutLimits()?.admitLinkPayment(linkId, client, Date.now()) ?? (() => undefined);
  }
}
