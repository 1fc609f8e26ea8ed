import type { EventName } from '../../contract/events.js';
import type { Queryable } from '../../store/db.js';
import type { IdGenerator } from '../../domain/ids.js';

export interface NewEvent {
  merchantId: string;
  type: EventName;
  /** the resource the event is about, as its record */
  data: Record<string, unknown> & { id?: string };
  chargeId?: string | null;
  at: Date;
}

/**
 * Writes an event into the outbox. Call it inside the transaction that makes the change, so
 * the change, its ledger entries and its event commit together or not at all.
 */
export async function emitEvent(q: Queryable, ids: IdGenerator, e: NewEvent): Promise<string> {
  const id = ids();
  await q.run(
    'INSERT INTO events (id, merchant_id, type, resource_id, charge_id, data, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    [id, e.merchantId, e.type, (e.data.id as string | undefined) ?? null, e.chargeId ?? null, JSON.stringify(e.data), e.at.toISOString()],
  );
  return id;
}
