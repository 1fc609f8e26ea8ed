/**
 * Voids of authorised charges: asked for (POST /v1/charges/{id}/void, `void_reason:
 * "requested"`) or by the due work once an authorisation is past its days
 * (src/domain/capture.ts, `"expired"`). Nothing was captured, so no money moves: the charge
 * becomes `voided` with `voided_at` and `void_reason`, and event charge.voided.
 */
import type { VoidReason } from '../../../domain/capture.js';
import type { Queryable } from '../../../store/db.js';
import { transition } from '../../../store/transition.js';
import type { ServiceContext, ServiceDeps } from '../../context.js';
import { emitEvent } from '../events.js';
import { loadCharge } from './rows.js';
import { ChargeView } from './view.js';

/**
 * authorized → voided inside the caller's transaction (any other status: 409 invalid_state, from
 * the lifecycle), `voidedAt` being when the authorisation ended. Event charge.voided.
 */
export async function voidInTx(q: Queryable, deps: ServiceDeps, charge: ChargeView, reason: VoidReason, voidedAt: Date, now: Date): Promise<ChargeView> {
  const row = charge.row;
  const set = { voided_at: voidedAt.toISOString(), void_reason: reason, updated_at: now.toISOString() };
  await transition(q, 'charge', row.id, row.status, 'voided', set);
  const out = charge.with({ status: 'voided', ...set });
  await emitEvent(q, deps.ids, { merchantId: row.merchant_id, type: 'charge.voided', ...out.eventData, chargeId: row.id, at: now });
  return out;
}

/** POST /v1/charges/{id}/void: the merchant releases an authorisation it will not capture. */
export async function voidCharge(ctx: ServiceContext, id: string): Promise<ChargeView> {
  const now = ctx.now();
  return ctx.db.tx(async (q) => voidInTx(q, ctx.deps, new ChargeView(await loadCharge(q, ctx.merchantId, id, true)), 'requested', now, now));
}
