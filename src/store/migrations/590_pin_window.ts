import type { Migration } from './index.js';

/**
 * The PIN lockout becomes a window of attempts: `pin_failed_attempts` counts the PINs compared
 * (and being compared) since the window opened, `pin_window_ends` is when it closes. A lock in
 * force keeps its end and is counted full.
 */
export const m590_pin_window: Migration = {
  version: 590,
  name: 'the transaction PIN counts attempts in a window',
  sql: () => `
ALTER TABLE merchants RENAME COLUMN pin_locked_until TO pin_window_ends;
UPDATE merchants SET pin_failed_attempts = 5 WHERE pin_window_ends IS NOT NULL;
`,
};
