/** Withdrawal fees (the contract's Money section), in integer cents. */
import { percentOf } from './money.js';

export const WITHDRAWAL_TYPES = ['pix', 'ted', 'cryptocurrency'] as const;
export type WithdrawalType = (typeof WITHDRAWAL_TYPES)[number];

export const TED_FEE_CENTS = 367;
/** 1 % in basis points of a percent */
export const CRYPTO_FEE_BPS = 100;
export const CRYPTO_FEE_MIN_CENTS = 100;

/** pix 0; ted 367; cryptocurrency 1 % rounded half up, at least 100. */
export function withdrawalFee(type: WithdrawalType, amount: number): number {
  switch (type) {
    case 'pix':
      return 0;
    case 'ted':
      return TED_FEE_CENTS;
    case 'cryptocurrency':
      return Math.max(CRYPTO_FEE_MIN_CENTS, percentOf(amount, CRYPTO_FEE_BPS));
  }
}
