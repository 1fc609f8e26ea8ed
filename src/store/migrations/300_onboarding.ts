import type { Migration } from './index.js';

/**
 * Onboarding: a submerchant's addresses, legal representatives (partners), documents and
 * uploaded files. Every child row carries merchant_id so each read is scoped by it directly.
 */
export const m300_onboarding: Migration = {
  version: 300,
  name: 'onboarding: submerchant addresses, legal representatives, documents, files',
  sql: () => `
CREATE TABLE submerchant_addresses (
  id TEXT PRIMARY KEY,
  submerchant_id TEXT NOT NULL REFERENCES submerchants(id),
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  type TEXT NOT NULL,
  street TEXT NOT NULL,
  number TEXT NOT NULL,
  complement TEXT,
  neighborhood TEXT NOT NULL,
  city TEXT NOT NULL,
  state TEXT NOT NULL,
  zip_code TEXT NOT NULL,
  country TEXT NOT NULL DEFAULT 'BR',
  is_primary INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL
);
CREATE INDEX submerchant_addresses_owner ON submerchant_addresses (submerchant_id, created_at DESC, id DESC);
-- at most one primary address per submerchant
CREATE UNIQUE INDEX submerchant_addresses_primary ON submerchant_addresses (submerchant_id) WHERE is_primary = 1;

CREATE TABLE legal_representatives (
  id TEXT PRIMARY KEY,
  submerchant_id TEXT NOT NULL REFERENCES submerchants(id),
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  name TEXT NOT NULL,
  document TEXT NOT NULL,
  entity_type TEXT NOT NULL CHECK (entity_type IN ('pf', 'pj')),
  legal_name TEXT,
  birth_date TEXT,
  mother_name TEXT,
  email TEXT,
  phone TEXT,
  role TEXT NOT NULL,
  qualification TEXT,
  -- hundredths of a percent (0..10000), so sums are exact
  participation_bp BIGINT CHECK (participation_bp BETWEEN 0 AND 10000),
  is_admin INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (submerchant_id, document)
);
CREATE INDEX legal_representatives_owner ON legal_representatives (submerchant_id, created_at DESC, id DESC);

CREATE TABLE submerchant_documents (
  id TEXT PRIMARY KEY,
  submerchant_id TEXT NOT NULL REFERENCES submerchants(id),
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  legal_representative_id TEXT REFERENCES legal_representatives(id),
  type TEXT NOT NULL,
  notes TEXT,
  number TEXT,
  file_url TEXT NOT NULL,
  file_name TEXT NOT NULL,
  file_size BIGINT NOT NULL,
  mime_type TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending',
  replaced_by TEXT,
  verified_at TEXT,
  verification_notes TEXT,
  expires_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX submerchant_documents_owner ON submerchant_documents (submerchant_id, created_at DESC, id DESC);
CREATE INDEX submerchant_documents_current ON submerchant_documents (submerchant_id, type, legal_representative_id, status);

CREATE TABLE files (
  key TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  submerchant_id TEXT NOT NULL REFERENCES submerchants(id),
  file_name TEXT NOT NULL,
  size BIGINT NOT NULL,
  mime TEXT NOT NULL,
  -- relative to the data directory
  path TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX files_merchant ON files (merchant_id, created_at DESC, key DESC);
CREATE INDEX files_submerchant ON files (submerchant_id, created_at DESC, key DESC);
`,
};
