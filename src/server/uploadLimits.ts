/**
 * What one merchant may upload (onboarding documents, `POST /v1/submerchants/{id}/upload`):
 * - `rate`: uploads per merchant, a token bucket in memory per server process (like the API's
 *   rate limits, src/server/rateLimit.ts), refused with 429 and Retry-After before the body is
 *   read;
 * - `quotaBytes`: the bytes of uploads a merchant keeps at once, attached to a document or not,
 *   counted in the store (so across every replica); an upload that would pass it is refused
 *   with 422 `storage_quota_exceeded` and nothing of it stays;
 * - `retentionHours`: how long an upload that no document points at is kept; the due work
 *   (before the merchant's requests, and the server's sweep) removes it after that, which also
 *   gives its room back.
 * Each is set with `mpay server start` (docs/deployment.md); unset parts take their defaults.
 */
import type { ServiceDeps } from './context.js';
import { ApiError } from './errors.js';
import { RateLimiter, type Bucket } from './rateLimit.js';

export interface UploadLimits {
  /** uploads per merchant; null: no rate limit */
  rate: Bucket | null;
  /** bytes of stored uploads per merchant; null: no quota */
  quotaBytes: number | null;
  /** hours an upload attached to no document is kept */
  retentionHours: number;
}

export const GiB = 1024 * 1024 * 1024;

/**
 * 30 uploads in a burst, then one every 2 s (30 a minute): a submerchant's whole set of
 * documents goes at once, a loop of 10 MiB files stops after ~300 MiB. 2 GiB kept per merchant:
 * about 200 files at the 10 MiB limit, or a thousand of documents of a few MiB at a time.
 * A day for an upload to be attached to its document.
 */
export const DEFAULT_UPLOAD_LIMITS: UploadLimits = {
  rate: { perSecond: 0.5, burst: 30 },
  quotaBytes: 2 * GiB,
  retentionHours: 24,
};

/** The limits in force: `deps.uploadLimits` over the defaults. */
export function uploadLimitsOf(deps: Pick<ServiceDeps, 'uploadLimits'>): UploadLimits {
  return { ...DEFAULT_UPLOAD_LIMITS, ...deps.uploadLimits };
}

/** Each app's upload bucket, made again when its configured rate changes. */
const limiters = new WeakMap<ServiceDeps, { rate: Bucket; limiter: RateLimiter }>();

/** Spends one of the merchant's uploads, or refuses with 429 and Retry-After. */
export function takeUploadToken(deps: ServiceDeps, merchantId: string): void {
  const { rate } = uploadLimitsOf(deps);
  if (!rate) return;
  let l = limiters.get(deps);
  if (!l || l.rate !== rate) limiters.set(deps, (l = { rate, limiter: new RateLimiter(rate) }));
  const wait = l.limiter.take(merchantId, deps.clock.now().getTime());
  if (wait) {
    const perMinute = Math.round(rate.perSecond * 60);
    throw new ApiError(
      'rate_limited',
      `Too many uploads for this merchant (${rate.burst} at once, then ${perMinute} a minute); retry in ${wait} s`,
      undefined,
      { 'Retry-After': String(wait) },
    );
  }
}

/** A byte count for a message: the bytes, and whole GiB, MiB or KiB beside them when exact. */
export function formatBytes(n: number): string {
  for (const [unit, size] of [['GiB', GiB], ['MiB', 1024 * 1024], ['KiB', 1024]] as const) {
    if (n >= size && n % size === 0) return `${n} bytes (${n / size} ${unit})`;
  }
  return `${n} bytes`;
}
