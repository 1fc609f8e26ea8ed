/**
 * The one way a stored record changes status: `transition()` checks the move against the
 * lifecycle table (src/domain/lifecycle.ts) before any SQL, then compares-and-sets the row
 * (`UPDATE … SET status = to, … WHERE id = ? AND status = from`) inside the caller's
 * transaction, on either store engine. A row whose status is no longer `from` (another
 * transaction moved it first) is a lost race: `transition` throws, `tryTransition` answers false.
 */
import { assertTransition, type Lifecycle, type StatusOf } from '../domain/lifecycle.js';
import type { Queryable, SqlValue } from './db.js';

/** Where each lifecycle's status is stored. */
export const LIFECYCLE_COLUMNS: Record<Lifecycle, { table: string; column: string }> = {
  charge: { table: 'charges', column: 'status' },
  receivable: { table: 'receivables', column: 'status' },
  withdrawal: { table: 'withdrawals', column: 'status' },
  anticipation: { table: 'anticipations', column: 'status' },
  submerchant: { table: 'submerchants', column: 'status' },
  document: { table: 'submerchant_documents', column: 'status' },
  payment_link: { table: 'payment_links', column: 'status' },
  webhook_endpoint: { table: 'webhook_endpoints', column: 'status' },
  chargeback: { table: 'chargebacks', column: 'status' },
  delivery: { table: 'webhook_delivery_logs', column: 'status' },
  webhook_delivery: { table: 'webhook_deliveries', column: 'state' },
};

/** The row was not in the status the move started from: another transaction moved it first. */
export class LostTransitionError extends Error {
  constructor(
    readonly lifecycle: Lifecycle,
    readonly id: string,
    readonly from: string,
    readonly to: string,
  ) {
    super(`${lifecycle.replace('_', ' ')} ${id} was no longer '${from}' when moving it to '${to}'`);
  }
}

const COLUMN = /^[a-z_]+$/;

/**
 * Moves record `id` of lifecycle `l` from `from` to `to`, setting the other columns in `set`
 * in the same statement. Returns whether the row moved (false: it was no longer `from`).
 * Throws InvalidTransitionError, before any SQL, for a move the lifecycle does not allow.
 */
export async function tryTransition<L extends Lifecycle>(
  q: Queryable,
  l: L,
  id: string,
  from: string,
  to: StatusOf<L>,
  set: Readonly<Record<string, SqlValue>> = {},
): Promise<boolean> {
  assertTransition(l, from, to);
  const { table, column } = LIFECYCLE_COLUMNS[l];
  const cols = Object.keys(set);
  for (const c of cols) {
    if (!COLUMN.test(c) || c === column) throw new Error(`transition: cannot set column '${c}' of ${table}`);
  }
  const sets = [`${column} = ?`, ...cols.map((c) => `${c} = ?`)].join(', ');
  const r = await q.run(`UPDATE ${table} SET ${sets} WHERE id = ? AND ${column} = ?`, [to, ...cols.map((c) => set[c] as SqlValue), id, from]);
  return r.changes === 1;
}

/** As tryTransition, but a lost race throws LostTransitionError (the caller's transaction rolls back). */
export async function transition<L extends Lifecycle>(...move: Parameters<typeof tryTransition<L>>): Promise<void> {
  if (!(await tryTransition(...move))) {
    const [, l, id, from, to] = move;
    throw new LostTransitionError(l, id, from, to);
  }
}
