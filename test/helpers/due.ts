/**
 * Due-work policies of the tests' own making (the service's is WindowDuePolicy,
 * src/server/pipeline/due.ts), given to the runtime when it is built (`testEnv({ due })`).
 */
import { DUE_BATCH, WindowDuePolicy, type DuePolicy } from '../../src/server/pipeline/due.js';

/**
 * For a clock that moves only when told: a request skips the due work only at the very same
 * merchant instant as an idle run, and only while the app served no write since (a write may
 * make something due at that instant, and a test may write the store behind the app).
 */
export class SameInstantDue implements DuePolicy {
  private writes = 0;
  private readonly idle = new Map<string, { at: number; writes: number }>();
  private readonly before = new Map<string, number>();

  constructor(readonly batch = DUE_BATCH) {}

  skip(merchantId: string, at: number): boolean {
    const idle = this.idle.get(merchantId);
    if (idle && idle.at === at && idle.writes === this.writes) return true;
    this.before.set(merchantId, this.writes);
    return false;
  }

  ran(merchantId: string, at: number, idle: boolean): void {
    const writes = this.before.get(merchantId);
    if (idle && writes === this.writes) this.idle.set(merchantId, { at, writes });
    else this.idle.delete(merchantId);
  }

  wrote(): void {
    this.writes++;
  }
}

/** The due work before every request. */
export class AlwaysDue implements DuePolicy {
  constructor(readonly batch = DUE_BATCH) {}
  skip(): boolean {
    return false;
  }
  ran(): void {}
  wrote(): void {}
}

/** The service's window, in batches of `batch` items. */
export class WindowDueInBatches extends WindowDuePolicy {
  constructor(override readonly batch: number) {
    super();
  }
}

/** Another policy, counting the due runs it lets happen. */
export class CountingDue implements DuePolicy {
  runs = 0;
  constructor(private readonly inner: DuePolicy) {}
  get batch(): number {
    return this.inner.batch;
  }
  skip(merchantId: string, at: number): boolean {
    return this.inner.skip(merchantId, at);
  }
  ran(merchantId: string, at: number, idle: boolean): void {
    this.runs++;
    this.inner.ran(merchantId, at, idle);
  }
  wrote(): void {
    this.inner.wrote();
  }
}
