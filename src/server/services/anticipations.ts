/**
 * Spot anticipation: pending card receivables of one wallet are paid ahead of their
 * settlement date for a fee of net × the monthly rate / 30 × days until settlement (per
 * receivable, rounded half up). The rate is the one the receivable's charge recorded when it
 * was created (its `pricing.anticipation_monthly_bps`; 2.5 % by default), not the pricing's of
 * the moment. A receivable whose fee would take all of its net (a high rate, far from
 * settlement) is not eligible: refused when named, passed over when filling an amount. In the
 * sandbox the acquirer approves at once: the receivables become `anticipated` and the wallet is credited the total net (reference_type anticipation), all
 * in one transaction with the anticipation.approved event. When nothing is eligible the
 * anticipation is recorded as refused (anticipation.refused) with the reason.
 */
import type { Anticipation } from '../../contract/resources/receivables.js';
import { calendarDaysUntil } from '../../domain/calendar.js';
import { anticipationFee } from '../../domain/fees.js';
import type { StatusOf } from '../../domain/lifecycle.js';
import { json, type Queryable } from '../../store/db.js';
import { transition } from '../../store/transition.js';
import type { Page, PageRequest, QueryFor, ServiceContext } from './context.js';
import { ApiError, invalid } from '../errors.js';
import { ratesOf, type ChargeRow, type ReceivableRow } from './charges/rows.js';
import { emitEvent } from './events.js';
import { credit, refuseWhileNegative } from './ledger.js';
import { walletOf } from './wallets.js';
import { listPage } from '../lists.js';

export interface AnticipationRow {
  id: string;
  merchant_id: string;
  submerchant_id: string | null;
  wallet_id: string;
  status: Anticipation['status'];
  anticipation_type: 'spot';
  requested_amount: number | null;
  receivable_ids: string;
  total_gross_amount: number;
  total_fee_amount: number;
  total_net_amount: number;
  refusal_reason: string | null;
  created_at: string;
  updated_at: string;
}

export function anticipationRecord(r: AnticipationRow): Anticipation {
  return {
    ...r,
    requested_amount: r.requested_amount === null ? null : Number(r.requested_amount),
    receivable_ids: json.from<string[]>(r.receivable_ids, []),
    total_gross_amount: Number(r.total_gross_amount),
    total_fee_amount: Number(r.total_fee_amount),
    total_net_amount: Number(r.total_net_amount),
  };
}

const MAX_PICK = 500;

export interface AnticipationRequest {
  receivable_ids?: string[];
  amount?: number;
  submerchant_id?: string;
}

async function ownerWallet(q: Queryable, merchantId: string, submerchantId: string | undefined): Promise<string> {
  if (submerchantId) {
    const s = await q.get('SELECT id FROM submerchants WHERE id = ? AND parent_merchant_id = ?', [submerchantId, merchantId]);
    if (!s) throw new ApiError('not_found', 'submerchant_id: submerchant not found', [{ field: 'submerchant_id', message: 'submerchant not found' }]);
  }
  // a submerchant of this merchant (checked above), or the merchant itself
  const w = await walletOf(q, submerchantId ? 'submerchant' : 'merchant', submerchantId ?? merchantId);
  if (!w) {
    if (submerchantId) throw new ApiError('business_rule', 'submerchant_id: the submerchant has no wallet yet (it has received no charge)');
    throw new Error(`merchant ${merchantId} has no wallet`);
  }
  return w;
}

type RatedCharge = Pick<ChargeRow, 'id' | 'pricing' | 'payment_method' | 'card_brand' | 'installments'>;

/** The anticipation rate each receivable's charge recorded, by charge id (read 500 charges at a time). */
async function anticipationRates(q: Queryable, receivables: readonly ReceivableRow[]): Promise<Map<string, number>> {
  const ids = [...new Set(receivables.map((r) => r.charge_id))];
  const out = new Map<string, number>();
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const rows = await q.all<RatedCharge>(`SELECT id, pricing, payment_method, card_brand, installments FROM charges WHERE id IN (${chunk.map(() => '?').join(', ')})`, chunk);
    for (const c of rows) out.set(c.id, ratesOf(c).anticipation_monthly_bps);
  }
  return out;
}

/** A receivable's anticipation fee now, at the rate its charge recorded. */
function feeOf(r: ReceivableRow, rates: Map<string, number>, now: Date): number {
  return anticipationFee(Number(r.net_amount), calendarDaysUntil(new Date(r.settlement_date), now), rates.get(r.charge_id)!);
}

export async function createAnticipation(ctx: ServiceContext, body: AnticipationRequest): Promise<Anticipation> {
  const now = ctx.now();
  const ts = now.toISOString();
  const { deps } = ctx;
  return ctx.db.tx(async (q) => {
    const walletId = await ownerWallet(q, ctx.merchantId, body.submerchant_id);
    // money ahead of time only once a chargeback's debt is paid back
    await refuseWhileNegative(q, walletId, 'an anticipation', body.submerchant_id ? 'submerchant_id' : undefined);
    let picked: ReceivableRow[] = [];
    let refusal: string | null = null;

    if (body.receivable_ids) {
      const ids = body.receivable_ids;
      const rows = await q.all<ReceivableRow>(
        `SELECT * FROM receivables WHERE merchant_id = ? AND id IN (${ids.map(() => '?').join(', ')})${q.dialect.forUpdate}`,
        [ctx.merchantId, ...ids],
      );
      const byId = new Map(rows.map((r) => [r.id, r]));
      const problems: string[] = [];
      ids.forEach((id, i) => {
        const r = byId.get(id);
        if (!r) throw new ApiError('not_found', `receivable_ids[${i}]: receivable not found`, [{ field: `receivable_ids[${i}]`, message: 'receivable not found' }]);
        if (r.wallet_id !== walletId) {
          throw invalid(
            `receivable_ids[${i}]`,
            r.submerchant_id
              ? `belongs to submerchant ${r.submerchant_id}; anticipate it with submerchant_id`
              : "is the merchant's own receivable; anticipate it without submerchant_id",
          );
        }
        if (r.status !== 'pending') problems.push(`${id} is ${r.status}`);
        else if (r.payment_method !== 'credit_card') problems.push(`${id} is a ${r.payment_method} receivable`);
        else if (r.settlement_date <= ts) problems.push(`${id} is already due`);
      });
      const rates = await anticipationRates(q, rows);
      for (const r of rows) {
        if (r.status !== 'pending' || r.payment_method !== 'credit_card' || r.settlement_date <= ts) continue;
        const f = feeOf(r, rates, now);
        if (f >= Number(r.net_amount)) problems.push(`${r.id}: its fee of ${f} cents would take all of its net of ${r.net_amount} cents`);
      }
      if (problems.length) refusal = `Not eligible for anticipation (only pending card receivables before their settlement date, whose fee is less than their net): ${problems.join('; ')}`;
      else picked = ids.map((id) => byId.get(id)!);
    } else {
      const candidates = await q.all<ReceivableRow>(
        `SELECT * FROM receivables
          WHERE wallet_id = ? AND merchant_id = ? AND status = 'pending' AND payment_method = 'credit_card' AND settlement_date > ?
          ORDER BY settlement_date, id${q.dialect.forUpdate}`,
        [walletId, ctx.merchantId, ts],
      );
      let left = body.amount!;
      const rates = await anticipationRates(q, candidates);
      for (const r of candidates) {
        if (picked.length >= MAX_PICK) break;
        // passed over: a receivable whose fee would take all of its net
        if (Number(r.net_amount) <= left && feeOf(r, rates, now) < Number(r.net_amount)) {
          picked.push(r);
          left -= Number(r.net_amount);
        }
      }
      if (!picked.length) {
        refusal = candidates.length
          ? `No pending receivable fits in ${body.amount} cents with a fee less than its net; the smallest available nets ${Math.min(...candidates.map((c) => Number(c.net_amount)))} cents`
          : 'No pending card receivable is available for anticipation';
      }
    }

    const id = deps.ids();
    const rates = await anticipationRates(q, picked);
    let gross = 0;
    let fee = 0;
    const fees = picked.map((r) => {
      const f = feeOf(r, rates, now);
      gross += Number(r.net_amount);
      fee += f;
      return f;
    });
    // decided as it is created: no anticipation is stored pending
    const status: StatusOf<'anticipation'> = refusal ? 'refused' : 'approved';
    await q.run(
      `INSERT INTO anticipations (id, merchant_id, submerchant_id, wallet_id, status, anticipation_type, requested_amount, receivable_ids,
         total_gross_amount, total_fee_amount, total_net_amount, refusal_reason, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, 'spot', ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        id,
        ctx.merchantId,
        body.submerchant_id ?? null,
        walletId,
        status,
        body.amount ?? null,
        JSON.stringify(picked.map((r) => r.id)),
        gross,
        fee,
        gross - fee,
        refusal,
        ts,
        ts,
      ],
    );
    for (const [i, r] of picked.entries()) {
      await transition(q, 'receivable', r.id, r.status, 'anticipated', { anticipation_id: id, anticipation_fee_amount: fees[i]!, updated_at: ts });
    }
    if (picked.length) {
      await credit(q, deps.ids, {
        walletId,
        amount: gross - fee,
        referenceType: 'anticipation',
        referenceId: id,
        description: `Anticipation of ${picked.length} receivable(s)`,
        at: now,
      });
    }
    const out = anticipationRecord((await q.get<AnticipationRow>('SELECT * FROM anticipations WHERE id = ?', [id]))!);
    await emitEvent(q, deps.ids, { merchantId: ctx.merchantId, type: refusal ? 'anticipation.refused' : 'anticipation.approved', data: out, at: now });
    return out;
  });
}

/** The merchant's anticipations, newest first. */
export function listAnticipations(ctx: ServiceContext, query: QueryFor<'anticipations.list'>, page: PageRequest): Promise<Page<Anticipation>> {
  return listPage(ctx.db, {
    from: 'anticipations',
    filters: [
      ['merchant_id = ?', ctx.merchantId],
      ['status = ?', query.status],
      ['anticipation_type = ?', query.type],
      ['created_at >= ?', query.start_date],
      ['created_at < ?', query.end_date],
    ],
    page,
    map: anticipationRecord,
  });
}
