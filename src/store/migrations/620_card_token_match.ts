import type { Migration } from './index.js';

/**
 * A card token is reused only for the very card data it holds. `card_key` is a keyed hash
 * (HMAC) of the number, holder name and expiry together, unique per merchant: the same card
 * tokenized again with the same data finds its token, and a tokenization with other data
 * makes a token of its own instead of rewriting one. `fingerprint` (the HMAC of the number
 * alone) stays on every token but is no longer unique: two tokens of one number share it.
 * Tokens written before have no `card_key` (it needs the keyring, which SQL has not) and are
 * never matched: tokenizing such a card again makes a new token.
 */
export const m620_card_token_match: Migration = {
  version: 620,
  name: 'card tokens are matched by all their card data',
  sql: (dialect) =>
    dialect === 'postgres'
      ? `
ALTER TABLE card_tokens DROP CONSTRAINT card_tokens_merchant_id_fingerprint_key;
ALTER TABLE card_tokens ADD COLUMN card_key TEXT;
CREATE UNIQUE INDEX card_tokens_card_key ON card_tokens (merchant_id, card_key);
`
      : // SQLite cannot drop a table's UNIQUE constraint: the table is rebuilt without it
        `
CREATE TABLE card_tokens_next (
  token TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  fingerprint TEXT NOT NULL,
  card_key TEXT,
  brand TEXT NOT NULL,
  first_six TEXT NOT NULL,
  last_four TEXT NOT NULL,
  exp_month TEXT NOT NULL,
  exp_year TEXT NOT NULL,
  encrypted TEXT NOT NULL,
  created_at TEXT NOT NULL
);
INSERT INTO card_tokens_next (token, merchant_id, fingerprint, brand, first_six, last_four, exp_month, exp_year, encrypted, created_at)
  SELECT token, merchant_id, fingerprint, brand, first_six, last_four, exp_month, exp_year, encrypted, created_at FROM card_tokens;
DROP TABLE card_tokens;
ALTER TABLE card_tokens_next RENAME TO card_tokens;
CREATE UNIQUE INDEX card_tokens_card_key ON card_tokens (merchant_id, card_key);
`,
};
