import type { AppDeps, CheckoutRateLimit, Principal } from './context.js';
import { ApiError } from './errors.js';

/** A token bucket's size and refill. */
export interface Bucket {
  perSecond: number;
  burst: number;
}

/**
 * The API's rate limits, in memory per server process (issue 18 items 3 and 6):
 * - `perSecond`/`burst`: secret-key requests per merchant, whichever of its keys they use;
 * - `publicPerIp`: publishable-key requests (tokenizing cards) per client IP, a budget apart,
 *   so anonymous traffic with the public key embedded in a checkout page never spends the
 *   merchant's own;
 * - `failedAuthPerIp`: failed authentications (401) per client IP; once spent, that address
 *   gets 429 before its credentials are even looked at;
 * - `failedAuthPerKey`: wrong secrets per public key; once spent, a wrong secret for that key
 *   gets 429 instead of 401 (the right secret still passes: the owner is not locked out by
 *   whoever knows the public key).
 */
export interface RateLimits extends Bucket {
  publicPerIp?: Bucket;
  failedAuthPerIp?: Bucket;
  failedAuthPerKey?: Bucket;
}

export const DEFAULT_RATE_LIMITS: Required<RateLimits> = {
  perSecond: 100,
  burst: 200,
  publicPerIp: { perSecond: 20, burst: 60 },
  failedAuthPerIp: { perSecond: 0.5, burst: 20 },
  failedAuthPerKey: { perSecond: 1, burst: 50 },
};

/** Buckets kept before full (idle) ones are forgotten: memory stays bounded under many addresses. */
const MAX_BUCKETS = 50_000;

/** Token buckets by key, in memory (per process). */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  constructor(private readonly cfg: Bucket) {}

  private refill(key: string, nowMs: number): { tokens: number; at: number } {
    let b = this.buckets.get(key);
    if (!b) {
      if (this.buckets.size >= MAX_BUCKETS) this.forgetIdle(nowMs);
      b = { tokens: this.cfg.burst, at: nowMs };
      this.buckets.set(key, b);
    }
    b.tokens = Math.min(this.cfg.burst, b.tokens + ((nowMs - b.at) / 1000) * this.cfg.perSecond);
    b.at = nowMs;
    return b;
  }

  private forgetIdle(nowMs: number): void {
    for (const [k, b] of this.buckets) {
      if (b.tokens + ((nowMs - b.at) / 1000) * this.cfg.perSecond >= this.cfg.burst) this.buckets.delete(k);
    }
    if (this.buckets.size >= MAX_BUCKETS) this.buckets.clear();
  }

  private waitFor(tokens: number): number {
    return Math.max(1, Math.ceil((1 - tokens) / this.cfg.perSecond));
  }

  /** Returns 0 when allowed, else the seconds to wait before a token is available. */
  take(key: string, nowMs: number): number {
    const b = this.refill(key, nowMs);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return this.waitFor(b.tokens);
  }

  /** The same answer as `take`, without spending a token. */
  peek(key: string, nowMs: number): number {
    if (!this.buckets.has(key)) return 0;
    const b = this.refill(key, nowMs);
    return b.tokens >= 1 ? 0 : this.waitFor(b.tokens);
  }
}

const limited = (message: string, wait: number) =>
  new ApiError('rate_limited', `${message}; retry in ${wait} s`, undefined, { 'Retry-After': String(wait) });

/** The API pipeline's limits (see RateLimits), each check throwing 429 with Retry-After. */
export class ApiLimits {
  private readonly merchant: RateLimiter;
  private readonly publicIp: RateLimiter;
  private readonly failedIp: RateLimiter;
  private readonly failedKey: RateLimiter;

  constructor(cfg: RateLimits) {
    const d = DEFAULT_RATE_LIMITS;
    this.merchant = new RateLimiter({ perSecond: cfg.perSecond, burst: cfg.burst });
    this.publicIp = new RateLimiter(cfg.publicPerIp ?? d.publicPerIp);
    this.failedIp = new RateLimiter(cfg.failedAuthPerIp ?? d.failedAuthPerIp);
    this.failedKey = new RateLimiter(cfg.failedAuthPerKey ?? d.failedAuthPerKey);
  }

  /** Before the credentials are looked at: an address that failed too often waits. */
  beforeAuth(clientIp: string, nowMs: number): void {
    const wait = this.failedIp.peek(clientIp, nowMs);
    if (wait) throw limited('Too many failed authentications from your address', wait);
  }

  /** After a 401: spends the address's and the public key's budgets; the error to answer. */
  authFailed(err: ApiError, clientIp: string, publicKey: string | undefined, nowMs: number): ApiError {
    this.failedIp.take(clientIp, nowMs);
    const wait = publicKey ? this.failedKey.take(publicKey, nowMs) : 0;
    return wait ? limited('Too many failed authentications for this API key', wait) : err;
  }

  /** An authenticated request: its merchant's budget (secret key) or its address's (public key). */
  afterAuth(principal: Principal, clientIp: string, nowMs: number): void {
    if (principal.credential === 'secret') {
      const wait = this.merchant.take(principal.merchantId, nowMs);
      if (wait) throw limited("Too many requests for this merchant's keys", wait);
    } else if (principal.credential === 'public') {
      const wait = this.publicIp.take(clientIp, nowMs);
      if (wait) throw limited('Too many requests with the public key from your address', wait);
    }
  }
}

/** The hosted checkout's buckets (per client IP and per payment link), see services/checkout.ts. */
export const DEFAULT_CHECKOUT_RATE_LIMIT: CheckoutRateLimit = {
  payPerIp: { perSecond: 1 / 6, burst: 10 }, // 10 attempts in a burst, then one every 6 s
  payPerLink: { perSecond: 1, burst: 30 },
  pollPerIp: { perSecond: 5, burst: 60 },
};

type Limiters = { [K in keyof CheckoutRateLimit]: RateLimiter };
const limiters = new WeakMap<AppDeps, Limiters | null>();

/** Takes a token from one of the checkout's buckets, or refuses with 429 and Retry-After. */
export function takeCheckoutToken(deps: AppDeps, bucket: keyof CheckoutRateLimit, key: string): void {
  let l = limiters.get(deps);
  if (l === undefined) {
    const cfg = deps.checkoutRateLimit === null ? null : (deps.checkoutRateLimit ?? DEFAULT_CHECKOUT_RATE_LIMIT);
    l = cfg && { payPerIp: new RateLimiter(cfg.payPerIp), payPerLink: new RateLimiter(cfg.payPerLink), pollPerIp: new RateLimiter(cfg.pollPerIp) };
    limiters.set(deps, l);
  }
  if (!l) return;
  const wait = l[bucket].take(key, Date.now());
  if (wait) {
    const who = bucket === 'payPerLink' ? 'this payment link' : 'your address';
    throw new ApiError('rate_limited', `Too many requests from ${who}; retry in ${wait} s`, undefined, { 'Retry-After': String(wait) });
  }
}


/**
 * Before the body of an unauthenticated operation (the checkout's pay) is read: one token of
 * the client's per-IP pay budget, so a flood is refused without reading or parsing anything.
 */
export function takePublicBodyToken(deps: AppDeps, clientIp: string): void {
  takeCheckoutToken(deps, 'payPerIp', clientIp);
}
