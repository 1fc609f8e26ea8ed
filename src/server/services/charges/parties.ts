/**
 * The parties of a sale: who is paid what share of a charge (the merchant, its submerchants by
 * split rules), and the fee plan of those shares (src/domain/fees.ts planSale).
 */
import type { Charge, ChargeCreate } from '../../../contract/resources/charges.js';
import { planSale, prorate, splitShares, type PartyInput, type PaymentMethod, type SalePrice, type ShareRule } from '../../../domain/fees.js';
import { salePrice } from '../../../domain/pricing.js';
import { percentToBps } from '../../../domain/money.js';
import { invalid } from '../../errors.js';
import { ratesOf, totalOf, type ChargeRow, type StoredParty } from './rows.js';

/** A party before its wallet is known. */
export interface PartyDraft {
  submerchant_id: string | null;
  share: number;
  bears_fee: boolean;
  takes_remainder?: boolean;
  /** gives back its part of a chargeback (absent on charges stored before it existed: true) */
  liable?: boolean;
}

/** Checks the split rules against the charge and turns them into parties with shares. */
export function draftParties(merchantId: string, body: ChargeCreate): { parties: PartyDraft[]; rules: Charge['split_rules'] } {
  const rules = body.split_rules;
  if (!rules) return { parties: [{ submerchant_id: body.submerchant_id ?? null, share: body.amount, bears_fee: true, liable: true }], rules: [] };
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
    const bps = rules.reduce((a, r) => a + percentToBps(r.percentage!), 0);
    if (bps !== 10000) throw invalid('split_rules', `the percentages add up to ${bps / 100}; they must add up to 100`);
  }
  if (!rules.some((r) => r.charge_processing_fee !== false)) {
    throw invalid('split_rules', 'at least one rule must have charge_processing_fee true (the default)');
  }
  if (!rules.some((r) => r.liable !== false)) {
    throw invalid('split_rules', 'at least one rule must have liable true (the default): someone gives back a chargeback');
  }
  if (rules.filter((r) => r.charge_remainder_fee === true).length > 1) {
    throw invalid('split_rules', 'at most one rule may have charge_remainder_fee true (it takes the cents left over; default: the first rule)');
  }
  // the remainder party: the rule with charge_remainder_fee true, else the first rule
  const remainder = Math.max(0, rules.findIndex((r) => r.charge_remainder_fee === true));
  const shareRules: ShareRule[] = rules.map((r) => (byAmount ? { amount: r.amount! } : { percentageBps: percentToBps(r.percentage!) }));
  const shares = splitShares(body.amount, shareRules, remainder);
  const parties = rules.map((r, i) => ({
    submerchant_id: r.submerchant_id ?? null,
    share: shares[i]!,
    bears_fee: r.charge_processing_fee !== false,
    takes_remainder: i === remainder,
    liable: r.liable !== false,
  }));
  return {
    parties,
    rules: rules.map((r, i) => ({
      submerchant_id: r.submerchant_id ?? null,
      amount: shares[i]!,
      percentage: r.percentage ?? null,
      charge_processing_fee: r.charge_processing_fee !== false,
      charge_remainder_fee: i === remainder,
      liable: r.liable !== false,
    })),
  };
}

/** What a sale's plan is computed on: its method and installments, the fee its rates give (MDR or a boleto's fixed fee), and the gross the buyer pays. */
export interface Sale {
  method: PaymentMethod;
  installments: number;
  price: SalePrice;
  /** what the buyer pays (total_amount): the amount, plus the interest when the buyer pays interest */
  gross: number;
}

/** The sale of a stored charge: by the rates it was created with, on its total. */
export function saleOf(c: ChargeRow): Sale {
  return { method: c.payment_method, installments: Number(c.installments), price: salePrice(c.payment_method, ratesOf(c)), gross: totalOf(c) };
}

/**
 * The parties' shares grown (or shrunk) in proportion to add up to `gross` (`prorate`: floored,
 * the cents left over to the remainder party); unchanged when they already add up to it.
 */
export function sharesOf(parties: readonly StoredParty[] | readonly PartyDraft[], gross: number): number[] {
  const shares = parties.map((p) => p.share);
  const sum = shares.reduce((a, b) => a + b, 0);
  const remainder = Math.max(0, parties.findIndex((p) => p.takes_remainder === true));
  return gross === sum ? shares : prorate(gross, shares, remainder);
}

/**
 * The fee plan of a sale among its parties (keys: the parties' indexes). The parties' shares
 * are of the charge's amount; when the buyer pays more (interest; a boleto's fine and interest) or
 * less (its discount), each share moves in proportion (`prorate`: floored, the cents left over to
 * the remainder party), so the parties divide the difference as they divide the amount and their
 * shares add up to the gross.
 */
export function planOf(sale: Sale, parties: readonly StoredParty[] | readonly PartyDraft[]) {
  const scaled = sharesOf(parties, sale.gross);
  return planSale(
    sale.method,
    sale.installments,
    parties.map((p, i): PartyInput<number> => ({ key: i, share: scaled[i]!, bearsFee: p.bears_fee, takesRemainder: p.takes_remainder === true })),
    sale.price,
  );
}
