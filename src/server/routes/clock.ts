import type { clockEndpoints } from '../../contract/resources/clock.js';
import { DAY_MS } from '../../domain/fees.js';
import type { Handlers } from '../context.js';
import { runDueWork } from '../due.js';

export const clockHandlers: Handlers<typeof clockEndpoints> = {
  /** Moves the merchant's sandbox clock, then runs everything that came due, to the end. */
  'sandbox.clockAdvance': async (ctx, { body }) => {
    const ts = ctx.deps.clock.now().toISOString();
    const row = await ctx.db.tx((q) =>
      q.get<{ clock_offset_ms: number }>('UPDATE merchants SET clock_offset_ms = clock_offset_ms + ?, updated_at = ? WHERE id = ? RETURNING clock_offset_ms', [
        body.days * DAY_MS,
        ts,
        ctx.merchantId,
      ]),
    );
    const offset = Number(row!.clock_offset_ms);
    await runDueWork(ctx.deps, ctx.merchantId);
    return {
      clock: new Date(ctx.deps.clock.now().getTime() + offset).toISOString(),
      offset_days: Math.round((offset / DAY_MS) * 1000) / 1000,
      advanced_days: body.days,
    };
  },
};
