/**
 * Due work: time-based moves (settlements, PIX expiry, the expiry and the sandbox's late payers of
 * charges with a due date, undecided card charges, chargebacks, and whatever other resources
 * register in `dueWork`) that come due on a merchant's clock. Each job runs
 * one bounded batch per call and returns how many items it moved. Before every authenticated
 * request the app runs each job once for the caller's merchant; `runDueWork` sweeps until
 * nothing is due (the sandbox clock advance, and a server-mode timer).
 */
import { DAY_MS } from '../domain/fees.js';
import { serviceContext, type ServiceContext, type ServiceDeps, type DueContext, type DueJob } from './context.js';
import { merchantClocks, moveClock } from './services/merchants.js';
import { advanceWithdrawals } from './services/withdrawals.js';
import { expireDueLinks } from './services/paymentLinks.js';
import { purgeExpiredKeys } from './idempotency.js';
import { purgeUnattachedUploads } from './services/uploadQuota.js';
import { decidePendingCardCharges, expireDuePixCharges, settleDueReceivables, voidExpiredAuthorizations } from './services/charges/due.js';
import { expireDueCharges, paySandboxLatePayers } from './services/charges/dueDate.js';
import { advanceChargebacks, openScheduledChargebacks } from './services/chargebacks.js';

/** Time-based moves, each one bounded batch per call (deps.due.batch items, one transaction per batch). */
export const dueWork: DueJob[] = [
  decidePendingCardCharges,
  expireDuePixCharges,
  // card authorisations not captured within their days → voided (expired)
  voidExpiredAuthorizations,
  // boletos and PIX with a due date: the sandbox's late payers pay, then the unpaid expire
  paySandboxLatePayers,
  expireDueCharges,
  // before settlements: a dispute that came due takes from the receivables still pending then
  openScheduledChargebacks,
  // chargebacks past their evidence window (lost) and contests due to be decided
  advanceChargebacks,
  settleDueReceivables,
  // sandbox payout rail: pending → processing → completed | failed (src/domain/sandboxPayouts.ts)
  (ctx) => advanceWithdrawals(ctx.deps, ctx.merchantId, ctx.now()),
  // payment links whose expires_at has passed → expired
  (ctx) => expireDueLinks(ctx.db, ctx.merchantId, ctx.now()),
  // Idempotency-Keys past their 24 h
  purgeExpiredKeys,
  // uploads attached to no document nor chargeback evidence, past their retention (src/server/uploadLimits.ts)
  purgeUnattachedUploads,
];

/**
 * Runs each due job once for a merchant. Due work is housekeeping on the merchant's clock: a job
 * that fails is logged and tried again next time; it never fails its caller (a request, or the
 * sweep of the other merchants).
 */
export async function runDueJobs(ctx: DueContext): Promise<{ moved: number; failed: boolean }> {
  let moved = 0;
  let failed = false;
  for (const job of dueWork) {
    try {
      moved += Number((await job(ctx)) ?? 0);
    } catch (err) {
      failed = true;
      ctx.deps.log?.({ level: 'error', merchant_id: ctx.merchantId, message: `due work failed: ${(err as Error)?.message}`, stack: (err as Error)?.stack });
    }
  }
  return { moved, failed };
}

/**
 * Runs every due job until none has anything left (at most `maxRounds` rounds per merchant),
 * for one merchant or for all of them. Returns the number of items moved.
 */
export async function runDueWork(deps: ServiceDeps, merchantId?: string, opts: { maxRounds?: number } = {}): Promise<number> {
  const merchants = await merchantClocks(deps.db, merchantId);
  let moved = 0;
  for (const m of merchants) {
    const ctx = serviceContext(deps, m.id, Number(m.clock_offset_ms));
    for (let round = 0; round < (opts.maxRounds ?? 1000); round++) {
      const r = await runDueJobs(ctx);
      moved += r.moved;
      if (r.moved === 0) break;
    }
  }
  return moved;
}

/**
 * The sandbox's clock advance: moves the merchant's clock `days` ahead, then runs everything
 * that came due, to the end. Returns the clock's new offset (ms).
 */
export async function advanceClock(ctx: ServiceContext, days: number): Promise<number> {
  const offset = await moveClock(ctx, days * DAY_MS);
  await runDueWork(ctx.deps, ctx.merchantId);
  return offset;
}
