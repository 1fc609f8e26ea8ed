/**
 * Status lifecycles as data: one transition table per resource (the contract's Lifecycles).
 * The first status listed is the initial one. `assertTransition` is the one guard every
 * service uses; a move the table does not allow is a 409 `invalid_state`.
 */
export const LIFECYCLES = {
  charge: { pending: ['captured', 'failed'], captured: ['refunded'], failed: [], refunded: [] },
  // cancelled (an extension): the charge was refunded before the receivable settled
  receivable: { pending: ['paid', 'anticipated', 'cancelled'], paid: [], anticipated: [], cancelled: [] },
  withdrawal: { pending: ['processing', 'failed'], processing: ['completed', 'failed'], completed: [], failed: [] },
  anticipation: { pending: ['approved', 'refused'], approved: [], refused: [] },
  submerchant: { pending: ['under_review'], under_review: ['approved', 'rejected'], approved: [], rejected: [] },
  document: {
    pending: ['approved', 'rejected', 'replaced'],
    approved: ['replaced'],
    rejected: ['replaced'],
    replaced: [],
  },
  payment_link: {
    active: ['inactive', 'expired', 'exhausted'],
    inactive: ['active', 'expired'],
    expired: [],
    exhausted: [],
  },
  webhook_endpoint: { active: ['disabled'], disabled: ['active'] },
  delivery: { pending: ['delivered', 'failed'], delivered: [], failed: [] },
} as const satisfies Record<string, Record<string, readonly string[]>>;

export type Lifecycle = keyof typeof LIFECYCLES;
export type StatusOf<L extends Lifecycle> = keyof (typeof LIFECYCLES)[L] & string;

export function statusesOf<L extends Lifecycle>(l: L): StatusOf<L>[] {
  return Object.keys(LIFECYCLES[l]) as StatusOf<L>[];
}

export function canTransition<L extends Lifecycle>(l: L, from: string, to: string): boolean {
  const moves = (LIFECYCLES[l] as Record<string, readonly string[]>)[from];
  return !!moves && moves.includes(to);
}

export class InvalidTransitionError extends Error {
  constructor(
    readonly lifecycle: Lifecycle,
    readonly from: string,
    readonly to: string,
    readonly allowed: readonly string[],
  ) {
    super(
      `cannot move ${lifecycle.replace('_', ' ')} from '${from}' to '${to}'; ` +
        (allowed.length ? `from '${from}' it can move to: ${allowed.join(', ')}` : `'${from}' is final`),
    );
  }
}

export function assertTransition<L extends Lifecycle>(l: L, from: string, to: string): void {
  if (!canTransition(l, from, to)) {
    const allowed = (LIFECYCLES[l] as Record<string, readonly string[]>)[from] ?? [];
    throw new InvalidTransitionError(l, from, to, allowed);
  }
}
