/** Token bucket per API key, in memory (per process). */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  constructor(private readonly cfg: { perSecond: number; burst: number }) {}

  /** Returns 0 when allowed, else the seconds to wait before a token is available. */
  take(key: string, nowMs: number): number {
    const b = this.buckets.get(key) ?? { tokens: this.cfg.burst, at: nowMs };
    b.tokens = Math.min(this.cfg.burst, b.tokens + ((nowMs - b.at) / 1000) * this.cfg.perSecond);
    b.at = nowMs;
    this.buckets.set(key, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / this.cfg.perSecond));
  }
}
