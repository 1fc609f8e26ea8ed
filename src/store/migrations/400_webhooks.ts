import type { Migration } from './index.js';

/**
 * Webhooks: endpoints (secret encrypted with the keyring, never stored in clear), one
 * delivery per (event, endpoint) — the unit that is scheduled, leased and retried — and one
 * log record per attempt. `events.dispatched_at` marks the outbox rows already fanned out.
 */
export const m400_webhooks: Migration = {
  version: 400,
  name: 'webhooks: endpoints, deliveries, delivery log, outbox dispatch mark',
  sql: () => `
CREATE TABLE webhook_endpoints (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  url TEXT NOT NULL,
  secret_enc TEXT NOT NULL,
  events TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
  disabled_reason TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT
);
CREATE INDEX webhook_endpoints_merchant ON webhook_endpoints (merchant_id, created_at DESC, id DESC);
CREATE INDEX webhook_endpoints_active ON webhook_endpoints (merchant_id, status);

ALTER TABLE events ADD COLUMN dispatched_at TEXT;
CREATE INDEX events_undispatched ON events (created_at, id) WHERE dispatched_at IS NULL;

CREATE TABLE webhook_deliveries (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  event_id TEXT NOT NULL REFERENCES events(id),
  endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints(id),
  event_type TEXT NOT NULL,
  charge_id TEXT,
  state TEXT NOT NULL CHECK (state IN ('scheduled', 'delivered', 'failed', 'cancelled')),
  attempts INTEGER NOT NULL DEFAULT 0,
  max_attempts INTEGER NOT NULL,
  origin_at TEXT NOT NULL,
  next_attempt_at TEXT,
  lease_owner TEXT,
  lease_until TEXT,
  lease_log_id TEXT,
  pending_log_id TEXT,
  delivered_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (event_id, endpoint_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (state, next_attempt_at);
CREATE INDEX webhook_deliveries_merchant_due ON webhook_deliveries (merchant_id, state, next_attempt_at);
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, state);

CREATE TABLE webhook_delivery_logs (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  delivery_id TEXT NOT NULL REFERENCES webhook_deliveries(id),
  webhook_endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints(id),
  event_id TEXT NOT NULL,
  charge_id TEXT,
  event_name TEXT NOT NULL,
  postback_url TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  attempt INTEGER NOT NULL,
  max_attempts INTEGER NOT NULL,
  response_status_code INTEGER,
  response_body TEXT,
  error_message TEXT,
  next_retry_at TEXT,
  delivered_at TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX webhook_logs_merchant ON webhook_delivery_logs (merchant_id, created_at DESC, id DESC);
CREATE INDEX webhook_logs_status ON webhook_delivery_logs (merchant_id, status, created_at DESC, id DESC);
CREATE INDEX webhook_logs_event_name ON webhook_delivery_logs (merchant_id, event_name, created_at DESC, id DESC);
CREATE INDEX webhook_logs_endpoint ON webhook_delivery_logs (webhook_endpoint_id, created_at DESC, id DESC);
CREATE INDEX webhook_logs_charge ON webhook_delivery_logs (merchant_id, charge_id, created_at DESC, id DESC);
CREATE INDEX webhook_logs_delivery ON webhook_delivery_logs (delivery_id, attempt);
`,
};
