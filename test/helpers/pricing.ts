/** The default pricing's rates, for domain tests of functions that take rates as parameters. */
import { DEFAULT_PRICING } from '../../src/contract/resources/pricing.js';
import type { CardBrand } from '../../src/domain/brands.js';
import { planSale, type PartyInput, type PaymentMethod } from '../../src/domain/fees.js';
import { chargeRates, salePrice } from '../../src/domain/pricing.js';

/** The default MDR of a method (and brand) at `n` installments (0 for a boleto: its fee is fixed). */
export function defaultMdr(method: PaymentMethod, n: number, brand: CardBrand = 'visa'): number {
  return chargeRates(DEFAULT_PRICING, method, brand, n, 'merchant').mdr_bps;
}

/** planSale at the default rates: the MDR of the method and band, or a boleto's default fixed fee. */
export function plan<K>(method: PaymentMethod, n: number, parties: readonly PartyInput<K>[]) {
  return planSale(method, n, parties, salePrice(method, chargeRates(DEFAULT_PRICING, method, 'visa', n, 'merchant')));
}

/** The default anticipation rate, a month. */
export const ANTICIPATION_BPS = DEFAULT_PRICING.anticipation_monthly_bps;
