/**
 * Taking money back from a party: from its receivables not yet settled (its agenda) before its
 * wallet (src/domain/agenda.ts drawDown). A receivable gives part of its net (gross and net
 * reduced alike) or all of it (cancelled); each amount taken is recorded in
 * `receivable_deductions` with the refund or chargeback it was taken for. In the caller's
 * transaction, with the receivables it passes already locked.
 */
import { drawDown } from '../../domain/agenda.js';
import type { IdGenerator } from '../../domain/ids.js';
import type { Queryable } from '../../store/db.js';
import { transition } from '../../store/transition.js';
import { ApiError } from '../errors.js';
import type { ReceivableRow } from './charges/rows.js';
import { debit } from './ledger.js';

/** What money is taken back for: a refund of a charge (reference_id: the charge), or a chargeback. */
export interface TakenFor {
  type: 'refund' | 'chargeback';
  id: string;
}

/**
 * Takes up to `part` cents from the pending receivables `rows`, in their order; returns what
 * they could not cover.
 */
export async function takeFromReceivables(q: Queryable, ids: IdGenerator, rows: readonly ReceivableRow[], part: number, why: TakenFor, at: Date): Promise<number> {
  const pending = rows.filter((r) => r.status === 'pending');
  const { taken, rest } = drawDown(part, pending.map((r) => Number(r.net_amount)));
  const ts = at.toISOString();
  for (const [i, r] of pending.entries()) {
    const t = taken[i]!;
    if (t === 0) continue;
    if (t === Number(r.net_amount)) await transition(q, 'receivable', r.id, r.status, 'cancelled', { updated_at: ts });
    else await q.run('UPDATE receivables SET gross_amount = gross_amount - ?, net_amount = net_amount - ?, updated_at = ? WHERE id = ?', [t, t, ts, r.id]);
    await q.run(
      'INSERT INTO receivable_deductions (id, receivable_id, wallet_id, amount, reference_type, reference_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      [ids(), r.id, r.wallet_id, t, why.type, why.id, ts],
    );
  }
  return rest;
}

/**
 * A refund's part that the charge's own receivables did not cover: debited from the party's
 * wallet as far as its balance goes, and what the balance lacks taken from the party's other
 * pending receivables, the one settling last first (soonest to settle last). If they cannot
 * cover it either, the whole refund is refused with 422 insufficient_funds.
 */
export async function refundFromWallet(
  q: Queryable,
  ids: IdGenerator,
  walletId: string,
  amount: number,
  ref: { chargeId: string; description: string },
  at: Date,
): Promise<void> {
  const w = await q.get<{ balance: number | string }>(`SELECT balance FROM wallets WHERE id = ?${q.dialect.forUpdate}`, [walletId]);
  const balance = Number(w?.balance ?? 0);
  const fromWallet = Math.min(amount, Math.max(0, balance));
  const missing = amount - fromWallet;
  if (missing > 0) {
    const agenda = await q.all<ReceivableRow>(
      `SELECT * FROM receivables WHERE wallet_id = ? AND status = 'pending' ORDER BY settlement_date DESC, id DESC${q.dialect.forUpdate}`,
      [walletId],
    );
    const left = await takeFromReceivables(q, ids, agenda, missing, { type: 'refund', id: ref.chargeId }, at);
    if (left > 0) {
      throw new ApiError(
        'insufficient_funds',
        `The wallet ${walletId} cannot give back ${amount} cents for this refund: its balance (${balance} cents) and its pending receivables (${missing - left} cents) are not enough`,
      );
    }
  }
  if (fromWallet > 0) await debit(q, ids, { walletId, amount: fromWallet, referenceType: 'refund', referenceId: ref.chargeId, description: ref.description, at });
}
