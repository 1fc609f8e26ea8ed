/**
 * Refunds of a captured charge, in full or in part: what each party gives back, taken from its
 * pending receivables and then its wallet (src/domain/fees.ts refundShare, receivedBy).
 */
import type { Charge, RefundCreate } from '../../../contract/resources/charges.js';
import { receivedBy, refundShare } from '../../../domain/fees.js';
import { assertTransition } from '../../../domain/lifecycle.js';
import { json } from '../../../store/db.js';
import { transition } from '../../../store/transition.js';
import type { ServiceContext } from '../context.js';
import { invalid } from '../../errors.js';
import { emitEvent } from '../events.js';
import { debit } from '../ledger.js';
import { planOf, saleOf } from './parties.js';
import { loadCharge, refundRecord, totalOf, type ReceivableRow, type StoredParty } from './rows.js';
import { chargeRecord } from './view.js';

/**
 * A refund of a captured charge, in full or in part, all or nothing in one transaction that
 * locks the charge (so concurrent refunds never add up to more than was captured): `amount` is
 * 1 to what is left to refund (`captured_amount − refunded_amount`; what the buyer paid,
 * interest included, or less after a partial capture), default all of it.
 *
 * Each party gives back its net in proportion to what is refunded (`refundShare`: after
 * refunds adding up to R of a charge whose captured amount is T, a party whose net at capture
 * is N has given back ⌊N × R / T⌋; a partial capture stores the parties with their shares of
 * it). A party's part is taken first from its pending receivables, from the last
 * installment backwards (a receivable is reduced, gross and net alike, or cancelled when all of
 * its net is taken), then debited from its wallet (reference_type refund). The refund that
 * completes the charge cancels every pending receivable left and debits what each party
 * received for the charge (`receivedBy`) less what earlier refunds already debited; the charge
 * becomes `refunded`. A wallet that cannot cover its debit refuses the whole refund with
 * insufficient_funds. Event charge.refunded with the charge and the refund.
 */
export async function refundCharge(ctx: ServiceContext, id: string, body: RefundCreate = {}): Promise<Charge> {
  const now = ctx.now();
  const ts = now.toISOString();
  const { deps } = ctx;
  const row = await ctx.db.tx(async (q) => {
    const c = await loadCharge(q, ctx.merchantId, id, true);
    assertTransition('charge', c.status, 'refunded');
    // what was captured: what the buyer paid, interest included, or less after a partial capture
    const total = Number(c.captured_amount ?? totalOf(c));
    const before = Number(c.refunded_amount ?? 0);
    const left = total - before;
    const amount = body.amount ?? left;
    if (amount > left) {
      throw invalid('amount', `must be at most ${left} cents, what is left to refund of this charge (${total} captured − ${before} already refunded)`);
    }
    const after = before + amount;
    const whole = after === total;
    const parties = json.from<StoredParty[]>(c.parties, []);
    const plan = planOf({ ...saleOf(c), gross: total }, parties);
    const rs = await q.all<ReceivableRow>(`SELECT * FROM receivables WHERE charge_id = ? ORDER BY installment DESC, id${q.dialect.forUpdate}`, [id]);
    const refundId = deps.ids();
    const description = `Refund ${refundId} of charge ${id}`;
    for (const pp of plan.parties) {
      const walletId = parties[pp.key]!.wallet_id;
      const mine = rs.filter((r) => r.wallet_id === walletId);
      let debitDue: number;
      if (whole) {
        for (const r of mine) {
          if (r.status === 'pending') await transition(q, 'receivable', r.id, r.status, 'cancelled', { updated_at: ts });
        }
        const received = mine.reduce((a, r) => a + receivedBy(r.status, Number(r.net_amount), Number(r.anticipation_fee_amount ?? 0)), 0);
        const debited = await q.get<{ n: number | string | null }>(
          "SELECT COALESCE(SUM(amount), 0) AS n FROM wallet_entries WHERE wallet_id = ? AND reference_type = 'refund' AND reference_id = ?",
          [walletId, id],
        );
        debitDue = Math.max(0, received - Number(debited?.n ?? 0));
      } else {
        let part = refundShare(pp.net, before, after, total);
        for (const r of mine) {
          if (part === 0) break;
          if (r.status !== 'pending') continue;
          const rnet = Number(r.net_amount);
          if (part >= rnet) {
            await transition(q, 'receivable', r.id, r.status, 'cancelled', { updated_at: ts });
            part -= rnet;
          } else {
            await q.run('UPDATE receivables SET gross_amount = gross_amount - ?, net_amount = net_amount - ?, updated_at = ? WHERE id = ?', [part, part, ts, r.id]);
            part = 0;
          }
        }
        debitDue = part;
      }
      if (debitDue > 0) await debit(q, deps.ids, { walletId, amount: debitDue, referenceType: 'refund', referenceId: id, description, at: now });
    }
    await q.run('INSERT INTO refunds (id, charge_id, merchant_id, amount, created_at) VALUES (?, ?, ?, ?, ?)', [refundId, id, ctx.merchantId, amount, ts]);
    if (whole) await transition(q, 'charge', id, c.status, 'refunded', { refunded_amount: after, refunded_at: ts, updated_at: ts });
    else await q.run('UPDATE charges SET refunded_amount = ?, updated_at = ? WHERE id = ?', [after, ts, id]);
    const out = await loadCharge(q, ctx.merchantId, id);
    const refund = refundRecord({ id: refundId, charge_id: id, merchant_id: ctx.merchantId, amount, created_at: ts });
    await emitEvent(q, deps.ids, { merchantId: ctx.merchantId, type: 'charge.refunded', data: { ...chargeRecord(out), refund }, chargeId: id, at: now });
    return out;
  });
  return chargeRecord(row);
}
