/**
 * POST /v1/charges: a charge inserted `pending` (event charge.pending). A card charge is decided
 * by the sandbox's test cards in that same transaction (captured with its receivables — or,
 * created with `capture: false`, only authorized — or failed with a reason), so a crash leaves
 * either nothing or the decided charge. A PIX charge waits for its payment
 * (src/server/services/charges/capture.ts payPixCharge) or expires.
 */
import type { ChargeCreate } from '../../../contract/resources/charges.js';
import { MAX_CHARGE_AMOUNT } from '../../../domain/fees.js';
import { buildBrCode } from '../../../domain/brcode.js';
import { buildDueBrCode } from '../../../domain/pixCobv.js';
import { PlanError } from '../../../domain/fees.js';
import { chargeRates, installmentTerms, salePrice } from '../../../domain/pricing.js';
import { PIX_DEFAULT_CITY, PIX_DEFAULT_EXPIRES_IN_S, PIX_LOCATION_HOST } from '../../../domain/sandbox.js';
import { json, type Queryable } from '../../../store/db.js';
import type { ServiceContext } from '../context.js';
import { ApiError, invalid } from '../../errors.js';
import { emitEvent, type NewEvent } from '../events.js';
import { merchantName, merchantPricing } from '../merchants.js';
import { createWallet, walletOf } from '../wallets.js';
import { decideInTx } from './capture.js';
import { cardOf } from './card.js';
import { dueColumns, dueSetupOf } from './dueDate.js';
import { draftParties, planOf } from './parties.js';
import { insertCharge, type ChargeRow, type StoredParty } from './rows.js';
import { ChargeView } from './view.js';

/** A charge paid through a payment link (the hosted checkout). */
export interface ChargeOrigin {
  paymentLinkId: string;
  /** runs inside the transaction that inserts the charge, before the insert; throwing refuses the charge */
  guard?: (q: Queryable, chargeId: string) => Promise<void>;
}

async function mySubmerchant(q: Queryable, merchantId: string, id: string, field: string): Promise<void> {
  const s = await q.get<{ id: string; status: string }>('SELECT id, status FROM submerchants WHERE id = ? AND parent_merchant_id = ?', [id, merchantId]);
  if (!s) throw new ApiError('not_found', `${field}: submerchant not found`, [{ field, message: 'submerchant not found' }]);
  if (s.status === 'rejected') {
    throw new ApiError('business_rule', `${field}: the submerchant was rejected and cannot receive payments`, [
      { field, message: 'submerchant was rejected' },
    ]);
  }
}

/** The BR Code of a PIX charge and when it expires (a PIX with a due date: when its terms say, null here). */
async function pixCodeOf(ctx: ServiceContext, id: string, body: ChargeCreate, now: Date): Promise<{ qr: string; expiresAt: string | null }> {
  const name = await merchantName(ctx.db, ctx.merchantId);
  // field 60: the city of the seller the charge is for (its primary address, else its newest),
  // or the stated default when it has none (a merchant has no address in mpay)
  const place = body.submerchant_id
    ? await ctx.db.get<{ city: string }>(
        'SELECT city FROM submerchant_addresses WHERE submerchant_id = ? AND merchant_id = ? ORDER BY is_primary DESC, created_at DESC, id DESC LIMIT 1',
        [body.submerchant_id, ctx.merchantId],
      )
    : undefined;
  const sellerName = name ?? 'MPAY';
  const merchantCity = place?.city ?? PIX_DEFAULT_CITY;
  // with a due date (cobv): the location names the charge, whose payload states the amount due on the day
  if (body.payment_method === 'pix' && body.payment_details?.due_date) {
    return { qr: buildDueBrCode({ txid: id.replace(/-/g, ''), merchantName: sellerName, merchantCity }), expiresAt: null };
  }
  const expiresIn = (body.payment_method === 'pix' ? body.payment_details?.expires_in : undefined) ?? PIX_DEFAULT_EXPIRES_IN_S;
  return {
    qr: buildBrCode({
      // an immediate charge (cob): the PSP's location for the payload, named by the txid
      location: `${PIX_LOCATION_HOST}/v2/cob/${id.replace(/-/g, '')}`,
      amountCents: body.amount,
      merchantName: sellerName,
      merchantCity,
    }),
    expiresAt: new Date(now.getTime() + expiresIn * 1000).toISOString(),
  };
}

/**
 * POST /v1/charges. Returns a card charge as decided (captured, authorized or failed); a PIX
 * charge pending. With an `origin` (the hosted checkout) the charge remembers its payment link,
 * whose use is counted when the charge is captured.
 */
export async function createCharge(ctx: ServiceContext, body: ChargeCreate, origin?: ChargeOrigin): Promise<ChargeView> {
  const { deps } = ctx;
  const now = ctx.now();
  // the contract's schemas refuse it already; this keeps the one cap for any caller of the service
  if (body.amount > MAX_CHARGE_AMOUNT) throw invalid('amount', `must be at most ${MAX_CHARGE_AMOUNT} cents (R$ 10.000.000,00)`);
  const shipping = body.shipping_amount ?? 0;
  const itemsTotal = body.items.reduce((a, it) => a + it.quantity * it.unit_price, 0);
  if (itemsTotal + shipping !== body.amount) {
    throw invalid(
      'amount',
      `must equal the items (Σ quantity × unit_price = ${itemsTotal}) plus shipping_amount (${shipping}) = ${itemsTotal + shipping} cents; got ${body.amount}`,
    );
  }
  const installments = body.payment_method === 'credit_card' ? (body.payment_details.installments ?? 1) : 1;
  const interest = body.payment_method === 'credit_card' ? (body.payment_details.interest ?? 'merchant') : 'merchant';
  const { parties: drafts, rules } = draftParties(ctx.merchantId, body);

  const id = deps.ids();
  const pix = body.payment_method === 'pix' ? await pixCodeOf(ctx, id, body, now) : null;

  return ctx.db.tx(async (q) => {
    // the card token is read in the transaction, on the connection that writes it: on SQLite a
    // read outside one, while a group commit is open, goes to the reading connection, whose
    // pages every commit makes cold again
    const card = body.payment_method === 'credit_card' ? await cardOf(q, deps, ctx.merchantId, body.payment_details.token, now) : null;
    // priced now, by the merchant's pricing of this moment (its card's brand decides a card's
    // MDR); the charge keeps these rates for everything that happens to it later
    const rates = chargeRates(await merchantPricing(q, deps, ctx.merchantId), body.payment_method, card?.brand ?? null, installments, interest);
    const terms = installmentTerms(body.amount, installments, rates);
    // a boleto or a PIX with a due date: its terms, checked against today and the amount (a
    // boleto's also against the fee it records)
    const due = dueSetupOf(ctx, body, drafts, now, rates);
    try {
      planOf({ method: body.payment_method, installments, price: salePrice(body.payment_method, rates), gross: terms.total_amount }, drafts);
    } catch (e) {
      if (e instanceof PlanError) throw invalid(body.split_rules ? 'split_rules' : body.payment_method === 'credit_card' ? 'payment_details.installments' : 'amount', e.message);
      throw e;
    }
    if (origin?.guard) await origin.guard(q, id);
    if (body.submerchant_id) await mySubmerchant(q, ctx.merchantId, body.submerchant_id, 'submerchant_id');
    const parties: StoredParty[] = [];
    for (const [i, p] of drafts.entries()) {
      let walletId: string | undefined;
      if (p.submerchant_id) {
        await mySubmerchant(q, ctx.merchantId, p.submerchant_id, body.split_rules ? `split_rules[${i}].submerchant_id` : 'submerchant_id');
        walletId = (await walletOf(q, 'submerchant', p.submerchant_id)) ?? (await createWallet(q, deps.ids, ctx.merchantId, 'submerchant', p.submerchant_id, now));
      } else {
        // the request's principal carries it (read with the key); else one read here
        walletId = ctx.walletId ?? (await walletOf(q, 'merchant', ctx.merchantId));
        if (!walletId) throw new Error(`merchant ${ctx.merchantId} has no wallet`);
      }
      parties.push({ ...p, wallet_id: walletId });
    }
    const ts = now.toISOString();
    const dueCols = await dueColumns(q, ctx, id, body, due);
    // the row as inserted: the events and the answer are built from it, not read back
    const inserted: ChargeRow = {
      id,
      merchant_id: ctx.merchantId,
      submerchant_id: body.submerchant_id ?? null,
      amount: body.amount,
      shipping_amount: shipping,
      currency: body.currency ?? 'BRL',
      status: 'pending',
      payment_method: body.payment_method,
      product_type: body.product_type,
      installments,
      total_amount: terms.total_amount,
      interest_amount: terms.interest_amount,
      pricing: JSON.stringify(rates),
      customer: JSON.stringify(body.customer),
      items: JSON.stringify(body.items),
      split_rules: JSON.stringify(rules),
      parties: JSON.stringify(parties),
      metadata: json.to(body.metadata),
      card_token: card?.token ?? null,
      card_brand: card?.brand ?? null,
      card_first_six: card?.first_six ?? null,
      card_last_four: card?.last_four ?? null,
      card_holder_name: card?.holder ?? null,
      pix_qr_code: pix?.qr ?? null,
      pix_expires_at: pix?.expiresAt ?? null,
      fee_amount: null,
      net_amount: null,
      failure_code: null,
      failure_reason: null,
      captured_at: null,
      captured_amount: null,
      authorized_at: null,
      voided_at: null,
      void_reason: null,
      failed_at: null,
      refunded_at: null,
      payment_link_id: origin?.paymentLinkId ?? null,
      created_at: ts,
      updated_at: ts,
      ...dueCols,
    };
    const view = new ChargeView(inserted);
    const created: NewEvent = { merchantId: ctx.merchantId, type: 'charge.pending', data: view.record, chargeId: id, at: now };
    // The sandbox acquirer answers at once, so a card charge is decided in this transaction
    // and its row written once, in the decided state (no one can see it pending in between);
    // its charge.pending event is written with the decision's, in one statement.
    // The origin for links is only needed to count a payment link's use: asked for only then
    // (on the direct HTTP path, ctx.baseUrl builds a Web Request to read it from).
    if (card) {
      const then = body.payment_method === 'credit_card' && body.capture === false ? 'authorize' : 'capture';
      return decideInTx(q, deps, view, card.decision, now, origin ? ctx.baseUrl : undefined, { row: (final) => insertCharge(q, final.row), before: created }, then);
    }
    await emitEvent(q, deps.ids, created);
    await insertCharge(q, inserted);
    return view;
  });
}
