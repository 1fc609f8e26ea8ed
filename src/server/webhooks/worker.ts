/**
 * Where webhook deliveries run.
 *
 * - `DeliveryWorker`: for `mpay server start`. Polls (default every 250 ms, or at once on
 *   `kick()`), fans new outbox events out, claims due deliveries and sends them, up to
 *   `concurrency` at a time. `stop()` takes no new claims, lets the attempts in flight finish
 *   and resolves when they have.
 * - `deliverDue(deps, { deadlineMs })`: for embedded CLI use. Attempts what is due until the
 *   bound, then returns; whatever was not attempted stays due for the next run.
 *
 * Several workers (threads of one process or other processes on the same database) may run at
 * once: claims are atomic, so each attempt is made by one of them only.
 */
import { randomUUID } from 'node:crypto';
import type { ServiceDeps } from '../services/context.js';
import {
  claimDue,
  complete,
  countDue,
  DEFAULT_TIMEOUT_MS,
  fanOutAll,
  send,
  Sender,
  type Claim,
  type DeliveryOptions,
  type Outcome,
} from './delivery.js';

export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

/**
 * What the worker aborts its sleep with. `AbortController.abort()` without a reason builds a
 * DOMException (a stack trace with it) on every call, even on a signal aborted already, and
 * every request that emits events kicks the worker, so a constant reason saves that on every
 * `POST /v1/charges` (bench:server; docs/performance.md, "Design choices").
 */
export const WAKE = 'wake';

export const defaultSleep: Sleep = (ms, signal) =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

export interface WorkerOptions extends DeliveryOptions {
  /** pause between polls when nothing is due; default 250 ms */
  pollMs?: number;
  /** how the worker waits between polls (tests may replace it); must resolve when `signal` aborts */
  sleep?: Sleep;
  /** name of this worker in leases and logs */
  workerId?: string;
}

export interface AttemptReport {
  logId: string;
  deliveryId: string;
  endpointId: string;
  eventId: string;
  attempt: number;
  outcome: Outcome;
  status: number | null;
}

/** The options in effect: every default filled in (the time limit of an attempt is 15 s unless given). */
export function resolveDeliveryOptions(o: DeliveryOptions = {}) {
  const timeoutMs = o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return {
    timeoutMs,
    random: o.random ?? Math.random,
    wallClock: o.wallClock ?? Date.now,
    concurrency: Math.max(1, o.concurrency ?? 8),
    leaseMs: o.leaseMs ?? timeoutMs + 5 * 60_000,
    // half the slots at most for one merchant (4 of the default 8): the rest stay free for the others
    perMerchant: Math.max(1, o.perMerchant ?? Math.floor(Math.max(1, o.concurrency ?? 8) / 2)),
  };
}

async function attemptOne(
  deps: ServiceDeps,
  claim: Claim,
  sender: Sender,
  timeoutMs: number,
  wallClock: () => number,
  random: () => number,
): Promise<AttemptReport> {
  const r = await send(claim, sender, timeoutMs, wallClock);
  const outcome = await complete(deps, claim, r, random);
  deps.log?.({
    level: outcome === 'delivered' ? 'info' : 'warn',
    msg: 'webhook attempt',
    delivery_log_id: claim.logId,
    endpoint_id: claim.endpointId,
    event_id: claim.eventId,
    attempt: claim.attempt,
    status: r.status,
    outcome,
  });
  return { logId: claim.logId, deliveryId: claim.deliveryId, endpointId: claim.endpointId, eventId: claim.eventId, attempt: claim.attempt, outcome, status: r.status };
}

export interface DeliverDueOptions extends DeliveryOptions {
  /** time budget in ms of real time; default 3000. No claim is made after it, and an attempt
   *  in flight is given at most what is left of it (at least `minAttemptMs`). */
  deadlineMs?: number;
  /** shortest time limit an attempt is given near the deadline; default 1000 ms */
  minAttemptMs?: number;
}

export interface DeliverDueResult {
  attempted: number;
  delivered: number;
  /** attempts that failed (retried later or not) */
  failed: number;
  /** deliveries still due (or events not yet fanned out) when the bound was reached */
  remaining: number;
  attempts: AttemptReport[];
}

/**
 * Embedded use: attempt due deliveries until `deadlineMs` has passed, leave the rest due.
 */
export async function deliverDue(deps: ServiceDeps, opts: DeliverDueOptions = {}): Promise<DeliverDueResult> {
  const o = resolveDeliveryOptions(opts);
  const until = performance.now() + (opts.deadlineMs ?? 3_000);
  const minAttempt = opts.minAttemptMs ?? 1_000;
  const owner = `embedded-${randomUUID()}`;
  const sender = new Sender(deps.mode, opts.resolver);
  const attempts: AttemptReport[] = [];
  const inflight = new Set<Promise<void>>();
  try {
    await fanOutAll(deps, until);
    for (;;) {
      const left = until - performance.now();
      if (left <= 0) break;
      const claims = await claimDue(deps, owner, o.concurrency - inflight.size, o.leaseMs, o.perMerchant);
      for (const c of claims) {
        const timeout = Math.min(o.timeoutMs, Math.max(until - performance.now(), minAttempt));
        const p: Promise<void> = attemptOne(deps, c, sender, timeout, o.wallClock, o.random)
          .then((a) => void attempts.push(a))
          .finally(() => inflight.delete(p));
        inflight.add(p);
      }
      if (!inflight.size) break;
      await Promise.race(inflight);
    }
    await Promise.all(inflight);
  } finally {
    await Promise.allSettled(inflight);
    await sender.close();
  }
  return {
    attempted: attempts.length,
    delivered: attempts.filter((a) => a.outcome === 'delivered').length,
    failed: attempts.filter((a) => a.outcome !== 'delivered' && a.outcome !== 'lost').length,
    remaining: await countDue(deps),
    attempts,
  };
}

/** Server use: delivers continuously until stopped. */
export class DeliveryWorker {
  readonly id: string;
  private readonly o: ReturnType<typeof resolveDeliveryOptions>;
  private readonly pollMs: number;
  private readonly sleep: Sleep;
  private sender: Sender | null = null;
  private loopDone: Promise<void> | null = null;
  private stopping = false;
  private wake: AbortController | null = null;
  private kicked = false;
  private readonly inflight = new Set<Promise<void>>();
  /** called after each attempt (the CLI may print them; tests observe them) */
  onAttempt?: (a: AttemptReport) => void;

  constructor(
    private readonly deps: ServiceDeps,
    private readonly opts: WorkerOptions = {},
  ) {
    this.o = resolveDeliveryOptions(opts);
    this.pollMs = opts.pollMs ?? 250;
    this.sleep = opts.sleep ?? defaultSleep;
    this.id = opts.workerId ?? `worker-${randomUUID()}`;
  }

  /** the time limit of each attempt */
  get timeoutMs(): number {
    return this.o.timeoutMs;
  }

  get running(): boolean {
    return this.loopDone !== null && !this.stopping;
  }

  start(): void {
    if (this.loopDone) return;
    this.stopping = false;
    this.sender = new Sender(this.deps.mode, this.opts.resolver);
    this.loopDone = this.loop();
  }

  /** Look for work now instead of at the next poll (e.g. right after a request emitted events). */
  kick(): void {
    this.kicked = true;
    this.wake?.abort(WAKE);
  }

  /** No new claims; resolves once the attempts in flight have finished and been recorded. */
  async stop(): Promise<void> {
    if (!this.loopDone) return;
    this.stopping = true;
    this.wake?.abort(WAKE);
    await this.loopDone;
    await this.sender?.close();
    this.sender = null;
    this.loopDone = null;
  }

  private async loop(): Promise<void> {
    const sender = this.sender!;
    while (!this.stopping) {
      this.kicked = false;
      let claimed = 0;
      try {
        await fanOutAll(this.deps);
        const free = this.o.concurrency - this.inflight.size;
        if (free > 0 && !this.stopping) {
          const claims = await claimDue(this.deps, this.id, free, this.o.leaseMs, this.o.perMerchant);
          claimed = claims.length;
          for (const c of claims) {
            const p: Promise<void> = attemptOne(this.deps, c, sender, this.o.timeoutMs, this.o.wallClock, this.o.random)
              .then((a) => this.onAttempt?.(a))
              .catch((e: unknown) => this.deps.log?.({ level: 'error', msg: 'webhook attempt failed to record', error: (e as Error)?.message }))
              .finally(() => this.inflight.delete(p));
            this.inflight.add(p);
          }
        }
      } catch (e) {
        this.deps.log?.({ level: 'error', msg: 'webhook worker poll failed', error: (e as Error)?.message });
      }
      if (this.stopping) break;
      if (this.kicked) continue;
      const full = this.inflight.size >= this.o.concurrency;
      if (claimed > 0 && !full) continue; // more may be due
      this.wake = new AbortController();
      if (this.stopping || this.kicked) this.wake.abort(WAKE);
      const waits: Promise<unknown>[] = [this.sleep(this.pollMs, this.wake.signal)];
      if (full) waits.push(Promise.race(this.inflight));
      await Promise.race(waits);
      this.wake.abort(WAKE);
      this.wake = null;
    }
    await Promise.allSettled([...this.inflight]);
  }
}
