/**
 * A charge decided and captured: the sandbox acquirer's decision applied (captured or failed),
 * the receivables of a capture (one per installment and split party), a receivable paid into
 * its wallet, and the sandbox's payment of a PIX charge.
 */
import type { Charge } from '../../../contract/resources/charges.js';
import { assertTransition } from '../../../domain/lifecycle.js';
import type { CardDecision } from '../../../domain/sandbox.js';
import { json, type Queryable } from '../../../store/db.js';
import { transition } from '../../../store/transition.js';
import type { ServiceDeps, ServiceContext } from '../../context.js';
import { ApiError } from '../../errors.js';
import { emitEvent, emitEvents, type NewEvent } from '../events.js';
import { credit } from '../ledger.js';
import { recordLinkUse } from '../paymentLinks.js';
import { planOf } from './parties.js';
import { loadCharge, receivableRecord, type ReceivableRow, type StoredParty } from './rows.js';
import { ChargeView } from './view.js';

/** Origin used for checkout_url in events when no request gave one (a due-work sweep). */
const FALLBACK_BASE_URL = 'http://localhost';
const baseUrlOf = (deps: ServiceDeps, baseUrl?: string) => baseUrl ?? deps.publicBaseUrl ?? FALLBACK_BASE_URL;

/** A charge not yet written: its row, written in its decided state, and the event that comes before the decision's (charge.pending). */
export interface FirstWrite {
  row: (decided: ChargeView) => Promise<void>;
  before: NewEvent;
}

/**
 * Applies the acquirer's decision to a pending card charge inside the caller's transaction:
 * by an UPDATE of its row, or — `insert`, for a charge not yet written — by writing the row
 * in its decided state, and its charge.pending event with the decision's.
 */
export async function decideInTx(
  q: Queryable,
  deps: ServiceDeps,
  charge: ChargeView,
  decision: CardDecision,
  now: Date,
  baseUrl?: string,
  insert?: FirstWrite,
): Promise<ChargeView> {
  if (decision.approved) return capture(q, deps, charge, now, baseUrl, insert);
  const row = charge.row;
  assertTransition('charge', row.status, 'failed');
  const ts = now.toISOString();
  const out = charge.with({ status: 'failed', failure_code: decision.failure_code, failure_reason: decision.failure_reason, failed_at: ts, updated_at: ts });
  if (insert) await insert.row(out);
  else {
    await transition(q, 'charge', row.id, row.status, 'failed', {
      failure_code: decision.failure_code,
      failure_reason: decision.failure_reason,
      failed_at: ts,
      updated_at: ts,
    });
  }
  await emitEvents(q, deps.ids, [...(insert ? [insert.before] : []), { merchantId: row.merchant_id, type: 'charge.failed', ...out.eventData, chargeId: row.id, at: now }]);
  return out;
}

/**
 * pending → captured inside the caller's transaction: the charge's fee and net, one
 * receivable per installment and split party, and for PIX the at-once settlement (each
 * receivable paid and its wallet credited, reference_type charge). Event charge.captured.
 * A charge paid through a payment link counts one use of the link here, in the same
 * transaction (current_uses counts paid uses only; event payment_link.paid).
 */
async function capture(q: Queryable, deps: ServiceDeps, charge: ChargeView, now: Date, baseUrl?: string, insert?: FirstWrite): Promise<ChargeView> {
  const row = charge.row;
  assertTransition('charge', row.status, 'captured');
  const parties = json.from<StoredParty[]>(row.parties, []);
  const plan = planOf(row.payment_method, Number(row.installments), parties);
  const ts = now.toISOString();
  const out = charge.with({ status: 'captured', fee_amount: plan.fee, net_amount: plan.net, captured_at: ts, updated_at: ts });
  if (insert) await insert.row(out);
  else await transition(q, 'charge', row.id, row.status, 'captured', { fee_amount: plan.fee, net_amount: plan.net, captured_at: ts, updated_at: ts });
  for (const pp of plan.parties) {
    const party = parties[pp.key]!;
    for (const inst of pp.installments) {
      const rid = deps.ids();
      const settlement = row.payment_method === 'pix' ? ts : deps.caches.calendar.settlementInstant(now, inst.settlementDays).toISOString();
      await q.run(
        `INSERT INTO receivables (id, charge_id, merchant_id, submerchant_id, wallet_id, gross_amount, net_amount, fee_amount, status,
           payment_method, installment, installments, settlement_date, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?)`,
        [
          rid,
          row.id,
          row.merchant_id,
          party.submerchant_id,
          party.wallet_id,
          inst.gross,
          inst.net,
          inst.fee,
          row.payment_method,
          inst.installment,
          pp.installments.length,
          settlement,
          ts,
          ts,
        ],
      );
      if (row.payment_method === 'pix') {
        await payReceivable(q, deps, rid, now, { referenceType: 'charge', referenceId: row.id, description: `PIX charge ${row.id}` });
      }
    }
  }
  await emitEvents(q, deps.ids, [...(insert ? [insert.before] : []), { merchantId: row.merchant_id, type: 'charge.captured', ...out.eventData, chargeId: row.id, at: now }]);
  if (row.payment_link_id) {
    await recordLinkUse(q, { ids: deps.ids, baseUrl: baseUrlOf(deps, baseUrl) }, row.payment_link_id, now, { chargeId: row.id });
  }
  return out;
}

/** pending → paid and the wallet credit of its net, in the caller's transaction. Event receivable.paid. */
export async function payReceivable(
  q: Queryable,
  deps: ServiceDeps,
  id: string,
  at: Date,
  ref: { referenceType: string; referenceId: string; description: string },
): Promise<boolean> {
  const r = await q.get<ReceivableRow>(`SELECT * FROM receivables WHERE id = ?${q.dialect.forUpdate}`, [id]);
  if (r?.status !== 'pending') return false;
  const ts = at.toISOString();
  await transition(q, 'receivable', id, r.status, 'paid', { paid_at: ts, updated_at: ts });
  await credit(q, deps.ids, { walletId: r.wallet_id, amount: Number(r.net_amount), ...ref, at });
  const out = (await q.get<ReceivableRow>('SELECT * FROM receivables WHERE id = ?', [id]))!;
  await emitEvent(q, deps.ids, { merchantId: r.merchant_id, type: 'receivable.paid', data: receivableRecord(out), chargeId: r.charge_id, at });
  return true;
}

/** Sandbox: the buyer pays a pending PIX charge. */
export async function payPixCharge(ctx: ServiceContext, id: string): Promise<Charge> {
  const now = ctx.now();
  const out = await ctx.db.tx(async (q) => {
    const c = await loadCharge(q, ctx.merchantId, id, true);
    if (c.payment_method !== 'pix') {
      throw new ApiError('business_rule', `only PIX charges are paid this way; this charge is ${c.payment_method}`);
    }
    if (c.status === 'pending' && c.pix_expires_at && c.pix_expires_at <= now.toISOString()) {
      throw new ApiError('business_rule', `the PIX BR Code expired at ${c.pix_expires_at}`);
    }
    return capture(q, ctx.deps, new ChargeView(c), now, ctx.baseUrl);
  });
  return out.record;
}
