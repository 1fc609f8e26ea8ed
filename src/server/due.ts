/**
 * Due work: time-based moves (settlements, PIX expiry, undecided card charges, and whatever
 * other resources register in `dueWork`) that come due on a merchant's clock. Each job runs
 * one bounded batch per call and returns how many items it moved. Before every authenticated
 * request the app runs each job once for the caller's merchant; `runDueWork` sweeps until
 * nothing is due (the sandbox clock advance, and a server-mode timer).
 */
import type { AppDeps, RequestContext } from './context.js';
import { dueWork } from './routes/index.js';

/** What a due job needs: the store, the deps, the merchant and its clock. */
export type DueContext = Pick<RequestContext, 'deps' | 'db' | 'merchantId' | 'now'>;
export type DueJob = (ctx: DueContext) => Promise<number | void>;

/** Items a job moves per call (each batch is one transaction). */
export const DUE_BATCH = 100;

export function dueContext(deps: AppDeps, merchantId: string, clockOffsetMs: number): DueContext {
  return { deps, db: deps.db, merchantId, now: () => new Date(deps.clock.now().getTime() + clockOffsetMs) };
}

/**
 * Runs every due job until none has anything left (at most `maxRounds` rounds per merchant),
 * for one merchant or for all of them. Returns the number of items moved.
 */
export async function runDueWork(deps: AppDeps, merchantId?: string, opts: { maxRounds?: number } = {}): Promise<number> {
  const merchants = merchantId
    ? await deps.db.all<{ id: string; clock_offset_ms: number }>('SELECT id, clock_offset_ms FROM merchants WHERE id = ?', [merchantId])
    : await deps.db.all<{ id: string; clock_offset_ms: number }>('SELECT id, clock_offset_ms FROM merchants ORDER BY id');
  let moved = 0;
  for (const m of merchants) {
    const ctx = dueContext(deps, m.id, Number(m.clock_offset_ms));
    for (let round = 0; round < (opts.maxRounds ?? 1000); round++) {
      let more = false;
      for (const job of dueWork) {
        const n = await job(ctx);
        if (typeof n === 'number' && n > 0) {
          moved += n;
          more = true;
        }
      }
      if (!more) break;
    }
  }
  return moved;
}
