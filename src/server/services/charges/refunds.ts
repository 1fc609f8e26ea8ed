/**
 * Refunds of a captured charge, in full or in part: what each party gives back, taken from its
 * pending receivables and then its wallet (src/domain/fees.ts refundShare), and what its wallet
 * lacks from its other pending receivables (src/server/services/agenda.ts).
 */
import type { Charge, RefundCreate } from '../../../contract/resources/charges.js';
import { refundShare } from '../../../domain/fees.js';
import { assertTransition } from '../../../domain/lifecycle.js';
import { returnWindowProblem } from '../../../domain/pixReturns.js';
import { json } from '../../../store/db.js';
import { transition } from '../../../store/transition.js';
import type { ServiceContext } from '../context.js';
import { ApiError, invalid } from '../../errors.js';
import { refundFromWallet, takeFromReceivables } from '../agenda.js';
import { emitEvent } from '../events.js';
import { planOf, saleOf } from './parties.js';
import { newReturnId, pixPaidAt } from './pixReturn.js';
import { capturedAmountOf, loadCharge, refundRecord, type ReceivableRow, type StoredParty } from './rows.js';
import { chargeRecord } from './view.js';

/**
 * A refund of a captured charge, in full or in part, all or nothing in one transaction that
 * locks the charge (so concurrent refunds never add up to more than was captured): `amount` is
 * 1 to what is left to refund — `captured_amount` (what the buyer paid, interest included, or
 * less after a partial capture) less what was refunded and what chargebacks dispute
 * (`disputed_amount`) — default all of it.
 *
 * Each party gives back its net in proportion to what is refunded (`refundShare`: after
 * refunds adding up to R of a charge whose captured amount is T, a party whose net at capture
 * is N has given back ⌊N × R / T⌋; a full refund, all of N; the parties are stored with their
 * shares of the capture). A party's part is taken first from its pending
 * receivables of the charge, from the last installment backwards (a receivable is reduced,
 * gross and net alike, or cancelled when all of its net is taken), then debited from its
 * wallet (reference_type refund); what the wallet's balance lacks is taken from the party's
 * other pending receivables, the one settling last first, and only when those cannot cover it
 * either is the whole refund refused with 422 insufficient_funds. A receivable already
 * anticipated gave the party its net less the anticipation fee, and the refund still takes
 * back its whole net: the anticipation fee stays with the platform. The refund that completes
 * the charge makes it `refunded`. Event charge.refunded with the charge and the refund.
 *
 * A refund of a PIX charge is a devolução: it may be made up to 90 days after the payment (the
 * payment's São Paulo day + 90, whole; later, 422 refund_window_closed and nothing changes) —
 * the API Pix's rule for a return, "90 dias desde a data de liquidação original do pix"
 * (bacen/pix-api, openapi.yaml, PixDevolucaoInvalida; Regulamento Pix) — and its record carries
 * the return id (`return_id`, D…, src/domain/pixReturns.ts). A card or boleto refund has none:
 * a boleto is paid back by a transfer of the merchant's, not by a return of the PIX system.
 */
export async function refundCharge(ctx: ServiceContext, id: string, body: RefundCreate = {}): Promise<Charge> {
  const now = ctx.now();
  const ts = now.toISOString();
  const { deps } = ctx;
  const row = await ctx.db.tx(async (q) => {
    const c = await loadCharge(q, ctx.merchantId, id, true);
    assertTransition('charge', c.status, 'refunded');
    const closed = c.payment_method === 'pix' ? returnWindowProblem(pixPaidAt(c), now) : null;
    if (closed) throw new ApiError('refund_window_closed', `The charge cannot be refunded: ${closed}`);
    const total = capturedAmountOf(c);
    const before = Number(c.refunded_amount ?? 0);
    const disputed = Number(c.disputed_amount ?? 0);
    const left = total - before - disputed;
    if (left < 1) {
      throw new ApiError('business_rule', `Nothing is left to refund of this charge: of ${total} cents, ${before} are refunded and ${disputed} disputed by chargebacks`);
    }
    const amount = body.amount ?? left;
    if (amount > left) {
      const why = disputed > 0 ? ` − ${disputed} disputed by chargebacks` : '';
      throw invalid('amount', `must be at most ${left} cents, what is left to refund of this charge (${total} captured − ${before} already refunded${why})`);
    }
    const after = before + amount;
    const parties = json.from<StoredParty[]>(c.parties, []);
    const plan = planOf({ ...saleOf(c), gross: total }, parties);
    const rs = await q.all<ReceivableRow>(`SELECT * FROM receivables WHERE charge_id = ? ORDER BY installment DESC, id${q.dialect.forUpdate}`, [id]);
    const refundId = deps.ids();
    const description = `Refund ${refundId} of charge ${id}`;
    for (const pp of plan.parties) {
      const walletId = parties[pp.key]!.wallet_id;
      const part = refundShare(pp.net, before, after, total);
      const rest = await takeFromReceivables(q, deps.ids, rs.filter((r) => r.wallet_id === walletId), part, { type: 'refund', id }, now);
      if (rest > 0) await refundFromWallet(q, deps.ids, walletId, rest, { chargeId: id, description }, now);
    }
    const returnId = c.payment_method === 'pix' ? newReturnId(now) : null;
    await q.run('INSERT INTO refunds (id, charge_id, merchant_id, amount, return_id, created_at) VALUES (?, ?, ?, ?, ?, ?)', [refundId, id, ctx.merchantId, amount, returnId, ts]);
    if (after === total) await transition(q, 'charge', id, c.status, 'refunded', { refunded_amount: after, refunded_at: ts, updated_at: ts });
    else await q.run('UPDATE charges SET refunded_amount = ?, updated_at = ? WHERE id = ?', [after, ts, id]);
    const out = await loadCharge(q, ctx.merchantId, id);
    const refund = refundRecord({ id: refundId, charge_id: id, merchant_id: ctx.merchantId, amount, return_id: returnId, created_at: ts });
    await emitEvent(q, deps.ids, { merchantId: ctx.merchantId, type: 'charge.refunded', data: { ...chargeRecord(out), refund }, chargeId: id, at: now });
    return out;
  });
  return chargeRecord(row);
}
