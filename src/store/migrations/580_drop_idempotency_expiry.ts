import type { Migration } from './index.js';

/**
 * The Idempotency-Keys' index by expiry alone (migration 100) lost its last reader when the purge
 * became a merchant's own, before its requests (migration 530: by merchant and expiry); it was
 * still written by every keyed request: a b-tree more in each POST's insert, and its rightmost
 * page rewritten by every group commit.
 */
export const m580_drop_idempotency_expiry: Migration = {
  version: 580,
  name: 'drop the unused index of idempotency keys by expiry',
  sql: () => 'DROP INDEX idempotency_expiry;',
};
