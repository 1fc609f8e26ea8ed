import type { Migration } from './index.js';

/** [name, table, columns, partial-index condition]: every list index, ascending. */
const INDEXES: readonly (readonly [string, string, string, string?])[] = [
  ['api_keys_merchant', 'api_keys', 'merchant_id, created_at, id'],
  ['wallets_merchant', 'wallets', 'merchant_id, created_at, id'],
  ['submerchants_merchant', 'submerchants', 'parent_merchant_id, created_at, id'],
  ['events_merchant', 'events', 'merchant_id, created_at, id'],
  ['wallet_entries_wallet', 'wallet_entries', 'wallet_id, created_at, id'],
  ['charges_merchant', 'charges', 'merchant_id, created_at, id'],
  ['charges_merchant_status', 'charges', 'merchant_id, status, payment_method, created_at, id'],
  ['charges_submerchant', 'charges', 'submerchant_id, created_at, id', 'submerchant_id IS NOT NULL'],
  ['charges_payment_link', 'charges', 'payment_link_id, status', 'payment_link_id IS NOT NULL'],
  ['receivables_merchant', 'receivables', 'merchant_id, created_at, id'],
  ['anticipations_merchant', 'anticipations', 'merchant_id, created_at, id'],
  ['withdrawals_merchant', 'withdrawals', 'merchant_id, created_at, id'],
  ['withdrawals_merchant_status', 'withdrawals', 'merchant_id, status, created_at, id'],
  ['withdrawals_submerchant', 'withdrawals', 'submerchant_id, created_at, id', 'submerchant_id IS NOT NULL'],
  ['recipients_merchant', 'recipients', 'merchant_id, created_at, id'],
  ['recipients_owner', 'recipients', 'owner_id, created_at, id'],
  ['payment_links_merchant', 'payment_links', 'merchant_id, created_at, id'],
  ['payment_links_merchant_status', 'payment_links', 'merchant_id, status, created_at, id'],
  ['payment_links_submerchant', 'payment_links', 'submerchant_id, created_at, id', 'submerchant_id IS NOT NULL'],
  ['submerchant_addresses_owner', 'submerchant_addresses', 'submerchant_id, created_at, id'],
  ['legal_representatives_owner', 'legal_representatives', 'submerchant_id, created_at, id'],
  ['submerchant_documents_owner', 'submerchant_documents', 'submerchant_id, created_at, id'],
  ['files_merchant', 'files', 'merchant_id, created_at, key'],
  ['files_submerchant', 'files', 'submerchant_id, created_at, key', 'submerchant_id IS NOT NULL'],
  ['webhook_endpoints_merchant', 'webhook_endpoints', 'merchant_id, created_at, id'],
  ['webhook_logs_merchant', 'webhook_delivery_logs', 'merchant_id, created_at, id'],
  ['webhook_logs_status', 'webhook_delivery_logs', 'merchant_id, status, created_at, id'],
  ['webhook_logs_event_name', 'webhook_delivery_logs', 'merchant_id, event_name, created_at, id'],
  ['webhook_logs_endpoint', 'webhook_delivery_logs', 'webhook_endpoint_id, created_at, id'],
  ['webhook_logs_charge', 'webhook_delivery_logs', 'merchant_id, charge_id, created_at, id'],
];

/**
 * Indexes that a new row appends to.
 *
 * The lists' indexes were declared `(…, created_at DESC, id DESC)`, the order the lists read
 * them in (the charges', the events', the webhook deliveries' and every other list's). But a new row has the newest created_at and id, so in a DESC index it goes at the
 * front of its merchant's entries, not at the end: every insert lands on the left edge of a
 * leaf, which SQLite splits by rebalancing it with its siblings (pages half empty, three or
 * four pages rewritten per split). Declared ascending, the new entry is the last of its range
 * and the page fills before it splits; SQLite (and PostgreSQL) read an index backwards for
 * `ORDER BY created_at DESC, id DESC` at the same cost, so the lists' plans are unchanged
 * (test/store/indexes.test.ts pins them).
 *
 * The indexes by submerchant (of charges, withdrawals, payment links, files) and by payment
 * link held an entry for every row, the rows with none under NULL. They are only ever
 * searched by `submerchant_id = ?` and `payment_link_id = ?`, so they now hold only the rows
 * that have one.
 *
 * A POST /v1/charges (card) writes 57 pages of WAL per group commit of ~13 transactions with
 * these indexes, 75 with indexes over every row (bench:server; docs/performance.md, "Design
 * choices").
 */
export const m570_append_indexes: Migration = {
  version: 570,
  name: 'indexes that new rows append to',
  sql: () =>
    INDEXES.map(([name, table, cols, where]) => `DROP INDEX ${name};\nCREATE INDEX ${name} ON ${table} (${cols})${where ? ` WHERE ${where}` : ''};`).join('\n'),
};
