/**
 * Status lifecycles as data: one transition table per resource (the contract's Lifecycles).
 * The first status listed is the initial one. `assertTransition` is the check; services move
 * a stored record with `transition()` (src/store/transition.ts), which checks here and then
 * compares-and-sets the row. A move the table does not allow is a 409 `invalid_state`.
 */
export const LIFECYCLES = {
  // authorized: a card charge created with capture false, captured later (once) or voided
  // expired: a boleto or a PIX with a due date not paid by its last payable day
  charge: { pending: ['authorized', 'captured', 'failed', 'expired'], authorized: ['captured', 'voided'], captured: ['refunded'], failed: [], refunded: [], voided: [], expired: [] },
  // cancelled (an extension): a refund or a chargeback took all of it before it settled
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
  // a dispute of a captured card charge: the merchant accepts it or contests it with evidence
  // before evidence_due_at (past it, lost); the issuer decides a contest
  chargeback: { open: ['accepted', 'under_review', 'lost'], under_review: ['won', 'lost'], accepted: [], won: [], lost: [] },
  // a delivery log record (one attempt) — webhook_delivery_logs.status
  delivery: { pending: ['delivered', 'failed'], delivered: [], failed: [] },
  // a delivery (event × endpoint, its schedule) — webhook_deliveries.state; a redelivery
  // schedules a finished one again
  webhook_delivery: {
    scheduled: ['delivered', 'failed', 'cancelled'],
    delivered: ['scheduled'],
    failed: ['scheduled'],
    cancelled: ['scheduled'],
  },
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

/** Every status of every lifecycle. */
export type AnyStatus = { [L in Lifecycle]: StatusOf<L> }[Lifecycle];

/**
 * How a status reads to people (the CLI's colours): settled well, still moving, ended badly, or
 * set aside. One tone per status name across lifecycles; a status added to a lifecycle without a
 * tone here is a type error.
 */
export type Tone = 'good' | 'waiting' | 'bad' | 'aside';
export const STATUS_TONES: Record<AnyStatus, Tone> = {
  pending: 'waiting',
  open: 'waiting',
  processing: 'waiting',
  under_review: 'waiting',
  scheduled: 'waiting',
  anticipated: 'waiting',
  authorized: 'waiting',
  captured: 'good',
  paid: 'good',
  completed: 'good',
  approved: 'good',
  active: 'good',
  delivered: 'good',
  won: 'good',
  failed: 'bad',
  refused: 'bad',
  rejected: 'bad',
  disabled: 'bad',
  expired: 'bad',
  refunded: 'bad',
  cancelled: 'bad',
  lost: 'bad',
  accepted: 'bad',
  exhausted: 'aside',
  inactive: 'aside',
  replaced: 'aside',
  voided: 'aside',
};

/** The tone of a status string, if it is a status of some lifecycle. */
export function toneOf(status: string): Tone | undefined {
  return Object.hasOwn(STATUS_TONES, status) ? STATUS_TONES[status as AnyStatus] : undefined;
}
