import type { clockEndpoints } from '../../contract/resources/clock.js';
import { DAY_MS } from '../../domain/fees.js';
import type { Handlers } from '../context.js';
import { advanceClock } from '../due.js';

export const clockHandlers: Handlers<typeof clockEndpoints> = {
  /** Moves the merchant's sandbox clock, then runs everything that came due, to the end. */
  'sandbox.clockAdvance': async (ctx, { body }) => {
    const offset = await advanceClock(ctx, body.days);
    return {
      clock: new Date(ctx.deps.clock.now().getTime() + offset).toISOString(),
      offset_days: Math.round((offset / DAY_MS) * 1000) / 1000,
      advanced_days: body.days,
    };
  },
};
