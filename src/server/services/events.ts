import type { EventName } from '../../contract/events.js';
import type { Queryable, SqlValue } from '../../store/db.js';
import type { IdGenerator } from '../../domain/ids.js';

export interface NewEvent {
  merchantId: string;
  type: EventName;
  /** the resource the event is about, as its record */
  data: Record<string, unknown> & { id?: string };
  /** `data`'s JSON text, when the caller made it already (for its answer too) */
  text?: string;
  chargeId?: string | null;
  at: Date;
}

/**
 * Writes an event into the outbox. Call it inside the transaction that makes the change, so
 * the change, its ledger entries and its event commit together or not at all.
 *
 * The delivery worker fans each event out to the merchant's active endpoints. An event of a
 * merchant with no active endpoint has no one to go to, so it is written already fanned out
 * (dispatched_at set) instead of waiting for a worker to mark it: the same outcome, without a
 * later UPDATE of every event.
 */
export async function emitEvent(q: Queryable, ids: IdGenerator, e: NewEvent): Promise<string> {
  return (await emitEvents(q, ids, [e]))[0]!;
}

const COLUMNS = '(id, merchant_id, type, resource_id, charge_id, data, created_at, dispatched_at)';

/**
 * Events of one merchant, in this order (their ids increase), written with one statement and one
 * look for the merchant's endpoints (a card charge's charge.pending and its decision: one round
 * trip instead of two emitEvent calls). As emitEvent for each otherwise.
 */
export async function emitEvents(q: Queryable, ids: IdGenerator, events: NewEvent[]): Promise<string[]> {
  const merchantId = events[0]!.merchantId;
  if (events.some((e) => e.merchantId !== merchantId)) throw new Error('emitEvents: the events of one call belong to one merchant');
  const listened = await q.get(
    "SELECT id FROM webhook_endpoints WHERE merchant_id = ? AND status = 'active' AND deleted_at IS NULL LIMIT 1",
    [merchantId],
  );
  const out: string[] = [];
  const params: SqlValue[] = [];
  for (const e of events) {
    const id = ids();
    const at = e.at.toISOString();
    out.push(id);
    params.push(id, merchantId, e.type, (e.data.id as string | undefined) ?? null, e.chargeId ?? null, e.text ?? JSON.stringify(e.data), at, listened ? null : at);
  }
  const n = events.length;
  const sql = `INSERT INTO events ${COLUMNS} VALUES ${Array.from({ length: n }, () => '(?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`;
  await q.run(sql, params);
  return out;
}
