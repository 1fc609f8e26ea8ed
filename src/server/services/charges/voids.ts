/**
 * Voids of authorised charges: asked for (POST /v1/charges/{id}/void, `void_reason:
 * "requested"`) or by the due work once an authorisation is past its days
 * (src/domain/capture.ts, `"expired"`). Nothing was captured, so no money moves: the charge
 * becomes `voided` with `voided_at` and `void_reason`, and event charge.voided.
 */
import { AUTHORIZATION_VALID_DAYS, authorizationExpiresAt, type VoidReason } from '../../../domain/capture.js';
import type { Queryable } from '../../../store/db.js';
import { transition } from '../../../store/transition.js';
import type { ServiceContext, ServiceDeps } from '../context.js';
import { ApiError } from '../../errors.js';
import { emitEvent } from '../events.js';
import { loadCharge, type ChargeRow } from './rows.js';
import { ChargeView } from './view.js';

/**
 * authorized → voided inside the caller's transaction (any other status: 409 invalid_state, from
 * the lifecycle), `voidedAt` being when the authorisation ended. Event charge.voided.
 */
async function voidInTx(q: Queryable, deps: ServiceDeps, charge: ChargeView, reason: VoidReason, voidedAt: Date, now: Date): Promise<ChargeView> {
  const row = charge.row;
  const set = { voided_at: voidedAt.toISOString(), void_reason: reason, updated_at: now.toISOString() };
  await transition(q, 'charge', row.id, row.status, 'voided', set);
  const out = charge.with({ status: 'voided', ...set });
  await emitEvent(q, deps.ids, { merchantId: row.merchant_id, type: 'charge.voided', ...out.eventData, chargeId: row.id, at: now });
  return out;
}

/**
 * An authorised charge (locked by the caller) past its days at `now`: voided in `q` with
 * void_reason expired and voided_at the instant it expired. The due work does this in batches,
 * and a request may run before the due work reaches it, so a capture or a void checks too.
 * Returns the 409 the caller throws once its transaction is done (the void is kept), or null
 * when the charge is not an expired authorisation.
 */
export async function expireInTx(q: Queryable, deps: ServiceDeps, row: ChargeRow, now: Date): Promise<ApiError | null> {
  if (row.status !== 'authorized' || !row.authorized_at) return null;
  const expiredAt = authorizationExpiresAt(new Date(row.authorized_at));
  if (expiredAt > now) return null;
  await voidInTx(q, deps, new ChargeView(row), 'expired', expiredAt, now);
  return new ApiError(
    'invalid_state',
    `the authorisation expired at ${expiredAt.toISOString()} (${AUTHORIZATION_VALID_DAYS} days after it was made) and the charge is 'voided': it can no longer be captured or voided`,
  );
}

/** POST /v1/charges/{id}/void: the merchant releases an authorisation it will not capture. */
export async function voidCharge(ctx: ServiceContext, id: string): Promise<ChargeView> {
  const now = ctx.now();
  const out = await ctx.db.tx(async (q) => {
    const c = await loadCharge(q, ctx.merchantId, id, true);
    return (await expireInTx(q, ctx.deps, c, now)) ?? voidInTx(q, ctx.deps, new ChargeView(c), 'requested', now, now);
  });
  if (out instanceof ApiError) throw out;
  return out;
}
