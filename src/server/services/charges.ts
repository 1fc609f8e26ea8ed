/**
 * Charges and the sandbox acquirer. A charge is inserted `pending` (event charge.pending); a
 * card charge is decided by the sandbox's test cards in that same transaction (pending →
 * captured with receivables per installment and split party, event charge.captured; or
 * pending → failed with a reason, event charge.failed), so a crash leaves either nothing or
 * the decided charge. A PIX charge waits for its payment (sandbox: POST
 * /v1/sandbox/charges/{id}/pay), which captures it and credits each party's wallet at once,
 * or expires. Card charges left pending by earlier versions (which decided in a second
 * transaction) are decided by the due-work sweep.
 */
import { MAX_CHARGE_AMOUNT, type Charge, type ChargeCreate, type Refund, type RefundCreate } from '../../contract/resources/charges.js';
import type { Receivable } from '../../contract/resources/receivables.js';
import { assertTransition } from '../../domain/lifecycle.js';
import { settlementInstant } from '../../domain/calendar.js';
import { planSale, PlanError, splitShares, type PartyInput, type PaymentMethod, type ShareRule } from '../../domain/fees.js';
import { buildBrCode } from '../../domain/brcode.js';
import { ACQUIRER_UNAVAILABLE, decideCard, PIX_DEFAULT_EXPIRES_IN_S, PIX_EXPIRED, PIX_DEFAULT_CITY, PIX_LOCATION_HOST, type CardDecision } from '../../domain/sandbox.js';
import type { CardBrand } from '../../domain/brands.js';
import { json, type Queryable } from '../../store/db.js';
import { transition } from '../../store/transition.js';
import { JsonText, type AppDeps, type ServiceContext } from '../context.js';
import type { DueContext } from '../context.js';
import { dueBatch } from '../context.js';
import { isoOf } from '../clock.js';
import { ApiError, invalid, notFound } from '../errors.js';
import { emitEvent, emitEvents, type NewEvent } from './events.js';
import { credit, debit } from './ledger.js';
import { recordLinkUse } from './paymentLinks.js';
import { createWallet } from './wallets.js';

export interface ChargeRow {
  id: string;
  merchant_id: string;
  submerchant_id: string | null;
  amount: number;
  shipping_amount: number;
  currency: string;
  status: Charge['status'];
  payment_method: PaymentMethod;
  product_type: string;
  installments: number;
  customer: string;
  items: string;
  split_rules: string;
  parties: string;
  metadata: string | null;
  card_token: string | null;
  card_brand: CardBrand | null;
  card_first_six: string | null;
  card_last_four: string | null;
  card_holder_name: string | null;
  pix_qr_code: string | null;
  pix_expires_at: string | null;
  fee_amount: number | null;
  net_amount: number | null;
  failure_code: string | null;
  failure_reason: string | null;
  captured_at: string | null;
  failed_at: string | null;
  refunded_at: string | null;
  /** cents refunded so far (absent on a row built before its insert: 0) */
  refunded_amount?: number;
  /** the payment link the buyer paid through (hosted checkout), if any */
  payment_link_id: string | null;
  created_at: string;
  updated_at: string;
}

/** A party of the sale as stored on the charge: who receives, into which wallet. */
export interface StoredParty {
  submerchant_id: string | null;
  wallet_id: string;
  share: number;
  bears_fee: boolean;
  /** takes the cents left over of the fee (absent on charges stored before it existed: the first party) */
  takes_remainder?: boolean;
}

/** Split rules as stored; rules stored before charge_remainder_fee existed gave the remainder to the first rule. */
function splitRulesOf(stored: string): Charge['split_rules'] {
  const rules = json.from<Array<Omit<Charge['split_rules'][number], 'charge_remainder_fee'> & { charge_remainder_fee?: boolean }>>(stored, []);
  const flagged = rules.some((r) => r.charge_remainder_fee === true);
  return rules.map((r, i) => ({ ...r, charge_remainder_fee: r.charge_remainder_fee ?? (!flagged && i === 0) }));
}

/** A charge row's JSON columns, parsed. */
interface ParsedColumns {
  customer: Charge['customer'];
  items: Charge['items'];
  split_rules: Charge['split_rules'];
  metadata: Charge['metadata'];
}

/**
 * The JSON columns of a row as parsed once, held (weakly) by the row object, and by the rows
 * `changedRow` derives from it: the card charge that a POST records twice in one transaction
 * (pending, then decided) parses its customer, items and split rules once, not twice.
 */
const parsedColumns = new WeakMap<ChargeRow, ParsedColumns>();

function parsedOf(r: ChargeRow): ParsedColumns {
  let p = parsedColumns.get(r);
  if (!p) {
    p = {
      customer: json.from(r.customer, { name: '', email: '', tax_id: '', phone: '', type: '' }),
      items: json.from(r.items, []),
      split_rules: splitRulesOf(r.split_rules),
      metadata: json.from(r.metadata, null),
    };
    parsedColumns.set(r, p);
  }
  return p;
}

/** `{ ...row, ...changes }` for changes to columns that are not JSON: the new row keeps the parse of the old one's. */
function changedRow(row: ChargeRow, changes: Partial<Omit<ChargeRow, keyof ParsedColumns>>): ChargeRow {
  const out: ChargeRow = { ...row, ...changes };
  const p = parsedColumns.get(row);
  if (p) parsedColumns.set(out, p);
  return out;
}

export function chargeRecord(r: ChargeRow): Charge {
  const num = (v: number | null) => (v === null ? null : Number(v));
  const parsed = parsedOf(r);
  return {
    id: r.id,
    merchant_id: r.merchant_id,
    submerchant_id: r.submerchant_id,
    amount: Number(r.amount),
    currency: r.currency,
    status: r.status,
    payment_method: r.payment_method,
    product_type: r.product_type,
    installments: Number(r.installments),
    shipping_amount: Number(r.shipping_amount),
    customer: parsed.customer,
    items: parsed.items,
    split_rules: parsed.split_rules,
    metadata: parsed.metadata,
    card:
      r.payment_method === 'credit_card' && r.card_brand
        ? { brand: r.card_brand, first_six: r.card_first_six ?? '', last_four: r.card_last_four ?? '', holder_name: r.card_holder_name ?? '' }
        : null,
    pix: r.payment_method === 'pix' && r.pix_qr_code ? { qr_code: r.pix_qr_code, expires_at: r.pix_expires_at ?? '' } : null,
    fee_amount: num(r.fee_amount),
    net_amount: num(r.net_amount),
    failure_code: r.failure_code,
    failure_reason: r.failure_reason,
    captured_at: r.captured_at,
    failed_at: r.failed_at,
    refunded_at: r.refunded_at,
    refunded_amount: Number(r.refunded_amount ?? 0),
    payment_link_id: r.payment_link_id ?? null,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

/**
 * The JSON text of a charge's record (`JSON.stringify(chargeRecord(row))`), remembered per
 * charge while every column of its row reads the same: a charge read again unchanged (a GET
 * polled for its status, a list page served again) is not parsed and serialised again. The
 * row is still read from the store each time; any column that differs (another process's
 * write included) makes the text again.
 */
const recordTexts = new Map<string, { row: ChargeRow; text: string }>();
const MAX_RECORD_TEXTS = 2_000;

export function chargeJson(r: ChargeRow): JsonText<Charge> {
  const known = recordTexts.get(r.id);
  if (known && sameColumns(known.row, r)) return new JsonText(known.text);
  const text = JSON.stringify(chargeRecord(r));
  if (recordTexts.size >= MAX_RECORD_TEXTS) recordTexts.clear();
  recordTexts.set(r.id, { row: r, text });
  return new JsonText(text);
}

/**
 * The record of a charge row just decided in a transaction, and its JSON text: made once, for
 * the event that announces it (charge.captured / charge.failed) and for the answer of the
 * request that decided it (`decidedRecord`, `recordText`), not serialised a second time. Held
 * by the row and record objects themselves (weakly): nothing outlives the request.
 */
const decided = new WeakMap<ChargeRow, Charge>();
const decidedTexts = new WeakMap<Charge, string>();

function decidedEventData(out: ChargeRow): { data: Charge; text: string } {
  const data = chargeRecord(out);
  const text = JSON.stringify(data);
  decided.set(out, data);
  decidedTexts.set(data, text);
  return { data, text };
}

/** The record of a charge row: the one made for its event when the row was just decided. */
function decidedRecord(r: ChargeRow): Charge {
  return decided.get(r) ?? chargeRecord(r);
}

/** A charge record as the answer's JSON text: the text its event was written with when there is one. */
export function recordText(c: Charge): JsonText<Charge> {
  return new JsonText(decidedTexts.get(c) ?? JSON.stringify(c));
}

/** Same columns, same values (primitives as read; a value that is an object never compares equal). */
function sameColumns(a: ChargeRow, b: ChargeRow): boolean {
  let n = 0;
  for (const k in b) {
    if (a[k as keyof ChargeRow] !== b[k as keyof ChargeRow]) return false;
    n++;
  }
  for (const _ in a) n--;
  return n === 0;
}

export interface ReceivableRow {
  id: string;
  charge_id: string;
  merchant_id: string;
  submerchant_id: string | null;
  wallet_id: string;
  gross_amount: number;
  net_amount: number;
  fee_amount: number;
  status: Receivable['status'];
  payment_method: PaymentMethod;
  installment: number;
  installments: number;
  settlement_date: string;
  paid_at: string | null;
  anticipation_id: string | null;
  anticipation_fee_amount: number | null;
  created_at: string;
  updated_at: string;
}

export function receivableRecord(r: ReceivableRow): Receivable {
  return {
    ...r,
    gross_amount: Number(r.gross_amount),
    net_amount: Number(r.net_amount),
    fee_amount: Number(r.fee_amount),
    installment: Number(r.installment),
    installments: Number(r.installments),
    anticipation_fee_amount: r.anticipation_fee_amount === null ? null : Number(r.anticipation_fee_amount),
  };
}

export async function loadCharge(q: Queryable, merchantId: string, id: string, lock = false): Promise<ChargeRow> {
  const row = await q.get<ChargeRow>(`SELECT * FROM charges WHERE id = ? AND merchant_id = ?${lock ? q.dialect.forUpdate : ''}`, [id, merchantId]);
  if (!row) throw notFound('Charge');
  return row;
}

async function walletOf(q: Queryable, ownerType: 'merchant' | 'submerchant', ownerId: string): Promise<string | undefined> {
  const w = await q.get<{ id: string }>("SELECT id FROM wallets WHERE owner_type = ? AND owner_id = ? AND currency = 'BRL'", [ownerType, ownerId]);
  return w?.id;
}

interface SubmerchantRow {
  id: string;
  status: string;
}

async function mySubmerchant(q: Queryable, merchantId: string, id: string, field: string): Promise<SubmerchantRow> {
  const s = await q.get<SubmerchantRow>('SELECT id, status FROM submerchants WHERE id = ? AND parent_merchant_id = ?', [id, merchantId]);
  if (!s) throw new ApiError('not_found', `${field}: submerchant not found`, [{ field, message: 'submerchant not found' }]);
  if (s.status === 'rejected') {
    throw new ApiError('business_rule', `${field}: the submerchant was rejected and cannot receive payments`, [
      { field, message: 'submerchant was rejected' },
    ]);
  }
  return s;
}

interface PartyDraft {
  submerchant_id: string | null;
  share: number;
  bears_fee: boolean;
  takes_remainder?: boolean;
}

/** Checks the split rules against the charge and turns them into parties with shares. */
function draftParties(merchantId: string, body: ChargeCreate): { parties: PartyDraft[]; rules: Charge['split_rules'] } {
  const rules = body.split_rules;
  if (!rules) return { parties: [{ submerchant_id: body.submerchant_id ?? null, share: body.amount, bears_fee: true }], rules: [] };
  // The charge's submerchant is the one it is sold for; with split rules it must be among the
  // parties paid, or it would be named on a charge that pays it nothing.
  if (body.submerchant_id && !rules.some((r) => r.submerchant_id === body.submerchant_id)) {
    throw invalid('submerchant_id', 'must be one of the submerchants paid by split_rules (or leave it out); no split rule pays this submerchant');
  }
  const byAmount = rules.every((r) => r.amount !== undefined);
  const byPct = rules.every((r) => r.percentage !== undefined);
  if (!byAmount && !byPct) throw invalid('split_rules', 'use amounts in every rule or percentages in every rule, not both');
  const seen = new Set<string>();
  rules.forEach((r, i) => {
    const key = r.submerchant_id ?? merchantId;
    if (seen.has(key)) throw invalid(`split_rules[${i}].submerchant_id`, 'each party may appear in one rule only');
    seen.add(key);
  });
  if (byAmount) {
    const sum = rules.reduce((a, r) => a + r.amount!, 0);
    if (sum !== body.amount) throw invalid('split_rules', `the rule amounts add up to ${sum} cents; they must add up to the charge amount, ${body.amount}`);
  } else {
    const bps = rules.reduce((a, r) => a + Math.round(r.percentage! * 100), 0);
    if (bps !== 10000) throw invalid('split_rules', `the percentages add up to ${bps / 100}; they must add up to 100`);
  }
  if (!rules.some((r) => r.charge_processing_fee !== false)) {
    throw invalid('split_rules', 'at least one rule must have charge_processing_fee true (the default)');
  }
  if (rules.filter((r) => r.charge_remainder_fee === true).length > 1) {
    throw invalid('split_rules', 'at most one rule may have charge_remainder_fee true (it takes the cents left over; default: the first rule)');
  }
  // the remainder party: the rule with charge_remainder_fee true, else the first rule
  const remainder = Math.max(0, rules.findIndex((r) => r.charge_remainder_fee === true));
  const shareRules: ShareRule[] = rules.map((r) => (byAmount ? { amount: r.amount! } : { percentageBps: Math.round(r.percentage! * 100) }));
  const shares = splitShares(body.amount, shareRules, remainder);
  const parties = rules.map((r, i) => ({
    submerchant_id: r.submerchant_id ?? null,
    share: shares[i]!,
    bears_fee: r.charge_processing_fee !== false,
    takes_remainder: i === remainder,
  }));
  return {
    parties,
    rules: rules.map((r, i) => ({
      submerchant_id: r.submerchant_id ?? null,
      amount: shares[i]!,
      percentage: r.percentage ?? null,
      charge_processing_fee: r.charge_processing_fee !== false,
      charge_remainder_fee: i === remainder,
    })),
  };
}

function planOf(method: PaymentMethod, installments: number, parties: readonly StoredParty[] | readonly PartyDraft[]) {
  return planSale(
    method,
    installments,
    parties.map((p, i): PartyInput<number> => ({ key: i, share: p.share, bearsFee: p.bears_fee, takesRemainder: p.takes_remainder === true })),
  );
}

const iso = isoOf;

/** Origin used for checkout_url in events when no request gave one (a due-work sweep). */
const FALLBACK_BASE_URL = 'http://localhost';
const baseUrlOf = (deps: AppDeps, baseUrl?: string) => baseUrl ?? deps.publicBaseUrl ?? FALLBACK_BASE_URL;

/** A charge paid through a payment link (the hosted checkout). */
export interface ChargeOrigin {
  paymentLinkId: string;
  /** runs inside the transaction that inserts the charge, before the insert; throwing refuses the charge */
  guard?: (q: Queryable, chargeId: string) => Promise<void>;
}

/**
 * POST /v1/charges. Returns a card charge in its final state; a PIX charge pending. With an
 * `origin` (the hosted checkout) the charge remembers its payment link, whose use is counted
 * when the charge is captured.
 */
export async function createCharge(ctx: ServiceContext, body: ChargeCreate, origin?: ChargeOrigin): Promise<Charge> {
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
  const { parties: drafts, rules } = draftParties(ctx.merchantId, body);
  try {
    planOf(body.payment_method, installments, drafts);
  } catch (e) {
    if (e instanceof PlanError) throw invalid(body.split_rules ? 'split_rules' : 'payment_details.installments', e.message);
    throw e;
  }

  const id = deps.ids();
  let pix: { qr: string; expiresAt: string } | null = null;
  if (body.payment_method === 'pix') {
    const m = await ctx.db.get<{ name: string }>('SELECT name FROM merchants WHERE id = ?', [ctx.merchantId]);
    // field 60: the city of the seller the charge is for (its primary address, else its newest),
    // or the stated default when it has none (a merchant has no address in mpay)
    const place = body.submerchant_id
      ? await ctx.db.get<{ city: string }>(
          'SELECT city FROM submerchant_addresses WHERE submerchant_id = ? AND merchant_id = ? ORDER BY is_primary DESC, created_at DESC, id DESC LIMIT 1',
          [body.submerchant_id, ctx.merchantId],
        )
      : undefined;
    const expiresIn = body.payment_details?.expires_in ?? PIX_DEFAULT_EXPIRES_IN_S;
    pix = {
      qr: buildBrCode({
        // an immediate charge (cob): the PSP's location for the payload, named by the txid
        location: `${PIX_LOCATION_HOST}/v2/cob/${id.replace(/-/g, '')}`,
        amountCents: body.amount,
        merchantName: m?.name ?? 'MPAY',
        merchantCity: place?.city ?? PIX_DEFAULT_CITY,
      }),
      expiresAt: iso(new Date(now.getTime() + expiresIn * 1000)),
    };
  }

  const row = await ctx.db.tx(async (q) => {
    // the card token is read in the transaction, on the connection that writes it: on SQLite a
    // read outside one, while a group commit is open, goes to the reading connection, whose
    // pages every commit makes cold again (~10 µs a POST more)
    const card = body.payment_method === 'credit_card' ? await cardOf(q, deps, ctx.merchantId, body.payment_details.token, now) : null;
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
    const ts = iso(now);
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
      failed_at: null,
      refunded_at: null,
      payment_link_id: origin?.paymentLinkId ?? null,
      created_at: ts,
      updated_at: ts,
    };
    const created: NewEvent = { merchantId: ctx.merchantId, type: 'charge.pending', data: chargeRecord(inserted), chargeId: id, at: now };
    // The sandbox acquirer answers at once, so a card charge is decided in this transaction
    // and its row written once, in the decided state (no one can see it pending in between);
    // its charge.pending event is written with the decision's, in one statement.
    // the origin for links is only needed to count a payment link's use: asked for only then
    // (on the direct HTTP path, ctx.baseUrl builds a Web Request to read it from)
    if (card) {
      return decideInTx(q, deps, inserted, card.decision, now, origin ? ctx.baseUrl : undefined, { row: (final) => insertCharge(q, final), before: created });
    }
    await emitEvent(q, deps.ids, created);
    await insertCharge(q, inserted);
    return inserted;
  });
  return decidedRecord(row);
}

/** Writes a charge row as it is (pending, or already decided). */
async function insertCharge(q: Queryable, r: ChargeRow): Promise<void> {
  await q.run(
    `INSERT INTO charges (id, merchant_id, submerchant_id, amount, shipping_amount, currency, status, payment_method, product_type,
       installments, customer, items, split_rules, parties, metadata, card_token, card_brand, card_first_six, card_last_four,
       card_holder_name, pix_qr_code, pix_expires_at, fee_amount, net_amount, failure_code, failure_reason, captured_at, failed_at,
       payment_link_id, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      r.id,
      r.merchant_id,
      r.submerchant_id,
      r.amount,
      r.shipping_amount,
      r.currency,
      r.status,
      r.payment_method,
      r.product_type,
      r.installments,
      r.customer,
      r.items,
      r.split_rules,
      r.parties,
      r.metadata,
      r.card_token,
      r.card_brand,
      r.card_first_six,
      r.card_last_four,
      r.card_holder_name,
      r.pix_qr_code,
      r.pix_expires_at,
      r.fee_amount,
      r.net_amount,
      r.failure_code,
      r.failure_reason,
      r.captured_at,
      r.failed_at,
      r.payment_link_id,
      r.created_at,
      r.updated_at,
    ],
  );
}

/** The card a charge is paid with: its token's stored data and the sandbox acquirer's decision on it. */
async function cardOf(
  q: Queryable,
  deps: AppDeps,
  merchantId: string,
  token: string,
  now: Date,
): Promise<{ token: string; brand: CardBrand; first_six: string; last_four: string; holder: string; decision: CardDecision }> {
  const t = await q.get<{ token: string; brand: CardBrand; first_six: string; last_four: string; encrypted: string }>(
    'SELECT token, brand, first_six, last_four, encrypted FROM card_tokens WHERE token = ? AND merchant_id = ?',
    [token, merchantId],
  );
  if (!t) {
    throw new ApiError('invalid_token', 'payment_details.token: no such card token for this merchant; tokenize the card with POST /v1/tokens', [
      { field: 'payment_details.token', message: 'no such card token for this merchant' },
    ]);
  }
  if (deps.mode === 'production') throw new ApiError('acquirer_unavailable', ACQUIRER_UNAVAILABLE.failure_reason);
  const card = cardReading(deps, t.encrypted);
  return { token: t.token, brand: t.brand, first_six: t.first_six, last_four: t.last_four, holder: card?.holder ?? '', decision: cardDecisionFor(card, now) };
}

/**
 * What a charge needs of a card token's blob: the holder's name, the expiry, and the sandbox
 * acquirer's decision on the number (while the card is valid, and once it has expired). Not
 * the number itself, which stays only in the blob.
 */
interface CardReading {
  holder: string;
  year: number;
  month: number;
  valid: CardDecision;
  expired: CardDecision;
}

/**
 * Readings of the blobs decrypted lately, by keyring and blob (a blob is never rewritten in place:
 * a changed blob is another key). A token charged again is then not decrypted again (AES-GCM and
 * the JSON of the card, ~5-10 µs of each card POST). Bounded: the oldest reading goes first.
 */
const readings = new WeakMap<AppDeps['keyring'], Map<string, CardReading | null>>();
const READINGS_MAX = 1024;

/** The reading of a token blob, or null when it cannot be read (altered, another master key). */
function cardReading(deps: AppDeps, encrypted: string | undefined): CardReading | null {
  if (!encrypted) return null;
  let memo = readings.get(deps.keyring);
  if (!memo) readings.set(deps.keyring, (memo = new Map()));
  const known = memo.get(encrypted);
  if (known !== undefined) return known;
  let reading: CardReading | null;
  try {
    const card = JSON.parse(deps.keyring.decrypt(encrypted)) as { number: string; expirationMonth: string; expirationYear: string; holderName?: string };
    reading = {
      holder: card.holderName ?? '',
      year: Number(card.expirationYear),
      month: Number(card.expirationMonth),
      valid: decideCard(card.number, false),
      expired: decideCard(card.number, true),
    };
  } catch {
    reading = null;
  }
  if (memo.size >= READINGS_MAX) memo.delete(memo.keys().next().value!);
  memo.set(encrypted, reading);
  return reading;
}

function cardDecisionFor(card: CardReading | null, now: Date): CardDecision {
  if (!card) return { approved: false, failure_code: 'processing_error', failure_reason: 'The card data could not be read' };
  const y = now.getUTCFullYear();
  const expired = card.year < y || (card.year === y && card.month < now.getUTCMonth() + 1);
  return expired ? card.expired : card.valid;
}

/**
 * The sandbox acquirer's decision on a card charge still pending (one written by an earlier
 * version, which decided in a second transaction and could crash in between): captured (with
 * its receivables) or failed with a reason, in one transaction. A charge that is no longer
 * pending is returned as it is.
 */
export async function decideCardCharge(deps: AppDeps, merchantId: string, id: string, now: Date, baseUrl?: string): Promise<ChargeRow> {
  const pre = await loadCharge(deps.db, merchantId, id);
  if (pre.status !== 'pending' || pre.payment_method !== 'credit_card') return pre;
  const tok = await deps.db.get<{ encrypted: string }>('SELECT encrypted FROM card_tokens WHERE token = ? AND merchant_id = ?', [
    pre.card_token ?? '',
    merchantId,
  ]);
  const decision: CardDecision = deps.mode === 'production'
    ? { approved: false, ...ACQUIRER_UNAVAILABLE }
    : tok
    ? cardDecisionFor(cardReading(deps, tok.encrypted), now)
    : { approved: false, failure_code: 'processing_error', failure_reason: 'The card token is no longer available' };
  return deps.db.tx(async (q) => {
    const row = await loadCharge(q, merchantId, id, true);
    if (row.status !== 'pending') return row;
    return decideInTx(q, deps, row, decision, now, baseUrl);
  });
}

/** A charge not yet written: its row, written in its decided state, and the event that comes before the decision's (charge.pending). */
interface FirstWrite {
  row: (decided: ChargeRow) => Promise<void>;
  before: NewEvent;
}

/**
 * Applies the acquirer's decision to a pending card charge inside the caller's transaction:
 * by an UPDATE of its row, or — `insert`, for a charge not yet written — by writing the row
 * in its decided state, and its charge.pending event with the decision's.
 */
async function decideInTx(
  q: Queryable,
  deps: AppDeps,
  row: ChargeRow,
  decision: CardDecision,
  now: Date,
  baseUrl?: string,
  insert?: FirstWrite,
): Promise<ChargeRow> {
  if (decision.approved) return capture(q, deps, row, now, baseUrl, insert);
  assertTransition('charge', row.status, 'failed');
  const ts = iso(now);
  const out = changedRow(row, { status: 'failed', failure_code: decision.failure_code, failure_reason: decision.failure_reason, failed_at: ts, updated_at: ts });
  if (insert) await insert.row(out);
  else {
    await transition(q, 'charge', row.id, row.status, 'failed', {
      failure_code: decision.failure_code,
      failure_reason: decision.failure_reason,
      failed_at: ts,
      updated_at: ts,
    });
  }
  await emitEvents(q, deps.ids, [...(insert ? [insert.before] : []), { merchantId: row.merchant_id, type: 'charge.failed', ...decidedEventData(out), chargeId: row.id, at: now }]);
  return out;
}

/**
 * pending → captured inside the caller's transaction: the charge's fee and net, one
 * receivable per installment and split party, and for PIX the at-once settlement (each
 * receivable paid and its wallet credited, reference_type charge). Event charge.captured.
 * A charge paid through a payment link counts one use of the link here, in the same
 * transaction (current_uses counts paid uses only; event payment_link.paid).
 */
async function capture(
  q: Queryable,
  deps: AppDeps,
  row: ChargeRow,
  now: Date,
  baseUrl?: string,
  insert?: FirstWrite,
): Promise<ChargeRow> {
  assertTransition('charge', row.status, 'captured');
  const parties = json.from<StoredParty[]>(row.parties, []);
  const plan = planOf(row.payment_method, Number(row.installments), parties);
  const ts = iso(now);
  const out = changedRow(row, { status: 'captured', fee_amount: plan.fee, net_amount: plan.net, captured_at: ts, updated_at: ts });
  if (insert) await insert.row(out);
  else await transition(q, 'charge', row.id, row.status, 'captured', { fee_amount: plan.fee, net_amount: plan.net, captured_at: ts, updated_at: ts });
  for (const pp of plan.parties) {
    const party = parties[pp.key]!;
    for (const inst of pp.installments) {
      const rid = deps.ids();
      const settlement = row.payment_method === 'pix' ? ts : iso(settlementInstant(now, inst.settlementDays));
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
  await emitEvents(q, deps.ids, [...(insert ? [insert.before] : []), { merchantId: row.merchant_id, type: 'charge.captured', ...decidedEventData(out), chargeId: row.id, at: now }]);
  if (row.payment_link_id) {
    await recordLinkUse(q, { ids: deps.ids, baseUrl: baseUrlOf(deps, baseUrl) }, row.payment_link_id, now, { chargeId: row.id });
  }
  return out;
}

/** pending → paid and the wallet credit of its net, in the caller's transaction. Event receivable.paid. */
async function payReceivable(
  q: Queryable,
  deps: AppDeps,
  id: string,
  at: Date,
  ref: { referenceType: string; referenceId: string; description: string },
): Promise<boolean> {
  const r = await q.get<ReceivableRow>(`SELECT * FROM receivables WHERE id = ?${q.dialect.forUpdate}`, [id]);
  if (r?.status !== 'pending') return false;
  const ts = iso(at);
  await transition(q, 'receivable', id, r.status, 'paid', { paid_at: ts, updated_at: ts });
  await credit(q, deps.ids, { walletId: r.wallet_id, amount: Number(r.net_amount), ...ref, at });
  const out = (await q.get<ReceivableRow>('SELECT * FROM receivables WHERE id = ?', [id]))!;
  await emitEvent(q, deps.ids, { merchantId: r.merchant_id, type: 'receivable.paid', data: receivableRecord(out), chargeId: r.charge_id, at });
  return true;
}

/** Sandbox: the buyer pays a pending PIX charge. */
export async function payPixCharge(ctx: ServiceContext, id: string): Promise<Charge> {
  const now = ctx.now();
  const row = await ctx.db.tx(async (q) => {
    const c = await loadCharge(q, ctx.merchantId, id, true);
    if (c.payment_method !== 'pix') {
      throw new ApiError('business_rule', `only PIX charges are paid this way; this charge is ${c.payment_method}`);
    }
    if (c.status === 'pending' && c.pix_expires_at && c.pix_expires_at <= iso(now)) {
      throw new ApiError('business_rule', `the PIX BR Code expired at ${c.pix_expires_at}`);
    }
    return capture(q, ctx.deps, c, now, ctx.baseUrl);
  });
  return chargeRecord(row);
}

export interface RefundRow {
  id: string;
  charge_id: string;
  merchant_id: string;
  amount: number;
  created_at: string;
}

export function refundRecord(r: RefundRow): Refund {
  return { id: r.id, charge_id: r.charge_id, amount: Number(r.amount), created_at: r.created_at };
}

/** What a receivable put in its wallet: the net of a paid one, the net less the anticipation fee of an anticipated one. */
const receivedOf = (r: ReceivableRow) =>
  r.status === 'paid' ? Number(r.net_amount) : r.status === 'anticipated' ? Number(r.net_amount) - Number(r.anticipation_fee_amount ?? 0) : 0;

/**
 * A refund of a captured charge (an extension), in full or in part, all or nothing in one
 * transaction that locks the charge (so concurrent refunds never add up to more than its
 * amount): `amount` is 1 to what is left to refund, default all of it.
 *
 * Each party gives back its net in proportion to what is refunded: after refunds adding up to R
 * of a charge of amount T, a party whose net at capture is N has given back ⌊N × R / T⌋ (so the
 * refunds of a charge add up to exactly what a full refund takes). A party's part is taken
 * first from its pending receivables, from the last installment backwards (a receivable is
 * reduced, gross and net alike, or cancelled when all of its net is taken), then debited from its
 * wallet (reference_type refund). The refund that completes the charge cancels every pending
 * receivable left and debits what each party received for the charge (the net of a paid
 * receivable, the net less the anticipation fee of an anticipated one) less what earlier refunds
 * already debited; the charge becomes `refunded`. A wallet that cannot cover its debit refuses
 * the whole refund with insufficient_funds. Event charge.refunded with the charge and the refund.
 */
export async function refundCharge(ctx: ServiceContext, id: string, body: RefundCreate = {}): Promise<Charge> {
  const now = ctx.now();
  const ts = iso(now);
  const { deps } = ctx;
  const row = await ctx.db.tx(async (q) => {
    const c = await loadCharge(q, ctx.merchantId, id, true);
    assertTransition('charge', c.status, 'refunded');
    const total = Number(c.amount);
    const before = Number(c.refunded_amount ?? 0);
    const left = total - before;
    const amount = body.amount ?? left;
    if (amount > left) {
      throw invalid('amount', `must be at most ${left} cents, what is left to refund of this charge (${total} − ${before} already refunded)`);
    }
    const after = before + amount;
    const whole = after === total;
    const parties = json.from<StoredParty[]>(c.parties, []);
    const plan = planOf(c.payment_method, Number(c.installments), parties);
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
        const received = mine.reduce((a, r) => a + receivedOf(r), 0);
        const debited = await q.get<{ n: number | string | null }>(
          "SELECT COALESCE(SUM(amount), 0) AS n FROM wallet_entries WHERE wallet_id = ? AND reference_type = 'refund' AND reference_id = ?",
          [walletId, id],
        );
        debitDue = Math.max(0, received - Number(debited?.n ?? 0));
      } else {
        const net = BigInt(pp.net);
        let part = Number((net * BigInt(after)) / BigInt(total) - (net * BigInt(before)) / BigInt(total));
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

// ---- due work -------------------------------------------------------------------------

/** Receivables whose settlement date has come: paid, each credited to its wallet (reference_type receivable). */
export async function settleDueReceivables(ctx: DueContext): Promise<number> {
  const now = iso(ctx.now());
  const due = await ctx.db.all<{ id: string; settlement_date: string }>(
    "SELECT id, settlement_date FROM receivables WHERE merchant_id = ? AND status = 'pending' AND settlement_date <= ? ORDER BY settlement_date, id LIMIT ?",
    [ctx.merchantId, now, dueBatch(ctx.deps)],
  );
  if (!due.length) return 0;
  return ctx.db.tx(async (q) => {
    let n = 0;
    for (const r of due) {
      const ok = await payReceivable(q, ctx.deps, r.id, new Date(r.settlement_date), {
        referenceType: 'receivable',
        referenceId: r.id,
        description: 'Receivable settled',
      });
      if (ok) n++;
    }
    return n;
  });
}

/** PIX charges not paid by their expiry: failed with pix_expired. */
export async function expireDuePixCharges(ctx: DueContext): Promise<number> {
  const now = ctx.now();
  const due = await ctx.db.all<{ id: string }>(
    "SELECT id FROM charges WHERE merchant_id = ? AND status = 'pending' AND payment_method = 'pix' AND pix_expires_at <= ? ORDER BY created_at, id LIMIT ?",
    [ctx.merchantId, iso(now), dueBatch(ctx.deps)],
  );
  if (!due.length) return 0;
  return ctx.db.tx(async (q) => {
    let n = 0;
    for (const { id } of due) {
      const c = await loadCharge(q, ctx.merchantId, id, true);
      if (c.status !== 'pending') continue;
      const at = c.pix_expires_at ?? iso(now);
      await transition(q, 'charge', id, c.status, 'failed', {
        failure_code: PIX_EXPIRED.failure_code,
        failure_reason: PIX_EXPIRED.failure_reason,
        failed_at: at,
        updated_at: iso(now),
      });
      const out = await loadCharge(q, ctx.merchantId, id);
      await emitEvent(q, ctx.deps.ids, { merchantId: ctx.merchantId, type: 'charge.failed', data: chargeRecord(out), chargeId: id, at: now });
      n++;
    }
    return n;
  });
}

/** Card charges left pending (a crash between the create and decide transactions): decided now. */
export async function decidePendingCardCharges(ctx: DueContext): Promise<number> {
  const due = await ctx.db.all<{ id: string }>(
    "SELECT id FROM charges WHERE merchant_id = ? AND status = 'pending' AND payment_method = 'credit_card' ORDER BY created_at, id LIMIT ?",
    [ctx.merchantId, dueBatch(ctx.deps)],
  );
  for (const { id } of due) await decideCardCharge(ctx.deps, ctx.merchantId, id, ctx.now());
  return due.length;
}
