/**
 * Charges with a due date: the boleto and the PIX with a due date (cobv). What they add to a
 * charge's create (terms checked against the day and the amount, the slip, when it expires),
 * their payment (the amount due on the day it is paid, src/domain/dueAmount.ts), their expiry,
 * and the sandbox's payers that act by themselves (src/domain/sandbox.ts DUE_PAYERS).
 *
 * Money: the paid amount (`paid_amount`, which the discount, fine and interest make differ from
 * `amount`) is what the parties share, in proportion to their shares of `amount` (floored, the
 * cents left over to the remainder party); the charge's stored parties are rewritten to those
 * paid shares with the capture, so a refund plans from what was paid. The fee is by the rates
 * the charge recorded when it was issued: a boleto's fixed fee, or the PIX MDR of the paid amount. A boleto's paid amount settles as one
 * receivable per party on the business day after the day it was paid (D+1; at once, dated that
 * day, when the payment is of a day whose D+1 has passed); a PIX's at once.
 */
import type { Charge, ChargeCreate, SandboxPayRequest } from '../../../contract/resources/charges.js';
import { localDate, settlementDayFrom, startOfDay } from '../../../domain/calendar.js';
import { amountDueOn, dueTermsProblems, payableUntil, type AmountDue } from '../../../domain/dueAmount.js';
import { PlanError } from '../../../domain/fees.js';
import { formatBRL } from '../../../domain/money.js';
import { assertTransition } from '../../../domain/lifecycle.js';
import { salePrice, type ChargeRates } from '../../../domain/pricing.js';
import { duePayerOf, NEVER_PAYS_REASON, sandboxLatePayment } from '../../../domain/sandbox.js';
import { json, type Queryable } from '../../../store/db.js';
import { transition } from '../../../store/transition.js';
import type { DueContext, ServiceContext, ServiceDeps } from '../context.js';
import { ApiError, invalid } from '../../errors.js';
import { emitEvent } from '../events.js';
import { recordLinkUse } from '../paymentLinks.js';
import { newSlip } from './boleto.js';
import { eachPendingCharge } from './due.js';
import { assertPayable, payPixCharge, payReceivable } from './capture.js';
import { dueTermsOf, storedTerms, type StoredDuePayment, type StoredDueTerms } from './dueView.js';
import { planOf, saleOf, sharesOf, type PartyDraft } from './parties.js';
import { loadCharge, type ChargeRow, type StoredParty } from './rows.js';
import { ChargeView } from './view.js';

/** Origin of a slip's URL when the charge was made by no request (as capture.ts's events). */
const FALLBACK_BASE_URL = 'http://localhost';

/** What a charge with a due date adds to its row at create (the slip's columns are added in the transaction). */
export interface DueSetup {
  terms: StoredDueTerms;
  /** the first instant after the last payable day */
  expiresAt: string;
  /** the sandbox's late payer pays then (null: it does not act by itself) */
  sandboxPaysAt: string | null;
}

type DueBody = Extract<ChargeCreate, { payment_method: 'boleto' }>['payment_details'];

function dueDetailsOf(body: ChargeCreate): (Omit<DueBody, 'due_date' | 'instructions'> & { due_date: string; instructions?: string }) | null {
  if (body.payment_method === 'boleto') return body.payment_details;
  if (body.payment_method === 'pix' && body.payment_details?.due_date) return { ...body.payment_details, due_date: body.payment_details.due_date };
  return null;
}

/**
 * The terms of a boleto or a PIX with a due date, checked against the merchant's day and the
 * amount (a 400 naming each field of payment_details that is wrong), and when it expires; null
 * for any other charge. A boleto must net every party at least a cent after the fee its `rates`
 * record even when paid with the discount.
 */
export function dueSetupOf(ctx: ServiceContext, body: ChargeCreate, drafts: readonly PartyDraft[], now: Date, rates: ChargeRates): DueSetup | null {
  const d = dueDetailsOf(body);
  if (!d) return null;
  const terms: StoredDueTerms = {
    due_date: d.due_date,
    fine: d.fine ?? 0,
    interest: d.interest ?? 0,
    discount: d.discount ?? null,
    pay_until_days: d.pay_until_days ?? 29,
    instructions: d.instructions ?? null,
  };
  const domain = dueTermsOf(terms, body.amount);
  const problems = dueTermsProblems(domain, localDate(now));
  if (problems.length) {
    const details = problems.map((p) => ({ field: `payment_details.${p.field}`, message: p.message }));
    throw new ApiError('validation_error', details.map((x) => `${x.field}: ${x.message}`).join('; '), details);
  }
  if (body.payment_method === 'boleto') {
    const least = body.amount - (terms.discount?.amount ?? 0);
    const price = salePrice('boleto', rates);
    try {
      planOf({ method: 'boleto', installments: 1, price, gross: least }, drafts);
    } catch (e) {
      if (!(e instanceof PlanError)) throw e;
      const field = body.split_rules ? 'split_rules' : terms.discount ? 'payment_details.discount.amount' : 'amount';
      const fee = `a paid boleto costs a fee of ${formatBRL(rates.boleto_fee_amount!)}`;
      const what = terms.discount ? 'the amount less the discount' : 'the amount';
      throw invalid(field, body.split_rules ? `${fee}; ${e.message}` : `${fee}: ${what} (${least} cents) must be more than that, so that at least 1 cent is left`);
    }
  }
  const late = ctx.deps.mode === 'sandbox' && duePayerOf(body.customer.email) === 'pays_late';
  return {
    terms,
    expiresAt: payableUntil(domain).toISOString(),
    sandboxPaysAt: late ? sandboxLatePayment(domain).toISOString() : null,
  };
}

/** The due-date columns of a new charge's row, with its slip for a boleto (taken in the caller's transaction). */
export async function dueColumns(
  q: Queryable,
  ctx: ServiceContext,
  id: string,
  body: ChargeCreate,
  setup: DueSetup | null,
): Promise<Pick<ChargeRow, 'due_terms' | 'due_expires_at' | 'sandbox_pays_at' | 'boleto_our_number' | 'boleto_barcode' | 'boleto_url'>> {
  if (!setup) return {};
  const slip = body.payment_method === 'boleto' ? await newSlip(q, ctx.merchantId, body.amount, setup.terms.due_date) : null;
  const base = ctx.baseUrl ?? ctx.deps.publicBaseUrl ?? FALLBACK_BASE_URL;
  return {
    due_terms: JSON.stringify(setup.terms),
    due_expires_at: setup.expiresAt,
    sandbox_pays_at: setup.sandboxPaysAt,
    boleto_our_number: slip?.our_number ?? null,
    boleto_barcode: slip?.barcode ?? null,
    boleto_url: slip ? `${base}/boleto/${id}` : null,
  };
}

/** A payment of a charge with a due date: the São Paulo day it was paid and what was due that day. */
interface DuePayment {
  paidOn: string;
  due: AmountDue;
  /** when it was paid (the capture's instant, and a PIX's wallet credit) */
  at: Date;
}

/**
 * pending → captured in the caller's transaction, with the paid amount: the parties' shares of
 * it, the fee, one receivable per party (a boleto's settling D+1 after `paidOn`; a PIX's paid at
 * once), event charge.captured, and a payment link's use.
 */
async function captureDue(q: Queryable, deps: ServiceDeps, charge: ChargeView, p: DuePayment, baseUrl?: string): Promise<ChargeView> {
  const row = charge.row;
  assertTransition('charge', row.status, 'captured');
  const paid = p.due.amountDueCents;
  const stored = json.from<StoredParty[]>(row.parties, []);
  const shares = sharesOf(stored, paid);
  const parties = stored.map((p, i) => ({ ...p, share: shares[i]! }));
  // by the rates the charge recorded when it was issued: a boleto's fee, a PIX's MDR
  const plan = planOf({ ...saleOf(row), gross: paid }, parties);
  const ts = p.at.toISOString();
  const payment: StoredDuePayment = { discount: p.due.discountCents, fine: p.due.fineCents, interest: p.due.interestCents };
  const set = {
    fee_amount: plan.fee,
    net_amount: plan.net,
    // what refunds may return: all of what the payer paid
    captured_amount: paid,
    captured_at: ts,
    updated_at: ts,
    paid_amount: paid,
    paid_on: p.paidOn,
    due_payment: JSON.stringify(payment),
    parties: JSON.stringify(parties),
  };
  await transition(q, 'charge', row.id, row.status, 'captured', set);
  const out = charge.with({ status: 'captured', ...set });
  for (const pp of plan.parties) {
    const party = parties[pp.key]!;
    const inst = pp.installments[0]!;
    const rid = deps.ids();
    const settlement = row.payment_method === 'boleto' ? startOfDay(settlementDayFrom(p.paidOn, inst.settlementDays)).toISOString() : ts;
    await q.run(
      `INSERT INTO receivables (id, charge_id, merchant_id, submerchant_id, wallet_id, gross_amount, net_amount, fee_amount, status,
         payment_method, installment, installments, settlement_date, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, 1, 1, ?, ?, ?)`,
      [rid, row.id, row.merchant_id, party.submerchant_id, party.wallet_id, inst.gross, inst.net, inst.fee, row.payment_method, settlement, ts, ts],
    );
    if (row.payment_method === 'pix') await payReceivable(q, deps, rid, p.at, { referenceType: 'charge', referenceId: row.id, description: `PIX charge ${row.id}` });
    // a payment on an earlier day whose D+1 has come already settles now, dated its settlement day
    else if (settlement <= ts) await payReceivable(q, deps, rid, new Date(settlement), { referenceType: 'receivable', referenceId: rid, description: 'Receivable settled' });
  }
  await emitEvent(q, deps.ids, { merchantId: row.merchant_id, type: 'charge.captured', ...out.eventData, chargeId: row.id, at: p.at });
  if (row.payment_link_id) {
    await recordLinkUse(q, { ids: deps.ids, baseUrl: baseUrl ?? deps.publicBaseUrl ?? FALLBACK_BASE_URL }, row.payment_link_id, p.at, { chargeId: row.id });
  }
  return out;
}

const what = (r: Pick<ChargeRow, 'payment_method'>) => (r.payment_method === 'boleto' ? 'boleto' : 'PIX charge');

/** "10250 cents (R$ 102,50: R$ 100,00 + fine R$ 2,00 + interest R$ 0,50)": what is due, and what it is made of. */
function dueText(amount: number, d: AmountDue): string {
  const parts = [formatBRL(amount)];
  if (d.discountCents) parts.push(`− discount ${formatBRL(d.discountCents)}`);
  if (d.fineCents) parts.push(`+ fine ${formatBRL(d.fineCents)}`);
  if (d.interestCents) parts.push(`+ interest ${formatBRL(d.interestCents)} (${d.daysLate} days late)`);
  return `${d.amountDueCents} cents (${formatBRL(d.amountDueCents)}${parts.length > 1 ? `: ${parts.join(' ')}` : ''})`;
}

/**
 * Sandbox: the payer pays a pending charge with a due date on `paid_on` (default today, on the
 * merchant's clock; from the day it was created to today) the amount due that day; `amount`, when
 * given, must be exactly that (else 422 naming it). A `never_pays` payer's charge cannot be paid.
 */
async function payDueCharge(ctx: ServiceContext, id: string, body: SandboxPayRequest): Promise<Charge> {
  const now = ctx.now();
  const today = localDate(now);
  const out = await ctx.db.tx(async (q) => {
    const c = await loadCharge(q, ctx.merchantId, id, true);
    const terms = storedTerms(c)!;
    assertPayable(c.status);
    if (c.due_expires_at && c.due_expires_at <= now.toISOString()) throw new ApiError('business_rule', `the ${what(c)} expired at ${c.due_expires_at}: it can no longer be paid`);
    if (ctx.deps.mode === 'sandbox' && duePayerOf(json.from<{ email: string }>(c.customer, { email: '' }).email) === 'never_pays') {
      throw new ApiError('business_rule', NEVER_PAYS_REASON);
    }
    const created = localDate(new Date(c.created_at));
    const paidOn = body.paid_on ?? today;
    if (paidOn < created || paidOn > today) throw invalid('paid_on', `must be a São Paulo day from ${created} (the day the charge was made) to today (${today})`);
    const due = amountDueOn(dueTermsOf(terms, Number(c.amount)), paidOn);
    if (!due.payable) throw new ApiError('business_rule', `the ${what(c)} could be paid until ${due.lastPayableDay}`);
    if (body.amount !== undefined && body.amount !== due.amountDueCents) {
      const message = `must be ${dueText(Number(c.amount), due)}, the amount due on ${paidOn}; got ${body.amount}`;
      throw new ApiError('business_rule', `amount: ${message}`, [{ field: 'amount', message }]);
    }
    return captureDue(q, ctx.deps, new ChargeView(c), { paidOn, due, at: now }, ctx.baseUrl);
  });
  return out.record;
}

/**
 * POST /v1/sandbox/charges/{id}/pay: a charge with a due date is paid the amount due on the day;
 * an instant PIX exactly its amount (which `amount` may repeat) on the day it is paid.
 */
export async function paySandboxCharge(ctx: ServiceContext, id: string, body: SandboxPayRequest): Promise<Charge> {
  // the terms of a charge never change: which way it is paid is read once, outside the transaction
  const c = await loadCharge(ctx.db, ctx.merchantId, id);
  if (c.due_terms) return payDueCharge(ctx, id, body);
  if (body.paid_on !== undefined) throw invalid('paid_on', 'applies to a boleto or a PIX with a due date only: this charge is paid on the day it is paid');
  if (body.amount !== undefined && body.amount !== Number(c.amount)) {
    const message = `must be ${c.amount} cents, the amount of this charge; got ${body.amount}`;
    throw new ApiError('business_rule', `amount: ${message}`, [{ field: 'amount', message }]);
  }
  return payPixCharge(ctx, id);
}

/** pending → expired in the caller's transaction; event charge.expired. */
async function expireInTx(q: Queryable, deps: ServiceDeps, c: ChargeRow, now: Date): Promise<ChargeView> {
  const ts = now.toISOString();
  await transition(q, 'charge', c.id, c.status, 'expired', { updated_at: ts });
  const out = new ChargeView(c).with({ status: 'expired', updated_at: ts });
  await emitEvent(q, deps.ids, { merchantId: c.merchant_id, type: 'charge.expired', ...out.eventData, chargeId: c.id, at: now });
  return out;
}

/** Sandbox: a pending boleto or PIX with a due date expires now, as if its last payable day had passed. */
export async function expireSandboxCharge(ctx: ServiceContext, id: string): Promise<ChargeView> {
  const now = ctx.now();
  return ctx.db.tx(async (q) => {
    const c = await loadCharge(q, ctx.merchantId, id, true);
    if (!c.due_terms) {
      throw new ApiError('business_rule', `only a boleto or a PIX with a due date expires this way; this charge is ${c.payment_method === 'pix' ? 'an instant PIX (it fails when its BR Code expires)' : c.payment_method}`);
    }
    return expireInTx(q, ctx.deps, c, now);
  });
}

/** Due work: boletos and PIX with a due date unpaid after their last payable day → expired. */
export async function expireDueCharges(ctx: DueContext): Promise<number> {
  const now = ctx.now();
  return eachPendingCharge(ctx, 'due_expires_at IS NOT NULL AND due_expires_at <= ? AND sandbox_pays_at IS NULL', [now.toISOString()], 'due_expires_at', async (q, c) => {
    await expireInTx(q, ctx.deps, c, now);
  });
}

/** Due work (sandbox): the `pays_late` payers whose day has come pay, the amount due that day. */
export async function paySandboxLatePayers(ctx: DueContext): Promise<number> {
  if (ctx.deps.mode !== 'sandbox') return 0;
  return eachPendingCharge(ctx, 'sandbox_pays_at IS NOT NULL AND sandbox_pays_at <= ?', [ctx.now().toISOString()], 'sandbox_pays_at', async (q, c) => {
    // the query found it with a sandbox_pays_at, which is set once at create
    const at = new Date(c.sandbox_pays_at ?? ctx.now().toISOString());
    const paidOn = localDate(at);
    const due = amountDueOn(dueTermsOf(storedTerms(c)!, Number(c.amount)), paidOn);
    await captureDue(q, ctx.deps, new ChargeView(c), { paidOn, due, at }, ctx.baseUrl);
  });
}
