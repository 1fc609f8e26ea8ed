/**
 * Chargebacks (docs/api.md, "Chargebacks"): a dispute of a captured card charge, opened by the
 * sandbox (POST /v1/sandbox/charges/{id}/chargeback, or a magic card's scheduled dispute), or a
 * MED of a captured PIX charge (`type: "med"`, POST /v1/sandbox/charges/{id}/med), its
 * money taken back from the charge's liable parties at once, then accepted, contested and
 * decided, or lost past its evidence window. Each move, its ledger entries and its event commit
 * in one transaction; the status moves only through the lifecycle table.
 *
 * Money: when it opens, each liable party's part (src/domain/chargebacks.ts chargebackShares)
 * is taken from its pending receivables of the charge, the last installment first, then debited
 * from its wallet (reference_type chargeback) — the one debit that may take a wallet below zero
 * (ledger.ts chargebackDebit). Won: each part is credited back to its wallet (reference_type
 * chargeback). Lost or accepted: the merchant's wallet pays the chargeback fee its charge
 * recorded from the pricing (reference_type chargeback_fee), below zero too if need be: the fee
 * is owed whatever the balance.
 *
 * A MED moves and takes its money the same way, with its own windows (evidence and the decision
 * both by MED_ANALYSIS_DAYS after the opening), no fee, and, lost or accepted, the return id of
 * the devolução that gave its money back to the payer (`return_id`): the money already left the
 * receiving wallets when it opened, so the devolução books nothing more.
 */
import type { Chargeback, ChargebackContest, SandboxChargebackCreate, SandboxMedCreate } from '../../contract/resources/chargebacks.js';
import {
  CONTEST_DECISION_DAYS,
  EVIDENCE_WINDOW_DAYS,
  chargebackShares,
  contestOutcome,
  type ChargebackReason,
  type ChargebackType,
} from '../../domain/chargebacks.js';
import { MED_ANALYSIS_DAYS, medWindowProblem } from '../../domain/pixReturns.js';
import { DAY_MS } from '../../domain/fees.js';
import { assertTransition, type StatusOf } from '../../domain/lifecycle.js';
import { json, type Queryable } from '../../store/db.js';
import { transition } from '../../store/transition.js';
import type { DueContext, PageRequest, Page, QueryFor, ServiceContext, ServiceDeps } from './context.js';
import { ApiError, invalid, notFound } from '../errors.js';
import { listPage } from '../lists.js';
import { takeFromReceivables } from './agenda.js';
import { planOf, saleOf } from './charges/parties.js';
import { newReturnId, pixPaidAt } from './charges/pixReturn.js';
import { capturedAmountOf, loadCharge, ratesOf, type ChargeRow, type ReceivableRow, type StoredParty } from './charges/rows.js';
import { emitEvent } from './events.js';
import { chargebackDebit, credit } from './ledger.js';

export interface ChargebackRow {
  id: string;
  merchant_id: string;
  charge_id: string;
  type: ChargebackType;
  amount: number;
  currency: string;
  reason: ChargebackReason;
  status: StatusOf<'chargeback'>;
  evidence_due_at: string;
  evidence: string | null;
  decision_due_at: string | null;
  fee_amount: number;
  return_id: string | null;
  liabilities: string;
  next_action_at: string | null;
  closed_at: string | null;
  created_at: string;
  updated_at: string;
}

type Liability = Chargeback['liabilities'][number];

export function chargebackRecord(r: ChargebackRow): Chargeback {
  return {
    id: r.id,
    merchant_id: r.merchant_id,
    charge_id: r.charge_id,
    type: r.type,
    amount: Number(r.amount),
    currency: r.currency,
    reason: r.reason,
    status: r.status,
    evidence_due_at: r.evidence_due_at,
    evidence: json.from<Chargeback['evidence']>(r.evidence, null),
    decision_due_at: r.decision_due_at,
    fee_amount: Number(r.fee_amount),
    return_id: r.return_id ?? null,
    liabilities: json.from<Liability[]>(r.liabilities, []),
    created_at: r.created_at,
    closed_at: r.closed_at,
    updated_at: r.updated_at,
  };
}

const addDays = (at: Date, days: number) => new Date(at.getTime() + days * DAY_MS);

async function loadChargeback(q: Queryable, merchantId: string, id: string, lock = false): Promise<ChargebackRow> {
  const row = await q.get<ChargebackRow>(`SELECT * FROM chargebacks WHERE id = ? AND merchant_id = ?${lock ? q.dialect.forUpdate : ''}`, [id, merchantId]);
  if (!row) throw notFound('Chargeback');
  return row;
}

/** What of a charge may still be disputed: captured − refunded − already disputed (not won). */
export function disputableAmount(c: ChargeRow): number {
  return capturedAmountOf(c) - Number(c.refunded_amount ?? 0) - Number(c.disputed_amount ?? 0);
}

/**
 * Opens a chargeback of `amount` cents of charge `c` (locked by the caller), in the caller's
 * transaction: each liable party's part taken from its pending receivables of the charge, last
 * installment first, then from its wallet; the charge's disputed_amount raised. Event
 * chargeback.created. As withdrawals do, the chargeback's own times are those of its timeline
 * (`at`: opened when it came due, evidence due 10 days later) and its entries and event are
 * booked when they are written (`now`): no ledger entry is dated before an entry already
 * written, so a statement's running balance before any other debit is what the ledger checked.
 * A MED (`type` med) takes its evidence for MED_ANALYSIS_DAYS instead.
 */
async function open(
  q: Queryable,
  deps: ServiceDeps,
  c: ChargeRow,
  amount: number,
  dispute: { type: ChargebackType; reason: ChargebackReason },
  at: Date,
  now: Date,
): Promise<Chargeback> {
  const parties = json.from<StoredParty[]>(c.parties, []);
  const plan = planOf({ ...saleOf(c), gross: capturedAmountOf(c) }, parties);
  const shares = chargebackShares(
    amount,
    plan.parties.map((pp) => ({ net: pp.net, liable: parties[pp.key]!.liable !== false, takesRemainder: parties[pp.key]!.takes_remainder === true })),
  );
  const rs = await q.all<ReceivableRow>(`SELECT * FROM receivables WHERE charge_id = ? ORDER BY installment DESC, id${q.dialect.forUpdate}`, [c.id]);
  const id = deps.ids();
  const ts = at.toISOString();
  const nowTs = now.toISOString();
  const liabilities: Liability[] = [];
  for (const [i, pp] of plan.parties.entries()) {
    const party = parties[pp.key]!;
    if (party.liable === false) continue;
    const part = shares[i]!;
    const rest = await takeFromReceivables(q, deps.ids, rs.filter((r) => r.wallet_id === party.wallet_id), part, { type: 'chargeback', id }, now);
    if (rest > 0) {
      await chargebackDebit(q, deps.ids, {
        walletId: party.wallet_id,
        amount: rest,
        referenceType: 'chargeback',
        referenceId: id,
        description: `Chargeback ${id} of charge ${c.id}`,
        at: now,
      });
    }
    liabilities.push({ submerchant_id: party.submerchant_id, wallet_id: party.wallet_id, amount: part, from_receivables: part - rest, from_wallet: rest });
  }
  const dueAt = addDays(at, dispute.type === 'med' ? MED_ANALYSIS_DAYS : EVIDENCE_WINDOW_DAYS).toISOString();
  const row: ChargebackRow = {
    id,
    merchant_id: c.merchant_id,
    charge_id: c.id,
    type: dispute.type,
    amount,
    currency: c.currency,
    reason: dispute.reason,
    status: 'open',
    evidence_due_at: dueAt,
    evidence: null,
    decision_due_at: null,
    fee_amount: 0,
    return_id: null,
    liabilities: JSON.stringify(liabilities),
    next_action_at: dueAt,
    closed_at: null,
    created_at: ts,
    updated_at: nowTs,
  };
  await q.run(
    `INSERT INTO chargebacks (id, merchant_id, charge_id, type, amount, currency, reason, status, evidence_due_at, evidence, decision_due_at, fee_amount,
       liabilities, next_action_at, closed_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      row.id, row.merchant_id, row.charge_id, row.type, row.amount, row.currency, row.reason, row.status, row.evidence_due_at, row.evidence,
      row.decision_due_at, row.fee_amount, row.liabilities, row.next_action_at, row.closed_at, row.created_at, row.updated_at,
    ],
  );
  await q.run('UPDATE charges SET disputed_amount = disputed_amount + ?, updated_at = ? WHERE id = ?', [amount, nowTs, c.id]);
  const record = chargebackRecord(row);
  await emitEvent(q, deps.ids, { merchantId: c.merchant_id, type: 'chargeback.created', data: record, chargeId: c.id, at: now });
  return record;
}

/** The refusal of a chargeback of this charge, or null when it can be disputed (a captured card charge). */
function notDisputable(c: ChargeRow): ApiError | null {
  if (c.payment_method === 'pix') {
    return new ApiError('business_rule', 'The charge cannot be charged back: only card charges have chargebacks; this charge is pix, whose payer disputes it by a MED (POST /v1/sandbox/charges/{id}/med)');
  }
  if (c.payment_method !== 'credit_card') {
    return new ApiError('business_rule', `The charge cannot be charged back: only card charges have chargebacks; this charge is ${c.payment_method}`);
  }
  // an authorised charge holds no money yet, a voided one never will: nothing to take back
  if (c.status !== 'captured') return new ApiError('invalid_state', `The charge cannot be charged back: only a captured charge can be disputed; this charge is ${c.status}`);
  return null;
}

/**
 * The charge `chargeId` (locked) to be disputed and what is left of it to dispute, in the
 * caller's transaction: `refusal`'s error when it cannot be, 422 when nothing is left.
 */
async function disputable(q: Queryable, ctx: ServiceContext, chargeId: string, refusal: (c: ChargeRow) => ApiError | null): Promise<{ c: ChargeRow; left: number }> {
  const c = await loadCharge(q, ctx.merchantId, chargeId, true);
  const refused = refusal(c);
  if (refused) throw refused;
  const left = disputableAmount(c);
  if (left < 1) {
    throw new ApiError(
      'business_rule',
      `Nothing is left to dispute of this charge: of ${capturedAmountOf(c)} cents, ${Number(c.refunded_amount ?? 0)} are refunded and ${Number(c.disputed_amount ?? 0)} already disputed`,
    );
  }
  return { c, left };
}

/** Sandbox: the cardholder disputes a captured card charge, all that is left of it or `amount` cents. */
export async function openSandboxChargeback(ctx: ServiceContext, chargeId: string, body: SandboxChargebackCreate): Promise<Chargeback> {
  const now = ctx.now();
  return ctx.db.tx(async (q) => {
    const { c, left } = await disputable(q, ctx, chargeId, notDisputable);
    const amount = body.amount ?? left;
    if (amount > left) {
      throw invalid('amount', `must be at most ${left} cents, what is left to dispute of this charge (${capturedAmountOf(c)} − ${Number(c.refunded_amount ?? 0)} refunded − ${Number(c.disputed_amount ?? 0)} already disputed)`);
    }
    return open(q, ctx.deps, c, amount, { type: 'chargeback', reason: body.reason ?? 'fraud' }, now, now);
  });
}

/** The refusal of a MED of this charge at `now`, or null when one may be opened (a PIX charge captured up to 80 days before). */
function notMedable(c: ChargeRow, now: Date): ApiError | null {
  if (c.payment_method !== 'pix') {
    const instead = c.payment_method === 'credit_card' ? ', whose cardholder disputes it by a chargeback (POST /v1/sandbox/charges/{id}/chargeback)' : '';
    return new ApiError('business_rule', `The charge cannot get a MED: a MED disputes a PIX payment; this charge is ${c.payment_method}${instead}`);
  }
  if (c.status !== 'captured') return new ApiError('invalid_state', `The charge cannot get a MED: only a captured (paid) PIX charge can be disputed; this charge is ${c.status}`);
  const late = medWindowProblem(pixPaidAt(c), now);
  if (late) return new ApiError('business_rule', `The charge cannot get a MED: ${late}`);
  return null;
}

/**
 * Sandbox: the payer's institution opens a MED against a captured PIX charge, for all that is
 * left of it: a chargeback of type med, its money taken from the liable parties at once.
 */
export async function openSandboxMed(ctx: ServiceContext, chargeId: string, body: SandboxMedCreate): Promise<Chargeback> {
  const now = ctx.now();
  return ctx.db.tx(async (q) => {
    const { c, left } = await disputable(q, ctx, chargeId, (x) => notMedable(x, now));
    return open(q, ctx.deps, c, left, { type: 'med', reason: body.reason ?? 'fraud' }, now, now);
  });
}

/**
 * After a captured charge with a magic dispute card (src/domain/sandbox.ts TEST_CARDS): its
 * chargeback scheduled `afterDays` later, in the capture's transaction.
 */
export async function scheduleSandboxDispute(q: Queryable, c: Pick<ChargeRow, 'id' | 'merchant_id'>, dispute: { reason: ChargebackReason; after_days: number }, at: Date): Promise<void> {
  await q.run('INSERT INTO chargeback_schedule (charge_id, merchant_id, reason, due_at) VALUES (?, ?, ?, ?)', [
    c.id,
    c.merchant_id,
    dispute.reason,
    addDays(at, dispute.after_days).toISOString(),
  ]);
}

/**
 * Due work: the scheduled disputes of magic cards that came due, each opened at its due moment
 * for all that is left of its charge. A charge refunded (or disputed) in full before then has
 * nothing left and is not disputed, as a refund before a dispute prevents it.
 */
export async function openScheduledChargebacks(ctx: DueContext): Promise<number> {
  const due = await ctx.db.all<{ charge_id: string; reason: ChargebackReason; due_at: string }>(
    'SELECT charge_id, reason, due_at FROM chargeback_schedule WHERE merchant_id = ? AND due_at <= ? ORDER BY due_at, charge_id LIMIT ?',
    [ctx.merchantId, ctx.now().toISOString(), ctx.deps.due.batch],
  );
  if (!due.length) return 0;
  const now = ctx.now();
  return ctx.db.tx(async (q) => {
    let n = 0;
    for (const s of due) {
      const gone = await q.run('DELETE FROM chargeback_schedule WHERE charge_id = ?', [s.charge_id]);
      if (!gone.changes) continue;
      n++;
      const c = await loadCharge(q, ctx.merchantId, s.charge_id, true);
      if (notDisputable(c) === null && disputableAmount(c) > 0) await open(q, ctx.deps, c, disputableAmount(c), { type: 'chargeback', reason: s.reason }, new Date(s.due_at), now);
    }
    return n;
  });
}

/**
 * The chargeback fee of chargeback `cb`: the one its charge recorded from the merchant's pricing
 * when it was created, whatever the pricing says by now. A MED has none.
 */
async function feeOf(q: Queryable, cb: ChargebackRow): Promise<number> {
  if (cb.type === 'med') return 0;
  const c = await q.get<Pick<ChargeRow, 'pricing' | 'payment_method' | 'card_brand' | 'installments'>>(
    'SELECT pricing, payment_method, card_brand, installments FROM charges WHERE id = ?',
    [cb.charge_id],
  );
  if (!c) throw new Error(`chargeback ${cb.id} has no charge`);
  return ratesOf(c).chargeback_fee_amount;
}

/** Lost or accepted: the chargeback fee (`fee`), debited from the merchant's wallet whatever its balance. */
async function chargeFee(q: Queryable, deps: ServiceDeps, cb: ChargebackRow, fee: number, at: Date): Promise<void> {
  if (fee === 0) return;
  const w = await q.get<{ id: string }>("SELECT id FROM wallets WHERE owner_type = 'merchant' AND owner_id = ? AND currency = 'BRL'", [cb.merchant_id]);
  if (!w) throw new Error(`merchant ${cb.merchant_id} has no wallet`);
  await chargebackDebit(q, deps.ids, {
    walletId: w.id,
    amount: fee,
    referenceType: 'chargeback_fee',
    referenceId: cb.id,
    description: `Chargeback fee of chargeback ${cb.id} (charge ${cb.charge_id})`,
    at,
  });
}

/**
 * Closes chargeback `cb` (locked) as `to`, in the caller's transaction: won credits each
 * party's part back and releases it from the charge's disputed_amount; lost and accepted charge
 * the fee. Event chargeback.<to>. `closed_at` is `at`, the moment the move came due; its entries
 * and event are booked `now` (see `open`). A MED lost or accepted gets the return id of the
 * devolução that gives its money to the payer, stamped with the minute it closed (`at`), so the
 * id and closed_at tell the same moment however late the due work ran.
 */
async function close(q: Queryable, deps: ServiceDeps, cb: ChargebackRow, to: 'won' | 'lost' | 'accepted', at: Date, now: Date): Promise<Chargeback> {
  const ts = at.toISOString();
  const nowTs = now.toISOString();
  const fee = to === 'won' ? 0 : await feeOf(q, cb);
  const returnId = cb.type === 'med' && to !== 'won' ? newReturnId(at) : null;
  await transition(q, 'chargeback', cb.id, cb.status, to, { fee_amount: fee, return_id: returnId, next_action_at: null, closed_at: ts, updated_at: nowTs });
  if (to === 'won') {
    for (const l of json.from<Liability[]>(cb.liabilities, [])) {
      if (l.amount > 0) {
        await credit(q, deps.ids, { walletId: l.wallet_id, amount: l.amount, referenceType: 'chargeback', referenceId: cb.id, description: `Chargeback ${cb.id} won: credited back`, at: now });
      }
    }
    await q.run('UPDATE charges SET disputed_amount = disputed_amount - ?, updated_at = ? WHERE id = ?', [Number(cb.amount), nowTs, cb.charge_id]);
  } else {
    await chargeFee(q, deps, cb, fee, now);
  }
  const record = chargebackRecord({ ...cb, status: to, fee_amount: fee, return_id: returnId, next_action_at: null, closed_at: ts, updated_at: nowTs });
  await emitEvent(q, deps.ids, { merchantId: cb.merchant_id, type: `chargeback.${to}`, data: record, chargeId: cb.charge_id, at: now });
  return record;
}

/**
 * The move due at `now` of a chargeback (locked), in the caller's transaction, or null when
 * none is: an open one past evidence_due_at is lost then; one under review is decided at
 * decision_due_at by its evidence (src/domain/chargebacks.ts contestOutcome).
 */
async function dueMove(q: Queryable, deps: ServiceDeps, cb: ChargebackRow, now: Date): Promise<Chargeback | null> {
  if (!cb.next_action_at || cb.next_action_at > now.toISOString()) return null;
  const at = new Date(cb.next_action_at);
  if (cb.status === 'open') return close(q, deps, cb, 'lost', at, now);
  if (cb.status === 'under_review') return close(q, deps, cb, outcomeOf(cb), at, now);
  return null;
}

function outcomeOf(cb: ChargebackRow): 'won' | 'lost' {
  return contestOutcome(json.from<{ text?: string }>(cb.evidence, {}).text ?? '');
}

/** Due work: chargebacks whose evidence window passed (lost) or whose contest is due to be decided. */
export async function advanceChargebacks(ctx: DueContext): Promise<number> {
  const now = ctx.now();
  const due = await ctx.db.all<{ id: string }>(
    'SELECT id FROM chargebacks WHERE merchant_id = ? AND next_action_at IS NOT NULL AND next_action_at <= ? ORDER BY next_action_at, id LIMIT ?',
    [ctx.merchantId, now.toISOString(), ctx.deps.due.batch],
  );
  if (!due.length) return 0;
  return ctx.db.tx(async (q) => {
    let n = 0;
    for (const { id } of due) {
      if (await dueMove(q, ctx.deps, await loadChargeback(q, ctx.merchantId, id, true), now)) n++;
    }
    return n;
  });
}

/**
 * The chargeback as it stands at the merchant's `now`: its due move made first if the due work
 * has not made it yet (a request whose due work was skipped), in a transaction of its own.
 */
async function current(ctx: ServiceContext, id: string): Promise<void> {
  const now = ctx.now();
  const cb = await loadChargeback(ctx.db, ctx.merchantId, id);
  if (!cb.next_action_at || cb.next_action_at > now.toISOString()) return;
  await ctx.db.tx(async (q) => dueMove(q, ctx.deps, await loadChargeback(q, ctx.merchantId, id, true), now));
}

/** POST /v1/chargebacks/{id}/accept: open → accepted; the fee is debited from the merchant. Event chargeback.accepted. */
export async function acceptChargeback(ctx: ServiceContext, id: string): Promise<Chargeback> {
  await current(ctx, id);
  const now = ctx.now();
  return ctx.db.tx(async (q) => {
    const cb = await loadChargeback(q, ctx.merchantId, id, true);
    assertTransition('chargeback', cb.status, 'accepted');
    return close(q, ctx.deps, cb, 'accepted', now, now);
  });
}

/**
 * POST /v1/chargebacks/{id}/contest: open → under_review with the evidence (text, and keys of
 * the merchant's uploads, which become attached: kept past the uploads' retention). The issuer
 * decides CONTEST_DECISION_DAYS later; a MED is decided at the end of its analysis
 * (evidence_due_at, MED_ANALYSIS_DAYS after it opened). Event chargeback.under_review.
 */
export async function contestChargeback(ctx: ServiceContext, id: string, body: ChargebackContest): Promise<Chargeback> {
  await current(ctx, id);
  const now = ctx.now();
  const ts = now.toISOString();
  const fileIds = body.file_ids ?? [];
  fileIds.forEach((k, i) => {
    if (fileIds.indexOf(k) !== i) throw invalid(`file_ids[${i}]`, `lists ${k} a second time; name each file once`);
  });
  return ctx.db.tx(async (q) => {
    const cb = await loadChargeback(q, ctx.merchantId, id, true);
    assertTransition('chargeback', cb.status, 'under_review');
    for (const [i, key] of fileIds.entries()) {
      // locked: the due work's removal of an unattached upload waits for this contest, or wins before it
      const f = await q.get<{ key: string }>(`SELECT key FROM files WHERE key = ? AND merchant_id = ?${q.dialect.forUpdate}`, [key, ctx.merchantId]);
      if (!f) {
        const message = `no upload ${key} of this merchant; upload the file with POST /v1/files (uploads attached to nothing are removed after the retention)`;
        throw new ApiError('not_found', `file_ids[${i}]: ${message}`, [{ field: `file_ids[${i}]`, message }]);
      }
      await q.run('UPDATE files SET attached_at = ? WHERE key = ? AND attached_at IS NULL', [ts, key]);
    }
    const decisionAt = cb.type === 'med' ? cb.evidence_due_at : addDays(now, CONTEST_DECISION_DAYS).toISOString();
    const evidence = JSON.stringify({ text: body.text, file_ids: fileIds, submitted_at: ts });
    await transition(q, 'chargeback', cb.id, cb.status, 'under_review', { evidence, decision_due_at: decisionAt, next_action_at: decisionAt, updated_at: ts });
    const record = chargebackRecord({ ...cb, status: 'under_review', evidence, decision_due_at: decisionAt, next_action_at: decisionAt, updated_at: ts });
    await emitEvent(q, ctx.deps.ids, { merchantId: ctx.merchantId, type: 'chargeback.under_review', data: record, chargeId: cb.charge_id, at: now });
    return record;
  });
}

/** Sandbox: the issuer decides a chargeback under review now, by its evidence. */
export async function decideSandboxChargeback(ctx: ServiceContext, id: string): Promise<Chargeback> {
  await current(ctx, id);
  const now = ctx.now();
  return ctx.db.tx(async (q) => {
    const cb = await loadChargeback(q, ctx.merchantId, id, true);
    if (cb.status !== 'under_review') throw new ApiError('invalid_state', `Only a contested chargeback (under_review) is decided; this one is ${cb.status}`);
    return close(q, ctx.deps, cb, outcomeOf(cb), now, now);
  });
}

export async function getChargeback(ctx: ServiceContext, id: string): Promise<Chargeback> {
  return chargebackRecord(await loadChargeback(ctx.db, ctx.merchantId, id));
}

export function listChargebacks(ctx: ServiceContext, query: QueryFor<'chargebacks.list'>, page: PageRequest): Promise<Page<Chargeback>> {
  return listPage(ctx.db, {
    from: 'chargebacks',
    filters: [
      ['merchant_id = ?', ctx.merchantId],
      ['status = ?', query.status],
      ['type = ?', query.type],
      ['charge_id = ?', query.charge_id],
      ['created_at >= ?', query.start_date],
      ['created_at < ?', query.end_date],
    ],
    page,
    map: chargebackRecord,
  });
}
