/**
 * Prices as data: the shape of a pricing document (its schema, defaults and validation are in
 * src/contract/resources/pricing.ts), the rates one charge takes from it, and the Price table
 * a buyer pays installments with interest by. Pure and in integer cents; rates in basis points.
 *
 * A charge records its rates (`ChargeRates`) when it is created; everything that happens to it
 * later (capture, refunds, anticipation of its receivables, chargebacks) reads those, so a new
 * price never changes a charge that exists.
 */
import { CARD_BRANDS, type CardBrand } from './brands.js';
import { assertBps, cardMdrBps, MAX_INSTALLMENTS, type MdrBands, type PaymentMethod, type SalePrice } from './fees.js';
import { assertCents } from './money.js';
import type { WithdrawalFeeRule, WithdrawalType } from './payouts.js';

export type InterestMode = 'merchant' | 'buyer';
export const INTEREST_MODES = ['merchant', 'buyer'] as const satisfies readonly InterestMode[];

export interface BuyerInterest {
  /** the monthly rate a buyer pays above the free installments, compounded (Price table) */
  monthly_bps: number;
  /** up to this many installments a buyer-interest charge is still interest-free (1–12) */
  free_installments: number;
}

/** A whole pricing document, every field present (the contract fills what a file leaves out). */
export interface Pricing {
  card_mdr_bps: Record<CardBrand, MdrBands>;
  pix_mdr_bps: number;
  anticipation_monthly_bps: number;
  withdrawal_fees: Record<WithdrawalType, WithdrawalFeeRule>;
  /** cents debited from the merchant for a chargeback lost or accepted */
  chargeback_fee_amount: number;
  /** cents: the fixed fee of a paid boleto, whatever its amount (no MDR) */
  boleto_fee_amount: number;
  buyer_interest: BuyerInterest;
}

/** The card MDR of every brand by default: 1× 2.99 %, 2–6× 3.49 %, 7–12× 3.99 %. */
const DEFAULT_CARD_MDR: MdrBands = { installments_1: 299, installments_2_6: 349, installments_7_12: 399 };

/**
 * The default figures: what a server without `--pricing` charges, and what every charge row
 * stored before migration 720 was priced with. The contract's pricing document
 * (src/contract/resources/pricing.ts) fills what a document leaves out with these. Plain data,
 * so the server starts without building the document's schema.
 */
export const DEFAULT_PRICING: Pricing = {
  card_mdr_bps: Object.fromEntries(CARD_BRANDS.map((b) => [b, { ...DEFAULT_CARD_MDR }])) as Record<CardBrand, MdrBands>,
  pix_mdr_bps: 99,
  anticipation_monthly_bps: 250,
  withdrawal_fees: {
    pix: { fixed_amount: 0, bps: 0, min_amount: 0 },
    ted: { fixed_amount: 367, bps: 0, min_amount: 0 },
    cryptocurrency: { fixed_amount: 0, bps: 100, min_amount: 100 },
  },
  chargeback_fee_amount: 1500,
  boleto_fee_amount: 349,
  buyer_interest: { monthly_bps: 199, free_installments: 1 },
};

export const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `over` laid on `base`: objects merge field by field, any other value (a number, null, a list) replaces. */
export function mergePricing(base: unknown, over: unknown): unknown {
  if (!isPlainObject(base) || !isPlainObject(over)) return over;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = k in base ? mergePricing(base[k], v) : v;
  return out;
}

/** A merchant's effective pricing: the server's, with its stored override (checked when it was set) laid over it. */
export function effectivePricing(server: Pricing, override: string | null | undefined): Pricing {
  return override ? (mergePricing(server, JSON.parse(override)) as Pricing) : server;
}

/** The rates a charge was created with, kept on it. */
export interface ChargeRates {
  /** the MDR of its method, brand and installment band (0 for a boleto: its fee is fixed) */
  mdr_bps: number;
  /** a boleto only: the fixed fee, in cents, of it paid; else null */
  boleto_fee_amount: number | null;
  /** the monthly rate its receivables are anticipated at */
  anticipation_monthly_bps: number;
  /** cents, for a chargeback of it lost or accepted */
  chargeback_fee_amount: number;
  interest: InterestMode;
  /** buyer interest only: the monthly rate and the free installments it was priced with; else null */
  buyer_monthly_interest_bps: number | null;
  free_installments: number | null;
}

/**
 * The rates of a new charge: the MDR of its method (and, for a card, its brand and band) or a
 * boleto's fixed fee, the anticipation rate and chargeback fee of the pricing, and the
 * buyer-interest terms when the buyer pays interest (card only: PIX and boletos are paid at once).
 */
export function chargeRates(pricing: Pricing, method: PaymentMethod, brand: CardBrand | null, installments: number, interest: InterestMode): ChargeRates {
  const card = method === 'credit_card';
  const boleto = method === 'boleto';
  const buyer = card && interest === 'buyer';
  return {
    // a card charge always knows its brand (from its token); visa's bands stand in for none
    mdr_bps: card ? cardMdrBps(pricing.card_mdr_bps[brand ?? 'visa'], installments) : boleto ? 0 : pricing.pix_mdr_bps,
    boleto_fee_amount: boleto ? pricing.boleto_fee_amount : null,
    anticipation_monthly_bps: pricing.anticipation_monthly_bps,
    chargeback_fee_amount: pricing.chargeback_fee_amount,
    interest: buyer ? 'buyer' : 'merchant',
    buyer_monthly_interest_bps: buyer ? pricing.buyer_interest.monthly_bps : null,
    free_installments: buyer ? pricing.buyer_interest.free_installments : null,
  };
}

/** What the fee of a sale by a charge of `method` is, by the rates it recorded: a boleto's fixed fee, else its MDR. */
export function salePrice(method: PaymentMethod, rates: Pick<ChargeRates, 'mdr_bps' | 'boleto_fee_amount'>): SalePrice {
  if (method !== 'boleto') return { mdrBps: rates.mdr_bps };
  if (rates.boleto_fee_amount === null) throw new RangeError('the rates of a boleto name its fee');
  return { fixedFee: rates.boleto_fee_amount };
}

/** What the buyer pays: in `installments` of `installment_amount`, `total_amount` in all. */
export interface InstallmentTerms {
  installments: number;
  /** true when the buyer pays interest on this plan */
  with_interest: boolean;
  /** the value of each installment; without interest, of each after the first (which takes the remainder) */
  installment_amount: number;
  /** installment_amount × installments with interest; the amount without */
  total_amount: number;
  interest_amount: number;
}

/** Who pays what interest: the interest fields of `ChargeRates` (a charge's, or a payment link's over its merchant's pricing). */
export type InterestTerms = Pick<ChargeRates, 'interest' | 'buyer_monthly_interest_bps' | 'free_installments'>;

/** The merchant pays any interest: every plan is interest-free. */
export const MERCHANT_PAYS_INTEREST: InterestTerms = { interest: 'merchant', buyer_monthly_interest_bps: null, free_installments: null };

/** Whether a buyer pays interest on `n` installments under `terms`: buyer interest, a rate above 0, and more than the free installments. */
export function buyerPaysInterest(n: number, terms: InterestTerms): boolean {
  return terms.interest === 'buyer' && (terms.buyer_monthly_interest_bps ?? 0) > 0 && n > (terms.free_installments ?? MAX_INSTALLMENTS);
}

/**
 * The buyer's terms for `amount` in `n` installments. Interest-free when the merchant pays
 * (`interest` merchant), when `n` is at most the free installments, or when the rate is 0; then
 * the total is the amount, split with the remainder on the first installment. Otherwise the Price table: every installment is
 * `priceInstallment(amount, n, rate)` and the total is n × that.
 */
export function installmentTerms(amount: number, n: number, terms: InterestTerms): InstallmentTerms {
  assertCents(amount);
  if (!buyerPaysInterest(n, terms)) {
    return { installments: n, with_interest: false, installment_amount: Math.floor(amount / n), total_amount: amount, interest_amount: 0 };
  }
  const value = priceInstallment(amount, n, terms.buyer_monthly_interest_bps!);
  return { installments: n, with_interest: true, installment_amount: value, total_amount: value * n, interest_amount: value * n - amount };
}

/**
 * The Price table's installment (PMT) of `amount` cents in `n` monthly installments at
 * `monthlyBps`, the first one month after the purchase:
 *
 *     PMT = PV × i / (1 − (1 + i)^−n),  i = monthlyBps / 10000
 *
 * computed exactly (BigInt: PMT = PV × b × (10000 + b)^n / (10000 × ((10000 + b)^n − 10000^n)))
 * and rounded half up to the cent. So that the buyer never pays less than the price, an
 * installment is never below ⌈amount / n⌉ (only a tiny amount at a tiny rate comes near: R$ 1,00 in
 * 12× at 0.01 % a month would round to 8 cents, 96 in all). A rate of 0 is amount / n, rounded up.
 */
export function priceInstallment(amount: number, n: number, monthlyBps: number): number {
  assertCents(amount);
  assertBps(monthlyBps);
  if (amount < 1) throw new RangeError('amount must be at least 1 cent');
  if (!Number.isInteger(n) || n < 1 || n > MAX_INSTALLMENTS) throw new RangeError(`installments must be 1 to ${MAX_INSTALLMENTS}`);
  const pv = BigInt(amount);
  const nn = BigInt(n);
  const floor = (pv + nn - 1n) / nn;
  if (monthlyBps === 0) return Number(floor);
  const b = BigInt(monthlyBps);
  const grown = (10_000n + b) ** nn;
  const num = pv * b * grown;
  const den = 10_000n * (grown - 10_000n ** nn);
  const rounded = (2n * num + den) / (2n * den);
  return Number(rounded > floor ? rounded : floor);
}
