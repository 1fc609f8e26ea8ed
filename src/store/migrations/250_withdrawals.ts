import type { Migration } from './index.js';

export const m250_withdrawals: Migration = {
  version: 250,
  name: 'withdrawals and the merchant transaction PIN lockout',
  sql: () => `
ALTER TABLE merchants ADD COLUMN pin_failed_attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE merchants ADD COLUMN pin_locked_until TEXT;

CREATE TABLE withdrawals (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  submerchant_id TEXT REFERENCES submerchants(id),
  wallet_id TEXT NOT NULL REFERENCES wallets(id),
  type TEXT NOT NULL CHECK (type IN ('pix', 'ted', 'cryptocurrency')),
  acquirer_name TEXT NOT NULL,
  external_id TEXT,
  amount BIGINT NOT NULL CHECK (amount > 0),
  fee BIGINT NOT NULL CHECK (fee >= 0),
  net_amount BIGINT NOT NULL CHECK (net_amount > 0 AND net_amount = amount - fee),
  status TEXT NOT NULL CHECK (status IN ('pending', 'processing', 'completed', 'failed')),
  recipient_id TEXT,
  recipient_snapshot TEXT NOT NULL,
  failure_reason TEXT,
  processed_at TEXT,
  completed_at TEXT,
  failed_at TEXT,
  -- when the sandbox rail's next move comes due (merchant clock); NULL once final
  next_action_at TEXT,
  metadata TEXT NOT NULL DEFAULT '{}',
  idempotency_key TEXT NOT NULL,
  -- hash of the canonical request (without the PIN), to tell a retry from a different request
  request_hash TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (merchant_id, idempotency_key)
);
CREATE INDEX withdrawals_merchant ON withdrawals (merchant_id, created_at DESC, id DESC);
CREATE INDEX withdrawals_merchant_status ON withdrawals (merchant_id, status, created_at DESC, id DESC);
CREATE INDEX withdrawals_submerchant ON withdrawals (submerchant_id, created_at DESC, id DESC);
CREATE INDEX withdrawals_due ON withdrawals (next_action_at);
CREATE INDEX withdrawals_merchant_due ON withdrawals (merchant_id, next_action_at);
`,
};
