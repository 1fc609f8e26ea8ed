import type { AppDeps, Principal } from '../context.js';
import { ApiError } from '../errors.js';
import { ApiLimits, CheckoutLimits, DEFAULT_RATE_LIMITS, RateLimiter, type Bucket } from '../rateLimit.js';
import { uploadRateOf } from '../uploadLimits.js';

/**
 * The limit stage: the API's budgets (per merchant, per client, failed authentications) and the
 * hosted checkout's (per client, per payment link), and each merchant's uploads, owned by one
 * app. `deps.rateLimit`, `deps.checkoutRateLimit` and `deps.uploadLimits` are read as they are
 * now (null: no limits), so a server's settings may be replaced while it runs.
 */
export class Limits {
  private api: { cfg: AppDeps['rateLimit']; limits: ApiLimits | null } | undefined;
  private checkout: { cfg: AppDeps['checkoutRateLimit']; limits: CheckoutLimits | null } | undefined;
  private uploads: { rate: Bucket; limiter: RateLimiter } | undefined;

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

  /**
   * Before an upload's body is read: one of the merchant's uploads (on the server's clock), or
   * 429 with Retry-After. The bucket is made again when the configured rate changes.
   */
  upload(merchantId: string): void {
    const rate = uploadRateOf(this.deps.uploadLimits);
    if (!rate) return;
    if (this.uploads?.rate !== rate) this.uploads = { rate, limiter: new RateLimiter(rate) };
    const wait = this.uploads.limiter.take(merchantId, this.deps.clock.now().getTime());
    if (wait) {
      const perMinute = Math.round(rate.perSecond * 60);
      throw new ApiError(
        'rate_limited',
        `Too many uploads for this merchant (${rate.burst} at once, then ${perMinute} a minute); retry in ${wait} s`,
        undefined,
        { retryAfterS: wait },
      );
    }
  }
}
