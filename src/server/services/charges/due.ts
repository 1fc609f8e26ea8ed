/** The charges' time-based moves, run by due work (src/server/due.ts) on a merchant's clock. */
import { expiredAuthorizationsBefore } from '../../../domain/capture.js';
import { PIX_EXPIRED } from '../../../domain/sandbox.js';
import type { Queryable, SqlValue } from '../../../store/db.js';
import { transition } from '../../../store/transition.js';
import type { DueContext } from '../context.js';
import { emitEvent } from '../events.js';
import { payReceivable } from './capture.js';
import { decideCardCharge } from './card.js';
import { loadCharge, type ChargeRow } from './rows.js';
import { chargeRecord } from './view.js';
import { expireInTx } from './voids.js';

/** Receivables whose settlement date has come: paid, each credited to its wallet (reference_type receivable). */
export async function settleDueReceivables(ctx: DueContext): Promise<number> {
  const now = ctx.now().toISOString();
  const due = await ctx.db.all<{ id: string; settlement_date: string }>(
    "SELECT id, settlement_date FROM receivables WHERE merchant_id = ? AND status = 'pending' AND settlement_date <= ? ORDER BY settlement_date, id LIMIT ?",
    [ctx.merchantId, now, ctx.deps.due.batch],
  );
  if (!due.length) return 0;
  return ctx.db.tx(async (q) => {
    let n = 0;
    for (const r of due) {
      const ok = await payReceivable(q, ctx.deps, r.id, new Date(r.settlement_date), {
        referenceType: 'receivable',
        referenceId: r.id,
        description: 'Receivable settled',
      });
      if (ok) n++;
    }
    return n;
  });
}

/** PIX charges not paid by their expiry: failed with pix_expired. */
export async function expireDuePixCharges(ctx: DueContext): Promise<number> {
  const now = ctx.now();
  return eachPendingCharge(ctx, "payment_method = 'pix' AND pix_expires_at <= ?", [now.toISOString()], 'created_at', async (q, c) => {
    const at = c.pix_expires_at ?? now.toISOString();
    await transition(q, 'charge', c.id, c.status, 'failed', {
      failure_code: PIX_EXPIRED.failure_code,
      failure_reason: PIX_EXPIRED.failure_reason,
      failed_at: at,
      updated_at: now.toISOString(),
    });
    const out = await loadCharge(q, ctx.merchantId, c.id);
    await emitEvent(q, ctx.deps.ids, { merchantId: ctx.merchantId, type: 'charge.failed', data: chargeRecord(out), chargeId: c.id, at: now });
  });
}

/**
 * One batch of due work on pending charges: those `where` finds (at most a batch, in `order`
 * then id), each reloaded and locked in one transaction and handed to `step` if still pending.
 * Answers how many it handed on.
 */
export async function eachPendingCharge(
  ctx: DueContext,
  where: string,
  params: readonly SqlValue[],
  order: string,
  step: (q: Queryable, c: ChargeRow) => Promise<void>,
): Promise<number> {
  const due = await ctx.db.all<{ id: string }>(
    `SELECT id FROM charges WHERE merchant_id = ? AND status = 'pending' AND ${where} ORDER BY ${order}, id LIMIT ?`,
    [ctx.merchantId, ...params, ctx.deps.due.batch],
  );
  if (!due.length) return 0;
  return ctx.db.tx(async (q) => {
    let n = 0;
    for (const { id } of due) {
      const c = await loadCharge(q, ctx.merchantId, id, true);
      if (c.status !== 'pending') continue;
      await step(q, c);
      n++;
    }
    return n;
  });
}

/** Card charges left pending (a crash between the create and decide transactions): decided now. */
export async function decidePendingCardCharges(ctx: DueContext): Promise<number> {
  const due = await ctx.db.all<{ id: string }>(
    "SELECT id FROM charges WHERE merchant_id = ? AND status = 'pending' AND payment_method = 'credit_card' ORDER BY created_at, id LIMIT ?",
    [ctx.merchantId, ctx.deps.due.batch],
  );
  for (const { id } of due) await decideCardCharge(ctx.deps, ctx.merchantId, id, ctx.now());
  return due.length;
}

/**
 * Authorisations not captured within their days of the merchant's clock: voided with
 * void_reason expired, voided_at the instant they expired (src/domain/capture.ts).
 */
export async function voidExpiredAuthorizations(ctx: DueContext): Promise<number> {
  const now = ctx.now();
  const due = await ctx.db.all<{ id: string }>(
    "SELECT id FROM charges WHERE merchant_id = ? AND status = 'authorized' AND authorized_at <= ? ORDER BY authorized_at, id LIMIT ?",
    [ctx.merchantId, expiredAuthorizationsBefore(now).toISOString(), ctx.deps.due.batch],
  );
  if (!due.length) return 0;
  return ctx.db.tx(async (q) => {
    let n = 0;
    for (const { id } of due) {
      if (await expireInTx(q, ctx.deps, await loadCharge(q, ctx.merchantId, id, true), now)) n++;
    }
    return n;
  });
}
