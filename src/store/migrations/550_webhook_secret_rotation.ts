import type { Migration } from './index.js';

/**
 * Webhook secret rotation: the secret a rotation replaced, encrypted like the
 * current one, and until when deliveries are signed with it too.
 */
export const m550_webhook_secret_rotation: Migration = {
  version: 550,
  name: 'webhook secret rotation',
  sql: () => `
ALTER TABLE webhook_endpoints ADD COLUMN previous_secret_enc TEXT;
ALTER TABLE webhook_endpoints ADD COLUMN previous_secret_expires_at TEXT;
`,
};
