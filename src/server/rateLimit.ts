import ipaddr from 'ipaddr.js';
import { LRUCache } from 'lru-cache';
import type { CheckoutRateLimit, Principal } from './context.js';
import { ApiError } from './errors.js';

/** A token bucket's size and refill. */
export interface Bucket {
  perSecond: number;
  burst: number;
}

/**
 * The API's rate limits, in memory per server process. A "client" is what `clientOf` makes of
 * the client's address: an IPv4 address, or an IPv6 address's /64.
 * - `perSecond`/`burst`: secret-key requests per merchant, whichever of its keys they use;
 * - `publicPerIp`: publishable-key requests (tokenizing cards) per client, a budget apart, so
 *   anonymous traffic with the public key embedded in a checkout page never spends the
 *   merchant's own;
 * - failed authentications (401), each budget taken only while the one before it has tokens
 *   (per-client budgets first, so one client cannot spend a key's budget by itself):
 *   `failedAuthPerIp` per client (a generous ceiling against one client trying many keys),
 *   then, for a wrong secret of a key that exists, `failedAuthPerIpKey` per (client, key) and
 *   `failedAuthPerKey` per key (against guessing from many clients). A spent budget turns that
 *   failure's 401 into a 429. None of them refuses a valid credential: the credentials are
 *   always checked, so a neighbour behind the same NAT, or whoever knows a public key, locks
 *   nobody out. (Secrets are 192 random bits: what these limits buy is that a client that
 *   keeps failing is told to back off, not that guessing becomes slower than hopeless.)
 */
export interface RateLimits extends Bucket {
  publicPerIp?: Bucket;
  failedAuthPerIp?: Bucket;
  failedAuthPerIpKey?: Bucket;
  failedAuthPerKey?: Bucket;
}

export const DEFAULT_RATE_LIMITS: Required<RateLimits> = {
  perSecond: 100,
  burst: 200,
  publicPerIp: { perSecond: 20, burst: 60 },
  failedAuthPerIp: { perSecond: 1, burst: 100 },
  failedAuthPerIpKey: { perSecond: 0.2, burst: 10 },
  failedAuthPerKey: { perSecond: 1, burst: 50 },
};

/**
 * The client as every per-client limit (and the checkout's holds) counts it: an IPv4 address
 * as it is; an IPv6 address by its /64, the smallest block a host or a home is given, whose
 * 2^64 addresses its holder can cycle through at will; an IPv4-mapped IPv6 address as its
 * IPv4 address. `ip` is an address (net.isIP), as the pipeline's client address always is.
 */
export function clientOf(ip: string): string {
  if (!ip.includes(':')) return ip;
  let addr: ipaddr.IPv6;
  try {
    addr = ipaddr.IPv6.parse(ip);
  } catch {
    return ip;
  }
  if (addr.isIPv4MappedAddress()) return addr.toIPv4Address().toString();
  const p = addr.parts;
  return `${p[0]!.toString(16)}:${p[1]!.toString(16)}:${p[2]!.toString(16)}:${p[3]!.toString(16)}::/64`;
}

/**
 * Heap one bucket takes in a limiter, besides its key's characters: the bucket object, its
 * numbers and the LRU cache's slots for it (measured by the "bounded by memory" test of
 * test/server/rate-limits.test.ts, which prints the figure).
 */
const BUCKET_BYTES = 480;
/** Heap a limiter's buckets may take; past it the least recently used are forgotten. */
export const LIMITER_MAX_BYTES = 8 * 1024 * 1024;

/**
 * Token buckets by key, in memory (per process), bounded by memory: each bucket counts
 * BUCKET_BYTES plus its key's length towards LIMITER_MAX_BYTES, and past that the least
 * recently used bucket (the one that has refilled longest) is forgotten: a forgotten bucket
 * starts full again, so the bound errs towards letting a request through.
 */
export class RateLimiter {
  private readonly buckets: LRUCache<string, { tokens: number; at: number }>;
  constructor(
    private readonly cfg: Bucket,
    maxBytes = LIMITER_MAX_BYTES,
  ) {
    this.buckets = new LRUCache({ maxSize: maxBytes, sizeCalculation: (_b, key) => BUCKET_BYTES + key.length });
  }

  private refill(key: string, nowMs: number): { tokens: number; at: number } {
    let b = this.buckets.get(key);
    if (!b) {
      b = { tokens: this.cfg.burst, at: nowMs };
      this.buckets.set(key, b);
    }
    b.tokens = Math.min(this.cfg.burst, b.tokens + ((nowMs - b.at) / 1000) * this.cfg.perSecond);
    b.at = nowMs;
    return b;
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

  /** Gives back a token `take` gave (what it was spent on was refused after all). */
  giveBack(key: string): void {
    const b = this.buckets.get(key);
    if (b) b.tokens = Math.min(this.cfg.burst, b.tokens + 1);
  }
}

const limited = (message: string, wait: number) =>
  new ApiError('rate_limited', `${message}; retry in ${wait} s`, undefined, { retryAfterS: wait });

/** The API pipeline's limits (see RateLimits), each check throwing 429 with Retry-After. */
export class ApiLimits {
  private readonly merchant: RateLimiter;
  private readonly publicClient: RateLimiter;
  private readonly failedClient: RateLimiter;
  private readonly failedClientKey: RateLimiter;
  private readonly failedKey: RateLimiter;

  constructor(cfg: RateLimits) {
    const d = DEFAULT_RATE_LIMITS;
    this.merchant = new RateLimiter({ perSecond: cfg.perSecond, burst: cfg.burst });
    this.publicClient = new RateLimiter(cfg.publicPerIp ?? d.publicPerIp);
    this.failedClient = new RateLimiter(cfg.failedAuthPerIp ?? d.failedAuthPerIp);
    this.failedClientKey = new RateLimiter(cfg.failedAuthPerIpKey ?? d.failedAuthPerIpKey);
    this.failedKey = new RateLimiter(cfg.failedAuthPerKey ?? d.failedAuthPerKey);
  }

  /**
   * After a 401: spends the client's budget, then, for a wrong secret of a key that exists
   * (`publicKey`; never an unknown or malformed one, so nothing a caller makes up is kept), the
   * (client, key) budget and then the key's. The error to answer: the 401, or a 429 once a
   * budget is spent.
   */
  authFailed(err: ApiError, client: string, publicKey: string | undefined, nowMs: number): ApiError {
    let wait = this.failedClient.take(client, nowMs);
    if (wait) return limited('Too many failed authentications from your address', wait);
    if (publicKey === undefined) return err;
    wait = this.failedClientKey.take(`${client} ${publicKey}`, nowMs);
    if (wait) return limited('Too many failed authentications for this API key from your address', wait);
    wait = this.failedKey.take(publicKey, nowMs);
    return wait ? limited('Too many failed authentications for this API key', wait) : err;
  }

  /** An authenticated request: its merchant's budget (secret key) or its client's (public key). */
  afterAuth(principal: Principal, client: string, nowMs: number): void {
    if (principal.credential === 'secret') {
      const wait = this.merchant.take(principal.merchantId, nowMs);
      if (wait) throw limited("Too many requests for this merchant's keys", wait);
    } else if (principal.credential === 'public') {
      const wait = this.publicClient.take(client, nowMs);
      if (wait) throw limited('Too many requests with the public key from your address', wait);
    }
  }
}

/**
 * A budget everyone paying one payment link shares, which strangers cannot spend to close the
 * link: a payment takes one of the link's tokens while there are any; once they are spent, a
 * client that already paid the link within the time its budget takes to refill is refused,
 * and a client new to the link still pays (its own per-client budget was taken first). Who
 * spends the link's budget locks only themselves out of it.
 */
export class LinkBudget {
  private readonly tokens: RateLimiter;
  /** `${link} ${client}` → when that client last paid the link (ms) */
  private readonly paid: LRUCache<string, number>;
  private readonly horizonMs: number;

  constructor(cfg: Bucket) {
    this.tokens = new RateLimiter(cfg);
    this.paid = new LRUCache({ maxSize: LIMITER_MAX_BYTES, sizeCalculation: (_t, key) => BUCKET_BYTES + key.length });
    this.horizonMs = (cfg.burst / cfg.perSecond) * 1000;
  }

  /**
   * Admits one payment of `client` on `link`, or throws 429 with Retry-After. Returns what
   * undoes the admission, for a payment refused after all: a refused payment spends nothing.
   */
  admit(link: string, client: string, nowMs: number): () => void {
    const key = `${link} ${client}`;
    const before = this.paid.get(key);
    const wait = this.tokens.take(link, nowMs);
    if (wait && before !== undefined && nowMs - before < this.horizonMs) {
      throw limited('Too many payments from your address on this payment link', wait);
    }
    this.paid.set(key, nowMs);
    return () => {
      if (!wait) this.tokens.giveBack(link);
      if (before === undefined) this.paid.delete(key);
      else this.paid.set(key, before);
    };
  }
}

/** The hosted checkout's budgets (per client and per payment link), see services/checkout.ts. */
export const DEFAULT_CHECKOUT_RATE_LIMIT: CheckoutRateLimit = {
  payPerIp: { perSecond: 1 / 6, burst: 10 }, // 10 attempts in a burst, then one every 6 s
  payPerLink: { perSecond: 1, burst: 30 },
  pollPerIp: { perSecond: 5, burst: 60 },
};

/** The hosted checkout's budgets: per client (payments, status polls) and per payment link. */
export class CheckoutLimits {
  private readonly payPerIp: RateLimiter;
  private readonly pollPerIp: RateLimiter;
  private readonly payPerLink: LinkBudget;

  constructor(cfg: CheckoutRateLimit = DEFAULT_CHECKOUT_RATE_LIMIT) {
    this.payPerIp = new RateLimiter(cfg.payPerIp);
    this.pollPerIp = new RateLimiter(cfg.pollPerIp);
    this.payPerLink = new LinkBudget(cfg.payPerLink);
  }

  /** A token of one of the per-client budgets, or 429 with Retry-After. */
  take(bucket: 'payPerIp' | 'pollPerIp', client: string, nowMs: number): void {
    const wait = this[bucket].take(client, nowMs);
    if (wait) throw limited('Too many requests from your address', wait);
  }

  /**
   * A payment on a link, once it is known to be one the link takes: its share of the link's
   * budget (LinkBudget), or 429. Returns what gives it back should the payment be refused.
   */
  admitLinkPayment(linkId: string, client: string, nowMs: number): () => void {
    return this.payPerLink.admit(linkId, client, nowMs);
  }
}
