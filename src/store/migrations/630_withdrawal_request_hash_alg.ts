import type { Migration } from './index.js';

/**
 * Which function made a withdrawal's `request_hash`: `sha256` (a plain SHA-256 of the
 * canonical request, what every row written before this column holds and what a replica of an
 * older version still writes) or `hmac-sha256` (that digest keyed with the master key). The
 * server keys the `sha256` rows when it opens the store (the partial index finds them) and
 * compares each row with the function it names.
 */
export const m630_withdrawal_request_hash_alg: Migration = {
  version: 630,
  name: 'withdrawals say how their request hash was made',
  sql: () => `
ALTER TABLE withdrawals ADD COLUMN request_hash_alg TEXT NOT NULL DEFAULT 'sha256' CHECK (request_hash_alg IN ('sha256', 'hmac-sha256'));
CREATE INDEX withdrawals_unkeyed_request_hash ON withdrawals (id) WHERE request_hash_alg = 'sha256';
`,
};
