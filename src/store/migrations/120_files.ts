import type { Migration } from './index.js';

/**
 * Uploaded files kept in the database (DbFileStore, the default on PostgreSQL). The only column
 * type the engines name differently: bytes are BLOB in SQLite and BYTEA in PostgreSQL.
 */
export const m120_files: Migration = {
  version: 120,
  name: 'file_blobs: uploaded bytes stored in the database',
  sql: (dialect) => `
CREATE TABLE file_blobs (
  key TEXT PRIMARY KEY,
  content_type TEXT NOT NULL,
  size BIGINT NOT NULL CHECK (size >= 0),
  data ${dialect === 'postgres' ? 'BYTEA' : 'BLOB'} NOT NULL,
  created_at TEXT NOT NULL
);
`,
};
