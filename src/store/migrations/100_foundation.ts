import type { Migration } from './index.js';

export const m100_foundation: Migration = {
  version: 100,
  name: 'foundation: merchants, api keys, wallets, card tokens, idempotency, outbox',
  sql: () => `
CREATE TABLE merchants (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  pin_hash TEXT,
  clock_offset_ms BIGINT NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  name TEXT NOT NULL,
  public_key TEXT NOT NULL UNIQUE,
  secret_hash TEXT NOT NULL,
  is_active INTEGER NOT NULL DEFAULT 1,
  allowed_ips TEXT NOT NULL DEFAULT '[]',
  created_at TEXT NOT NULL,
  revoked_at TEXT
);
CREATE INDEX api_keys_merchant ON api_keys (merchant_id, created_at DESC, id DESC);

CREATE TABLE wallets (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  owner_type TEXT NOT NULL,
  owner_id TEXT NOT NULL,
  currency TEXT NOT NULL DEFAULT 'BRL',
  balance BIGINT NOT NULL DEFAULT 0 CHECK (balance >= 0),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (owner_type, owner_id, currency)
);
CREATE INDEX wallets_merchant ON wallets (merchant_id, created_at DESC, id DESC);

CREATE TABLE card_tokens (
  token TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  fingerprint TEXT NOT NULL,
  brand TEXT NOT NULL,
  first_six TEXT NOT NULL,
  last_four TEXT NOT NULL,
  exp_month TEXT NOT NULL,
  exp_year TEXT NOT NULL,
  encrypted TEXT NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (merchant_id, fingerprint)
);

CREATE TABLE idempotency_keys (
  merchant_id TEXT NOT NULL,
  key TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  state TEXT NOT NULL,
  status_code INTEGER,
  response_body TEXT,
  locked_until TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  PRIMARY KEY (merchant_id, key)
);
CREATE INDEX idempotency_expiry ON idempotency_keys (expires_at);

-- Submerchants live here because money (split charges, wallets) and onboarding both use them.
CREATE TABLE submerchants (
  id TEXT PRIMARY KEY,
  parent_merchant_id TEXT NOT NULL REFERENCES merchants(id),
  entity_type TEXT NOT NULL,
  trade_name TEXT NOT NULL,
  legal_name TEXT NOT NULL,
  tax_id TEXT NOT NULL,
  email TEXT NOT NULL,
  phone TEXT,
  website TEXT,
  description TEXT,
  soft_descriptor TEXT,
  birth_date TEXT,
  mother_name TEXT,
  status TEXT NOT NULL DEFAULT 'pending',
  business_type TEXT,
  product_categories TEXT NOT NULL DEFAULT '[]',
  average_ticket BIGINT,
  monthly_revenue BIGINT,
  reviewed_at TEXT,
  review_notes TEXT,
  mcc TEXT,
  cnaes TEXT NOT NULL DEFAULT '[]',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX submerchants_merchant ON submerchants (parent_merchant_id, created_at DESC, id DESC);
CREATE INDEX submerchants_tax_id ON submerchants (parent_merchant_id, tax_id);

CREATE TABLE events (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  type TEXT NOT NULL,
  resource_id TEXT,
  charge_id TEXT,
  data TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX events_merchant ON events (merchant_id, created_at DESC, id DESC);
`,
};
