import type { Migration } from './index.js';

export const m270_payment_links: Migration = {
  version: 270,
  name: 'payment links',
  sql: () => `
CREATE TABLE payment_links (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  submerchant_id TEXT REFERENCES submerchants(id),
  title TEXT NOT NULL,
  description TEXT,
  amount BIGINT CHECK (amount IS NULL OR amount > 0),
  currency TEXT NOT NULL DEFAULT 'BRL',
  product_type TEXT NOT NULL,
  allowed_payment_methods TEXT NOT NULL,
  max_installments INTEGER NOT NULL DEFAULT 1 CHECK (max_installments BETWEEN 1 AND 12),
  expires_at TEXT,
  max_uses BIGINT CHECK (max_uses IS NULL OR max_uses > 0),
  current_uses BIGINT NOT NULL DEFAULT 0 CHECK (current_uses >= 0),
  status TEXT NOT NULL CHECK (status IN ('active', 'inactive', 'expired', 'exhausted')),
  redirect_url TEXT,
  cover_image_url TEXT,
  primary_color TEXT,
  summary_color TEXT,
  logo_url TEXT,
  metadata TEXT NOT NULL DEFAULT '{}',
  created_by TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX payment_links_merchant ON payment_links (merchant_id, created_at DESC, id DESC);
CREATE INDEX payment_links_merchant_status ON payment_links (merchant_id, status, created_at DESC, id DESC);
CREATE INDEX payment_links_submerchant ON payment_links (submerchant_id, created_at DESC, id DESC);
CREATE INDEX payment_links_expiry ON payment_links (merchant_id, expires_at);
`,
};
