/**
 * The sandbox payout rail: how a withdrawal moves after it is created, and the magic values
 * that make it fail so integrations can test failures. `mpay sandbox values` lists these.
 *
 * Timeline on the merchant's clock (moved by the sandbox clock): a withdrawal is `pending`
 * when created; PROCESS_AFTER_MS later it is due to become `processing` (or `failed` when a
 * magic value rejects it up front); COMPLETE_AFTER_MS after that it is due to become
 * `completed` (or `failed` when a magic value fails it during processing). A move happens when
 * due work runs at or after the moment it came due (before each request of the merchant, and
 * on the server's timer), and is stamped with that moment.
 */
export const PROCESS_AFTER_MS = 1_000;
export const COMPLETE_AFTER_MS = 2_000;

export type PayoutStage = 'pending' | 'processing';

export interface SandboxPayoutValue {
  /** withdrawal type the value applies to; 'any' for all three */
  type: 'pix' | 'ted' | 'cryptocurrency' | 'any';
  /** request field that carries the value (for recipient_id, the recipient's field) */
  field: 'amount' | 'pix_key' | 'account_number' | 'wallet_address';
  /** exact value (compared after the key's canonical form), or the cents ending of amount */
  equals?: string;
  cents_ending?: number;
  /** the status it fails from and the failure_reason it gets */
  fails_at: PayoutStage;
  failure_reason: string;
  description: string;
}

export const SANDBOX_PAYOUT_VALUES: readonly SandboxPayoutValue[] = [
  {
    type: 'pix',
    field: 'pix_key',
    equals: 'fail@mpay.test',
    fails_at: 'pending',
    failure_reason: 'pix_key_not_found',
    description: 'PIX key not found in DICT: the withdrawal fails before processing and the debit is reversed',
  },
  {
    type: 'ted',
    field: 'account_number',
    equals: '99999999',
    fails_at: 'pending',
    failure_reason: 'account_not_found',
    description: 'The destination account does not exist: fails before processing and the debit is reversed',
  },
  {
    type: 'cryptocurrency',
    field: 'wallet_address',
    equals: '0x000000000000000000000000000000000000dEaD',
    fails_at: 'processing',
    failure_reason: 'address_blocked',
    description: 'The address is on a sanctions list: fails while processing and the debit is reversed',
  },
  {
    type: 'any',
    field: 'amount',
    cents_ending: 99,
    fails_at: 'processing',
    failure_reason: 'destination_rejected',
    description: 'An amount ending in 99 cents (e.g. 1099) is rejected by the destination while processing; the debit is reversed',
  },
];

/** The magic value a withdrawal hits, if any. `destination` is the recipient snapshot. */
export function sandboxPayoutFailure(
  type: 'pix' | 'ted' | 'cryptocurrency',
  amount: number,
  destination: Record<string, unknown>,
): SandboxPayoutValue | undefined {
  return SANDBOX_PAYOUT_VALUES.find((v) => {
    if (v.type !== 'any' && v.type !== type) return false;
    if (v.field === 'amount') return v.cents_ending !== undefined && amount % 100 === v.cents_ending;
    const got = destination[v.field];
    return typeof got === 'string' && v.equals !== undefined && got.toLowerCase() === v.equals.toLowerCase();
  });
}
