/**
 * The pricing document: every rate the service charges by, as configuration. Defined here once;
 * the server's `--pricing FILE` / MPAY_PRICING, a merchant's override (`mpay admin merchants
 * pricing set`), `GET /v1/merchant` and `mpay sandbox values` all read it through this schema.
 *
 * A document names only what it changes: every field left out keeps the value under it — a
 * server file is laid over the defaults below, a merchant's override over
 * the server's pricing (`mergePricing`: objects field by field, any other value replaces).
 * Unknown fields and bad values are refused naming the field. Money in integer cents, rates in
 * basis points (1/100 of a percent: 2.99 % is 299).
 */
import * as z from 'zod';
import { CARD_BRANDS, type CardBrand } from '../../domain/brands.js';
import { MAX_INSTALLMENTS, type MdrBands } from '../../domain/fees.js';
import type { WithdrawalFeeRule } from '../../domain/payouts.js';
import { DEFAULT_PRICING, INTEREST_MODES, isPlainObject, mergePricing, type Pricing } from '../../domain/pricing.js';
import { cents, money } from '../common.js';
import type { ErrorDetail } from '../errors.js';
import { issuesToDetails, PARSE_OPTIONS } from '../issues.js';

/** Upper bounds that catch a rate typed in the wrong unit (29.9 % for 2.99 %) before it prices a sale. */
export const PRICING_LIMITS = {
  /** card and PIX MDR: 20 % */
  mdrBps: 2000,
  /** anticipation, a month: 20 % */
  anticipationBps: 2000,
  /** buyer interest, a month: 10 % */
  buyerInterestBps: 1000,
  /** the rate part of a withdrawal fee: 20 % */
  withdrawalBps: 2000,
  /** fixed fees and minimums, cents: R$ 1.000,00 */
  feeAmount: 100_000,
} as const;

const bps = (max: number) =>
  z
    .int({ error: `must be a whole number of basis points (1/100 of a percent) from 0 to ${max}` })
    .min(0, { error: `must be from 0 to ${max} basis points` })
    .max(max, { error: `must be from 0 to ${max} basis points (${max / 100} %)` });
const feeCents = () => cents().max(PRICING_LIMITS.feeAmount, { error: `must be at most ${PRICING_LIMITS.feeAmount} cents` });

const mdrBands = (d: MdrBands) =>
  z
    .strictObject({
      installments_1: bps(PRICING_LIMITS.mdrBps).default(d.installments_1).describe('1×'),
      installments_2_6: bps(PRICING_LIMITS.mdrBps).default(d.installments_2_6).describe('2× to 6×'),
      installments_7_12: bps(PRICING_LIMITS.mdrBps).default(d.installments_7_12).describe('7× to 12×'),
    })
    .prefault({});

const feeRule = (d: WithdrawalFeeRule) =>
  z
    .strictObject({
      fixed_amount: feeCents().default(d.fixed_amount).describe('cents added to every withdrawal of the type'),
      bps: bps(PRICING_LIMITS.withdrawalBps).default(d.bps).describe('rate of the amount, rounded half up to the cent'),
      min_amount: feeCents().default(d.min_amount).describe('the fee is never below this (cents)'),
    })
    .prefault({});

const cardMdr = z
  .strictObject(Object.fromEntries(CARD_BRANDS.map((b) => [b, mdrBands(DEFAULT_PRICING.card_mdr_bps[b])])) as Record<CardBrand, ReturnType<typeof mdrBands>>)
  .prefault({})
  .describe('card MDR by brand and installment band');

export const pricingDocument = z
  .strictObject({
    card_mdr_bps: cardMdr,
    pix_mdr_bps: bps(PRICING_LIMITS.mdrBps).default(DEFAULT_PRICING.pix_mdr_bps).describe('PIX MDR'),
    anticipation_monthly_bps: bps(PRICING_LIMITS.anticipationBps).default(DEFAULT_PRICING.anticipation_monthly_bps).describe('spot anticipation: this rate / 30 per calendar day until settlement'),
    withdrawal_fees: z
      .strictObject({
        pix: feeRule(DEFAULT_PRICING.withdrawal_fees.pix),
        ted: feeRule(DEFAULT_PRICING.withdrawal_fees.ted),
        cryptocurrency: feeRule(DEFAULT_PRICING.withdrawal_fees.cryptocurrency),
      })
      .prefault({})
      .describe('fee = max(min_amount, fixed_amount + amount × bps)'),
    chargeback_fee_amount: feeCents().default(DEFAULT_PRICING.chargeback_fee_amount).describe('cents debited from the merchant for a chargeback lost or accepted'),
    boleto_fee_amount: feeCents().default(DEFAULT_PRICING.boleto_fee_amount).describe('cents: the fixed fee of a paid boleto, whatever its amount (a boleto pays no MDR; one never paid costs nothing)'),
    buyer_interest: z
      .strictObject({
        monthly_bps: bps(PRICING_LIMITS.buyerInterestBps).default(DEFAULT_PRICING.buyer_interest.monthly_bps).describe('monthly rate a buyer pays above the free installments, compounded (Price table)'),
        free_installments: z
          .int({ error: `must be a whole number from 1 to ${MAX_INSTALLMENTS}` })
          .min(1, { error: `must be from 1 to ${MAX_INSTALLMENTS}` })
          .max(MAX_INSTALLMENTS, { error: `must be from 1 to ${MAX_INSTALLMENTS}` })
          .default(DEFAULT_PRICING.buyer_interest.free_installments)
          .describe('up to this many installments a charge with interest "buyer" is still interest-free'),
      })
      .prefault({})
      .describe('applies to card charges and payment links with interest "buyer"'),
  })
  .describe('pricing: every rate the service charges by (rates in basis points, money in cents)');

/** The contract's document and the domain's `Pricing` are one shape (a compile-time check). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameShape: Same<z.output<typeof pricingDocument>, Pricing> = true;
void sameShape;

/** The default figures and how a document is laid over another (src/domain/pricing.ts). */
export { DEFAULT_PRICING, mergePricing };

export type PricingResult = { ok: true; pricing: Pricing } | { ok: false; details: ErrorDetail[] };

/**
 * A pricing document (parsed JSON) laid over `base` (default: the defaults) and checked: the
 * whole pricing, or what is wrong with each field. The document itself must be an object.
 */
export function parsePricing(input: unknown, base?: Pricing): PricingResult {
  if (!isPlainObject(input)) return { ok: false, details: [{ field: '(document)', message: 'must be a JSON object, e.g. {"pix_mdr_bps": 99}' }] };
  const r = pricingDocument.safeParse(base ? mergePricing(base, input) : input, PARSE_OPTIONS);
  return r.success ? { ok: true, pricing: r.data } : { ok: false, details: issuesToDetails(r.error.issues) };
}

/** One line of what is wrong: "card_mdr_bps.visa.installments_1: must be …; pix_mdr_bps: …". */
export function pricingProblems(details: readonly ErrorDetail[]): string {
  return details.map((d) => `${d.field}: ${d.message}`).join('; ');
}

/** The rates a charge was created with (`ChargeRates`), as its record shows them. */
export const chargePricing = z
  .object({
    mdr_bps: z.int().describe('the MDR of its method, brand and installment band (0 for a boleto: its fee is fixed)'),
    boleto_fee_amount: money().nullable().describe('a boleto only: the fixed fee of it paid (cents); else null'),
    anticipation_monthly_bps: z.int().describe('the monthly rate its receivables are anticipated at'),
    chargeback_fee_amount: money().describe('cents debited for a chargeback of it lost or accepted'),
    interest: z.enum(INTEREST_MODES).describe('who pays the installments\' interest'),
    buyer_monthly_interest_bps: z.int().nullable().describe('interest "buyer": the monthly rate it was priced with; else null'),
    free_installments: z.int().nullable().describe('interest "buyer": the free installments it was priced with; else null'),
  })
  .describe('the rates the charge was created with; capture, refunds and anticipation use these, whatever the pricing says later');
