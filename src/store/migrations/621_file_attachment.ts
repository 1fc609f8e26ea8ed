import type { Migration } from './index.js';

/**
 * An upload is attached once a document points at it: `attached_at` is set in the document's
 * transaction. Uploads never attached are removed after the retention (src/server/uploadLimits.ts),
 * found through a partial index that holds only them, by merchant and age. Uploads that a
 * document of their merchant already names (by its key in `file_url`, however spelled) count
 * as attached from their upload.
 */
export const m621_file_attachment: Migration = {
  version: 621,
  name: 'uploads record when a document attached them',
  sql: () => `
ALTER TABLE files ADD COLUMN attached_at TEXT;
UPDATE files SET attached_at = created_at
 WHERE EXISTS (SELECT 1 FROM submerchant_documents d WHERE d.merchant_id = files.merchant_id AND d.file_url LIKE '%' || files.key || '%');
CREATE INDEX files_unattached ON files (merchant_id, created_at) WHERE attached_at IS NULL;
`,
};
