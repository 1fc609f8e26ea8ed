/**
 * A charge decided and captured: the sandbox acquirer's decision applied (captured, authorized
 * or failed), the capture of an authorised charge (in full or in part), the receivables of a
 * capture (one per installment and split party), a receivable paid into its wallet, and the
 * sandbox's payment of a PIX charge.
 */
import type { Charge, ChargeCaptureRequest } from '../../../contract/resources/charges.js';
import { captureShares } from '../../../domain/capture.js';
import { PlanError } from '../../../domain/fees.js';
import { assertTransition } from '../../../domain/lifecycle.js';
import type { CardDecision, LaterDispute } from '../../../domain/sandbox.js';
import { json, type Queryable } from '../../../store/db.js';
import { transition } from '../../../store/transition.js';
import type { ServiceDeps, ServiceContext } from '../context.js';
import { ApiError, invalid } from '../../errors.js';
import { emitEvent, emitEvents, type NewEvent } from '../events.js';
import { credit } from '../ledger.js';
import { scheduleSandboxDispute } from '../chargebacks.js';
import { recordLinkUse } from '../paymentLinks.js';
import { laterDisputeOf } from './cardReading.js';
import { expireInTx } from './voids.js';
import { planOf, saleOf, sharesOf } from './parties.js';
import { loadCharge, receivableRecord, totalOf, type ReceivableRow, type StoredParty } from './rows.js';
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
 * in its decided state, and its charge.pending event with the decision's. An approved card is
 * captured, or only authorised when `then` is 'authorize' (a charge created with capture false).
 */
export async function decideInTx(
  q: Queryable,
  deps: ServiceDeps,
  charge: ChargeView,
  decision: CardDecision,
  now: Date,
  baseUrl?: string,
  insert?: FirstWrite,
  then: 'capture' | 'authorize' = 'capture',
): Promise<ChargeView> {
  if (decision.approved) {
    if (then === 'authorize') return authorize(q, deps, charge, now, insert);
    return capture(q, deps, charge, now, { baseUrl, insert, dispute: decision.dispute });
  }
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
 * pending → authorized inside the caller's transaction: the card was approved and nothing is
 * captured yet — no fee, no receivable, no wallet entry. Event charge.authorized.
 */
async function authorize(q: Queryable, deps: ServiceDeps, charge: ChargeView, now: Date, insert?: FirstWrite): Promise<ChargeView> {
  const row = charge.row;
  assertTransition('charge', row.status, 'authorized');
  const ts = now.toISOString();
  const out = charge.with({ status: 'authorized', authorized_at: ts, updated_at: ts });
  if (insert) await insert.row(out);
  else await transition(q, 'charge', row.id, row.status, 'authorized', { authorized_at: ts, updated_at: ts });
  await emitEvents(q, deps.ids, [...(insert ? [insert.before] : []), { merchantId: row.merchant_id, type: 'charge.authorized', ...out.eventData, chargeId: row.id, at: now }]);
  return out;
}

/**
 * The parties of a capture of `captured` cents of an authorisation of `total` (total_amount):
 * each share, as of the total, scaled in proportion to the captured amount, the cents left over
 * to the remainder party (src/domain/capture.ts captureShares).
 */
function partiesOfCapture(parties: readonly StoredParty[], total: number, captured: number): StoredParty[] {
  const remainder = Math.max(0, parties.findIndex((p) => p.takes_remainder === true));
  const shares = captureShares(sharesOf(parties, total), captured, remainder);
  return parties.map((p, i) => ({ ...p, share: shares[i]! }));
}

/**
 * pending or authorized → captured inside the caller's transaction, for `amount` cents (default
 * what the buyer pays, total_amount; less only for an authorised charge): the charge's fee and net, one
 * receivable per installment and split party, and for PIX the at-once settlement (each
 * receivable paid and its wallet credited, reference_type charge). Event charge.captured.
 * A capture of less than the total stores the parties' scaled shares (`parties`, and the
 * split rules' amounts), which refunds of the charge then follow.
 * A charge paid through a payment link counts one use of the link here, in the same
 * transaction (current_uses counts paid uses only; event payment_link.paid).
 * A charge paid with a magic dispute card (`dispute`) has its dispute scheduled from this
 * capture (src/server/services/chargebacks.ts scheduleSandboxDispute).
 * Throws PlanError, before any write, when a receivable of the capture would net less than a cent.
 */
async function capture(
  q: Queryable,
  deps: ServiceDeps,
  charge: ChargeView,
  now: Date,
  opts: { baseUrl?: string; insert?: FirstWrite; amount?: number; dispute?: LaterDispute } = {},
): Promise<ChargeView> {
  const { baseUrl, insert } = opts;
  const row = charge.row;
  assertTransition('charge', row.status, 'captured');
  const stored = json.from<StoredParty[]>(row.parties, []);
  // what the buyer pays (total_amount, interest included), or less of it on a partial capture
  const total = totalOf(row);
  const captured = opts.amount ?? total;
  const partial = captured !== total;
  const parties = partial ? partiesOfCapture(stored, total, captured) : stored;
  // the rates recorded when the charge was created, on what is captured
  const plan = planOf({ ...saleOf(row), gross: captured }, parties);
  const ts = now.toISOString();
  const set = { fee_amount: plan.fee, net_amount: plan.net, captured_amount: captured, captured_at: ts, updated_at: ts };
  let out: ChargeView;
  if (partial) {
    const shares = { parties: JSON.stringify(parties), split_rules: JSON.stringify(charge.record.split_rules.map((r, i) => ({ ...r, amount: parties[i]!.share }))) };
    out = new ChargeView({ ...row, status: 'captured', ...set, ...shares });
    await transition(q, 'charge', row.id, row.status, 'captured', { ...set, ...shares });
  } else {
    out = charge.with({ status: 'captured', ...set });
    if (insert) await insert.row(out);
    else await transition(q, 'charge', row.id, row.status, 'captured', set);
  }
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
  // a magic dispute card of the sandbox: its cardholder disputes the charge later (due work)
  if (opts.dispute) await scheduleSandboxDispute(q, row, opts.dispute, now);
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
    assertPayable(c.status);
    if (c.status === 'pending' && c.pix_expires_at && c.pix_expires_at <= now.toISOString()) {
      throw new ApiError('business_rule', `the PIX BR Code expired at ${c.pix_expires_at}`);
    }
    return capture(q, ctx.deps, new ChargeView(c), now, { baseUrl: ctx.baseUrl });
  });
  return out.record;
}

/** A payer pays a pending charge only: any other is a 409 invalid_state saying so in payment words. */
export function assertPayable(status: string): void {
  if (status === 'pending') return;
  throw new ApiError('invalid_state', `this charge is ${status}, not pending: ${status === 'captured' ? 'it is already paid, and ' : ''}only a pending charge can be paid`);
}

/**
 * POST /v1/charges/{id}/capture: captures an authorised charge once, `amount` cents of it (1 to
 * the authorised total_amount, default all), in one transaction that locks the charge. The rest of the
 * authorisation is released: nothing was held in any wallet. A charge in any other status is
 * 409 invalid_state (a charge captured at once, or already captured, is captured once), and so
 * is an authorisation past its days, which this voids as expired (voids.ts expireInTx).
 * A magic dispute card's dispute is scheduled from this capture, as from a capture at creation.
 */
export async function captureCharge(ctx: ServiceContext, id: string, body: ChargeCaptureRequest = {}): Promise<ChargeView> {
  const now = ctx.now();
  const out = await ctx.db.tx(async (q) => {
    const c = await loadCharge(q, ctx.merchantId, id, true);
    const expired = await expireInTx(q, ctx.deps, c, now);
    if (expired) return expired;
    if (c.status !== 'authorized') {
      throw new ApiError('invalid_state', `cannot capture a charge that is '${c.status}': only an 'authorized' charge (created with capture false) is captured, once`);
    }
    // what the buyer was authorised for, interest included
    const authorized = totalOf(c);
    const amount = body.amount ?? authorized;
    if (amount > authorized) throw invalid('amount', `must be at most ${authorized} cents, the authorised total (total_amount)`);
    try {
      const dispute = await laterDisputeOf(q, ctx.deps, c);
      return await capture(q, ctx.deps, new ChargeView(c), now, { amount, baseUrl: c.payment_link_id ? ctx.baseUrl : undefined, dispute });
    } catch (e) {
      if (e instanceof PlanError) throw invalid('amount', `${amount} cents is too little to capture: ${e.message}`);
      throw e;
    }
  });
  // an authorisation past its days: voided (expired) by that transaction, and refused
  if (out instanceof ApiError) throw out;
  return out;
}
