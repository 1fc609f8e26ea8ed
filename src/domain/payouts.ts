/** Withdrawal fees, in integer cents; the rule of each type comes from the pricing document. */
import { percentOf } from './money.js';

export const WITHDRAWAL_TYPES = ['pix', 'ted', 'cryptocurrency'] as const;
export type WithdrawalType = (typeof WITHDRAWAL_TYPES)[number];

/** The fee of one withdrawal type: a fixed part plus a rate of the amount, never below a minimum. */
export interface WithdrawalFeeRule {
  /** cents */
  fixed_amount: number;
  /** basis points of the amount */
  bps: number;
  /** cents */
  min_amount: number;
}

/**
 * max(min_amount, fixed_amount + amount × bps), the rate rounded half up to the cent. The
 * default rules (pix 0; ted 367; cryptocurrency 1 %, at least 100) are the contract's figures.
 */
export function withdrawalFee(amount: number, rule: WithdrawalFeeRule): number {
  return Math.max(rule.min_amount, rule.fixed_amount + percentOf(amount, rule.bps));
}
