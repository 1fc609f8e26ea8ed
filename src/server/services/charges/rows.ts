/**
 * A charge, its receivables and its refunds as stored: the rows, the reads and writes of them
 * that every job of the charge does, and the records of receivables and refunds.
 */
import type { Charge, Refund } from '../../../contract/resources/charges.js';
import type { Receivable } from '../../../contract/resources/receivables.js';
import type { CardBrand } from '../../../domain/brands.js';
import type { VoidReason } from '../../../domain/capture.js';
import type { PaymentMethod } from '../../../domain/fees.js';
import { chargeRates, DEFAULT_PRICING, type ChargeRates } from '../../../domain/pricing.js';
import type { Queryable } from '../../../store/db.js';
import { notFound } from '../../errors.js';

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
  /** what the buyer pays (amount + interest_amount); NULL on rows stored before migration 720: the amount */
  total_amount: number | null;
  interest_amount: number;
  /** the rates it was created with (ChargeRates as JSON); NULL on rows stored before migration 720 */
  pricing: string | null;
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
  /** cents captured (amount, or less after a partial capture); null until captured */
  captured_amount: number | null;
  authorized_at: string | null;
  voided_at: string | null;
  void_reason: VoidReason | null;
  failed_at: string | null;
  refunded_at: string | null;
  /** cents refunded so far (absent on a row built before its insert: 0) */
  refunded_amount?: number;
  /** cents under chargebacks not won (absent on a row built before its insert: 0) */
  disputed_amount?: number;
  /** the payment link the buyer paid through (hosted checkout), if any */
  payment_link_id: string | null;
  created_at: string;
  updated_at: string;
  // a boleto or a PIX with a due date (src/server/services/charges/dueDate.ts); absent: null
  /** JSON StoredDueTerms */
  due_terms?: string | null;
  due_expires_at?: string | null;
  paid_amount?: number | null;
  paid_on?: string | null;
  /** JSON { discount, fine, interest } of the payment */
  due_payment?: string | null;
  sandbox_pays_at?: string | null;
  boleto_our_number?: number | null;
  boleto_barcode?: string | null;
  boleto_url?: string | null;
}

/** A party of the sale as stored on the charge: who receives, into which wallet. */
export interface StoredParty {
  submerchant_id: string | null;
  wallet_id: string;
  share: number;
  bears_fee: boolean;
  /** takes the cents left over of the fee (absent on charges stored before it existed: the first party) */
  takes_remainder?: boolean;
  /** gives back its part of a chargeback (absent on charges stored before it existed: true) */
  liable?: boolean;
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

export interface RefundRow {
  id: string;
  charge_id: string;
  merchant_id: string;
  amount: number;
  /** a PIX charge's refund (a devolução): its return id; null otherwise */
  return_id: string | null;
  created_at: string;
}

export function refundRecord(r: RefundRow): Refund {
  return { id: r.id, charge_id: r.charge_id, amount: Number(r.amount), return_id: r.return_id ?? null, created_at: r.created_at };
}

/**
 * The rates a charge was created with. A row stored before migration 720 was priced by the
 * default figures, with the merchant paying any interest: those are its rates.
 */
export function ratesOf(r: Pick<ChargeRow, 'pricing' | 'payment_method' | 'card_brand' | 'installments'>): ChargeRates {
  if (r.pricing) return JSON.parse(r.pricing) as ChargeRates;
  return chargeRates(DEFAULT_PRICING, r.payment_method, r.card_brand, Number(r.installments), 'merchant');
}

/** What the buyer pays for a charge: its total_amount, or its amount when stored before totals existed. */
export function totalOf(r: Pick<ChargeRow, 'total_amount' | 'amount'>): number {
  return Number(r.total_amount ?? r.amount);
}

/**
 * The cents of a charge that were captured: what refunds and chargebacks draw on — all of its
 * total (what the buyer paid, interest included), or less after a partial capture; none while
 * it is only authorised, pending or voided.
 */
export function capturedAmountOf(c: Pick<ChargeRow, 'captured_amount'>): number {
  return Number(c.captured_amount ?? 0);
}

/** The merchant's charge (locked for the transaction with `lock`), or 404. */
export async function loadCharge(q: Queryable, merchantId: string, id: string, lock = false): Promise<ChargeRow> {
  const row = await q.get<ChargeRow>(`SELECT * FROM charges WHERE id = ? AND merchant_id = ?${lock ? q.dialect.forUpdate : ''}`, [id, merchantId]);
  if (!row) throw notFound('Charge');
  return row;
}

/** Writes a charge row as it is (pending, or already decided: captured, authorized or failed; never voided). */
export async function insertCharge(q: Queryable, r: ChargeRow): Promise<void> {
  await q.run(
    `INSERT INTO charges (id, merchant_id, submerchant_id, amount, shipping_amount, currency, status, payment_method, product_type,
       installments, total_amount, interest_amount, pricing, customer, items, split_rules, parties, metadata, card_token, card_brand, card_first_six, card_last_four,
       card_holder_name, pix_qr_code, pix_expires_at, fee_amount, net_amount, failure_code, failure_reason, captured_at, failed_at,
       payment_link_id, created_at, updated_at, captured_amount, authorized_at, due_terms, due_expires_at, sandbox_pays_at, boleto_our_number, boleto_barcode, boleto_url)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
      r.total_amount,
      r.interest_amount,
      r.pricing,
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
      r.captured_amount,
      r.authorized_at,
      r.due_terms ?? null,
      r.due_expires_at ?? null,
      r.sandbox_pays_at ?? null,
      r.boleto_our_number ?? null,
      r.boleto_barcode ?? null,
      r.boleto_url ?? null,
    ],
  );
}
