/**
 * When a request runs its merchant's due work (src/server/due.ts) before its handler. Every
 * job is one indexed query when nothing is due; on the hot path that is most of a read's cost,
 * so after a run that moved nothing the next requests of that merchant may skip it, as the
 * policy says.
 */

/** Whether a request runs its merchant's due work first, and how much a due job moves per call. */
export interface DuePolicy {
  /** items each due job moves per call, one transaction per batch */
  readonly batch: number;
  /** may the request of `merchantId` at merchant time `at` (ms) skip the due work? */
  skip(merchantId: string, at: number): boolean;
  /** the due work ran for a request at `at`: `idle` when it moved nothing and nothing failed */
  ran(merchantId: string, at: number, idle: boolean): void;
  /** the app served a write (a request that was not a GET) */
  wrote(): void;
}

/** How long (merchant time, ms) a request may skip the due work after a run that moved nothing. */
export const DUE_SKIP_MS = 100;
/** Items a due job moves per call (each batch is one transaction). */
export const DUE_BATCH = 100;

/**
 * The service's policy: within DUE_SKIP_MS of merchant time after an idle run, a request skips
 * the due work, whatever was written since — so a time-based move, including one a write just
 * scheduled, can show up to DUE_SKIP_MS late on the request path (a server also sweeps every
 * second). Remembers at most 10 000 merchants (then starts afresh: a merchant forgotten just
 * runs its due work once more).
 */
export class WindowDuePolicy implements DuePolicy {
  readonly batch: number = DUE_BATCH;
  private readonly idleAt = new Map<string, number>();

  skip(merchantId: string, at: number): boolean {
    const idle = this.idleAt.get(merchantId);
    return idle !== undefined && at >= idle && at - idle < DUE_SKIP_MS;
  }

  ran(merchantId: string, at: number, idle: boolean): void {
    if (!idle) {
      this.idleAt.delete(merchantId);
      return;
    }
    if (this.idleAt.size > 10_000) this.idleAt.clear();
    this.idleAt.set(merchantId, at);
  }

  wrote(): void {}
}
