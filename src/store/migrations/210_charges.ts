import type { Migration } from './index.js';

export const m210_charges: Migration = {
  version: 210,
  name: 'charges, receivables, anticipations',
  sql: () => `
CREATE TABLE charges (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  submerchant_id TEXT REFERENCES submerchants(id),
  amount BIGINT NOT NULL CHECK (amount > 0),
  shipping_amount BIGINT NOT NULL DEFAULT 0,
  currency TEXT NOT NULL,
  status TEXT NOT NULL,
  payment_method TEXT NOT NULL,
  product_type TEXT NOT NULL,
  installments INTEGER NOT NULL,
  customer TEXT NOT NULL,
  items TEXT NOT NULL,
  split_rules TEXT NOT NULL,
  parties TEXT NOT NULL,
  metadata TEXT,
  card_token TEXT,
  card_brand TEXT,
  card_first_six TEXT,
  card_last_four TEXT,
  card_holder_name TEXT,
  pix_qr_code TEXT,
  pix_expires_at TEXT,
  fee_amount BIGINT,
  net_amount BIGINT,
  failure_code TEXT,
  failure_reason TEXT,
  captured_at TEXT,
  failed_at TEXT,
  refunded_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX charges_merchant ON charges (merchant_id, created_at DESC, id DESC);
CREATE INDEX charges_merchant_status ON charges (merchant_id, status, payment_method, created_at DESC, id DESC);
CREATE INDEX charges_submerchant ON charges (submerchant_id, created_at DESC, id DESC);

CREATE TABLE receivables (
  id TEXT PRIMARY KEY,
  charge_id TEXT NOT NULL REFERENCES charges(id),
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  submerchant_id TEXT REFERENCES submerchants(id),
  wallet_id TEXT NOT NULL REFERENCES wallets(id),
  gross_amount BIGINT NOT NULL CHECK (gross_amount > 0),
  fee_amount BIGINT NOT NULL CHECK (fee_amount >= 0),
  net_amount BIGINT NOT NULL CHECK (net_amount > 0),
  status TEXT NOT NULL,
  payment_method TEXT NOT NULL,
  installment INTEGER NOT NULL,
  installments INTEGER NOT NULL,
  settlement_date TEXT NOT NULL,
  paid_at TEXT,
  anticipation_id TEXT,
  anticipation_fee_amount BIGINT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX receivables_merchant ON receivables (merchant_id, created_at DESC, id DESC);
CREATE INDEX receivables_due ON receivables (merchant_id, status, settlement_date);
CREATE INDEX receivables_charge ON receivables (charge_id);
CREATE INDEX receivables_wallet ON receivables (wallet_id, status, settlement_date);

CREATE TABLE anticipations (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  submerchant_id TEXT REFERENCES submerchants(id),
  wallet_id TEXT NOT NULL REFERENCES wallets(id),
  status TEXT NOT NULL,
  anticipation_type TEXT NOT NULL,
  requested_amount BIGINT,
  receivable_ids TEXT NOT NULL,
  total_gross_amount BIGINT NOT NULL,
  total_fee_amount BIGINT NOT NULL,
  total_net_amount BIGINT NOT NULL,
  refusal_reason TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX anticipations_merchant ON anticipations (merchant_id, created_at DESC, id DESC);
`,
};
