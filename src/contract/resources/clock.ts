import * as z from 'zod';
import { endpoint, type CliPresentation } from '../endpoint.js';
import { timestamp } from '../common.js';

export const clockAdvance = z.strictObject({
  days: z.int({ error: 'must be a whole number of days' }).min(1, { error: 'must be at least 1' }).max(3650, { error: 'must be at most 3650' }),
});

export const sandboxClock = z.object({
  clock: timestamp().describe("the merchant's clock after the move"),
  offset_days: z.number().describe('how far the clock is ahead of real time, in days'),
  advanced_days: z.int(),
});

/** How the CLI presents this resource (src/contract/presentation.ts). */
export const clockPresentation: CliPresentation = {
  fields: {
    days: 'how far to move the sandbox clock',
  },
};

export const clockEndpoints = [
  endpoint({
    id: 'sandbox.clockAdvance',
    method: 'POST',
    path: '/v1/sandbox/clock/advance',
    summary: "Sandbox: move the merchant's clock forward; due settlements and expirations run at once",
    auth: 'secret',
    body: clockAdvance,
    response: sandboxClock,
    status: 200,
    sandbox: true,
    message: 'Sandbox clock advanced',
    tag: 'Sandbox',
    cli: { command: ['sandbox', 'advance'], example: 'mpay sandbox advance --days 30', columns: ['clock', 'offset_days', 'advanced_days'] },
  }),
] as const;
