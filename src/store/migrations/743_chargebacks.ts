import type { Migration } from './index.js';

/**
 * Chargebacks (docs/api.md, "Chargebacks"): one row per dispute of a captured card charge,
 * with what each liable party gave back (`liabilities`, JSON) and the evidence of a contest
 * (JSON); `next_action_at` is when due work moves it next (an open one past evidence_due_at is
 * lost, one under review is decided), NULL once it is closed. The charge keeps the running
 * total of what is disputed and not won (`disputed_amount`).
 *
 * `chargeback_schedule`: the sandbox's magic cards (src/domain/sandbox.ts) whose captured
 * charges are disputed a set number of days later, one row per charge until due work opens
 * its chargeback.
 */
export const m743_chargebacks: Migration = {
  version: 743,
  name: 'chargebacks and their sandbox schedule',
  sql: () => `
ALTER TABLE charges ADD COLUMN disputed_amount BIGINT NOT NULL DEFAULT 0;
CREATE TABLE chargebacks (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  charge_id TEXT NOT NULL REFERENCES charges(id),
  amount BIGINT NOT NULL CHECK (amount > 0),
  currency TEXT NOT NULL,
  reason TEXT NOT NULL,
  status TEXT NOT NULL,
  evidence_due_at TEXT NOT NULL,
  evidence TEXT,
  decision_due_at TEXT,
  fee_amount BIGINT NOT NULL DEFAULT 0,
  liabilities TEXT NOT NULL,
  next_action_at TEXT,
  closed_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX chargebacks_merchant ON chargebacks (merchant_id, created_at, id);
CREATE INDEX chargebacks_merchant_status ON chargebacks (merchant_id, status, created_at, id);
CREATE INDEX chargebacks_charge ON chargebacks (charge_id, created_at, id);
CREATE INDEX chargebacks_due ON chargebacks (merchant_id, next_action_at) WHERE next_action_at IS NOT NULL;

CREATE TABLE chargeback_schedule (
  charge_id TEXT PRIMARY KEY REFERENCES charges(id),
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  reason TEXT NOT NULL,
  due_at TEXT NOT NULL
);
CREATE INDEX chargeback_schedule_due ON chargeback_schedule (merchant_id, due_at);
`,
};
