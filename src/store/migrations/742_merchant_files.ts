import type { Migration } from './index.js';

/**
 * A merchant uploads files of its own (POST /v1/files: chargeback evidence), not only for a
 * submerchant: `files.submerchant_id` may be NULL. SQLite cannot drop a NOT NULL in place: the
 * table (which no foreign key points at) is rebuilt without it, with its indexes.
 */
export const m742_merchant_files: Migration = {
  version: 742,
  name: "uploads of the merchant's own",
  sql: (dialect) =>
    dialect === 'postgres'
      ? `
ALTER TABLE files ALTER COLUMN submerchant_id DROP NOT NULL;
`
      : `
CREATE TABLE files_next (
  key TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  submerchant_id TEXT REFERENCES submerchants(id),
  file_name TEXT NOT NULL,
  size BIGINT NOT NULL,
  mime TEXT NOT NULL,
  path TEXT NOT NULL,
  created_at TEXT NOT NULL,
  attached_at TEXT
);
INSERT INTO files_next (key, merchant_id, submerchant_id, file_name, size, mime, path, created_at, attached_at)
  SELECT key, merchant_id, submerchant_id, file_name, size, mime, path, created_at, attached_at FROM files;
DROP TABLE files;
ALTER TABLE files_next RENAME TO files;
CREATE INDEX files_merchant ON files (merchant_id, created_at, key);
CREATE INDEX files_submerchant ON files (submerchant_id, created_at, key) WHERE submerchant_id IS NOT NULL;
CREATE INDEX files_unattached ON files (merchant_id, created_at) WHERE attached_at IS NULL;
`,
};
