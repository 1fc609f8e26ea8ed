import type { Migration } from './index.js';

export const m110_meta: Migration = {
  version: 110,
  name: 'meta: facts about this data directory (the sandbox merchant of the embedded default)',
  sql: () => `
CREATE TABLE meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
`,
};
