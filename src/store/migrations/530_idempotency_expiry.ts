import type { Migration } from './index.js';

/**
 * The due work purges a merchant's expired Idempotency-Keys before its requests
 * (src/server/idempotency.ts, purgeExpiredKeys): an index by (merchant, expiry) makes that a
 * seek instead of a read of every key the merchant holds.
 */
export const m530_idempotency_expiry: Migration = {
  version: 530,
  name: 'idempotency keys by merchant and expiry',
  sql: () => `CREATE INDEX idempotency_merchant_expiry ON idempotency_keys (merchant_id, expires_at);`,
};
