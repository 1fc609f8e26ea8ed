import type { AppDeps, Principal } from '../context.js';
import { ApiError } from '../errors.js';
import { ApiLimits, CheckoutLimits, DEFAULT_RATE_LIMITS, RateLimiter, type Bucket } from '../rateLimit.js';
import { uploadRateOf } from '../uploadLimits.js';

/**
 * The limit stage: the API's budgets (per merchant, per client, failed authentications) and the
 * hosted checkout's (per client, per payment link), and each merchant's uploads, owned by one
 * app. `deps.rateLimit`, `deps.checkoutRateLimit` and `deps.uploadLimits` are read once, when
 * the app is built (null: no limits).
 */
export class Limits {
  private readonly api: ApiLimits | null;
  private readonly checkout: CheckoutLimits | null;
  private readonly uploads: { rate: Bucket; limiter: RateLimiter } | null;

  constructor(private readonly deps: AppDeps) {
    this.api = deps.rateLimit === null ? null : new ApiLimits(deps.rateLimit ?? DEFAULT_RATE_LIMITS);
    this.checkout = deps.checkoutRateLimit === null ? null : new CheckoutLimits(deps.checkoutRateLimit);
    const rate = uploadRateOf(deps.uploadLimits);
    this.uploads = rate ? { rate, limiter: new RateLimiter(rate) } : null;
  }

  /** After a 401: the error to answer (the 401, or a 429 once a budget is spent). */
  authFailed(err: ApiError, client: string, publicKey: string | undefined): ApiError {
    return this.api?.authFailed(err, client, publicKey, Date.now()) ?? err;
  }

  /** An authenticated request: its merchant's budget (secret key) or its client's (public key). */
  afterAuth(principal: Principal, client: string): void {
    this.api?.afterAuth(principal, client, Date.now());
  }

  /** Before the body of an operation anyone may call (the checkout's pay) is read: the client's pay budget. */
  publicBody(client: string): void {
    this.checkout?.take('payPerIp', client, Date.now());
  }

  /** A status poll of the hosted checkout: the client's poll budget. */
  checkoutPoll(client: string): void {
    this.checkout?.take('pollPerIp', client, Date.now());
  }

  /** A payment a link takes: its share of the link's budget; returns what gives it back. */
  admitLinkPayment(linkId: string, client: string): () => void {
    return this.checkout?.admitLinkPayment(linkId, client, Date.now()) ?? (() => undefined);
  }

  /**
   * Before an upload's body is read: one of the merchant's uploads (on the server's clock), or
   * 429 with Retry-After.
   */
  upload(merchantId: string): void {
    if (!this.uploads) return;
    const { rate, limiter } = this.uploads;
    const wait = limiter.take(merchantId, this.deps.clock.now().getTime());
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
