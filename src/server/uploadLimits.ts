/**
 * What one merchant may upload (onboarding documents, `POST /v1/submerchants/{id}/upload`):
 * - `rate`: uploads per merchant, a token bucket in memory per server process (like the API's
 *   rate limits, src/server/rateLimit.ts), spent by the pipeline's limits
 *   (src/server/pipeline/limits.ts) and refused with 429 and Retry-After before the body is read;
 * - `quotaBytes`: the bytes of uploads a merchant keeps at once, attached to a document or not,
 *   counted in the store (so across every replica); an upload that would pass it is refused
 *   with 422 `storage_quota_exceeded` and nothing of it stays;
 * - `retentionHours`: how long an upload that no document points at is kept; the due work
 *   (before the merchant's requests, and the server's sweep) removes it after that, which also
 *   gives its room back.
 * The quota and the retention are the services' rules (src/server/services/uploadQuota.ts).
 * Each is set with `mpay server start` (docs/deployment.md); unset parts take their defaults.
 */
import type { Bucket } from './rateLimit.js';
import { DEFAULT_UPLOAD_RULES, type UploadRules } from './services/uploadQuota.js';

export interface UploadLimits extends UploadRules {
  /** uploads per merchant; null: no rate limit */
  rate: Bucket | null;
}

/**
 * 30 uploads in a burst, then one every 2 s (30 a minute): a submerchant's whole set of
 * documents goes at once, a loop of 10 MiB files stops after ~300 MiB. The quota and the
 * retention: DEFAULT_UPLOAD_RULES.
 */
export const DEFAULT_UPLOAD_LIMITS: UploadLimits = {
  rate: { perSecond: 0.5, burst: 30 },
  ...DEFAULT_UPLOAD_RULES,
};

/** The upload rate in force: `uploadLimits.rate` over the default. */
export function uploadRateOf(uploadLimits: Partial<UploadLimits> | undefined): Bucket | null {
  return { ...DEFAULT_UPLOAD_LIMITS, ...uploadLimits }.rate;
}
