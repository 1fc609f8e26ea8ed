import type { Migration } from './index.js';

/**
 * Per-merchant counts of charges by status and payment method, kept exact by triggers in the
 * same transaction as every insert, status change or delete of a charge (whoever writes it),
 * so `GET /v1/charges` answers `pagination.total` without counting rows (docs/api.md,
 * "Charge lists at scale"). Backfilled from the rows present when it is applied.
 */
export const m510_charge_counts: Migration = {
  version: 510,
  name: 'charge counts and PIX expiry index',
  sql: (dialect) => {
    const table = `
CREATE TABLE charge_counts (
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  status TEXT NOT NULL,
  payment_method TEXT NOT NULL,
  n BIGINT NOT NULL,
  PRIMARY KEY (merchant_id, status, payment_method)
);
INSERT INTO charge_counts (merchant_id, status, payment_method, n)
  SELECT merchant_id, status, payment_method, COUNT(*) FROM charges GROUP BY merchant_id, status, payment_method;
-- the due work's PIX expiry query (before every request) seeks by expiry instead of reading
-- every pending PIX charge of the merchant
CREATE INDEX charges_pix_expiry ON charges (merchant_id, pix_expires_at) WHERE status = 'pending' AND payment_method = 'pix';
`;
    const bump = (row: 'NEW' | 'OLD', d: '+ 1' | '- 1') =>
      `INSERT INTO charge_counts (merchant_id, status, payment_method, n) VALUES (${row}.merchant_id, ${row}.status, ${row}.payment_method, ${d === '+ 1' ? 1 : -1})
    ON CONFLICT (merchant_id, status, payment_method) DO UPDATE SET n = charge_counts.n ${d};`;
    if (dialect === 'postgres') {
      return `${table}
CREATE FUNCTION charge_counts_maintain() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    ${bump('OLD', '- 1')}
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    ${bump('NEW', '+ 1')}
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER charge_counts_insert AFTER INSERT ON charges FOR EACH ROW EXECUTE FUNCTION charge_counts_maintain();
CREATE TRIGGER charge_counts_update AFTER UPDATE OF status, payment_method, merchant_id ON charges FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.payment_method IS DISTINCT FROM NEW.payment_method OR OLD.merchant_id IS DISTINCT FROM NEW.merchant_id)
  EXECUTE FUNCTION charge_counts_maintain();
CREATE TRIGGER charge_counts_delete AFTER DELETE ON charges FOR EACH ROW EXECUTE FUNCTION charge_counts_maintain();
`;
    }
    return `${table}
CREATE TRIGGER charge_counts_insert AFTER INSERT ON charges BEGIN
  ${bump('NEW', '+ 1')}
END;
CREATE TRIGGER charge_counts_update AFTER UPDATE OF status, payment_method, merchant_id ON charges
  WHEN OLD.status IS NOT NEW.status OR OLD.payment_method IS NOT NEW.payment_method OR OLD.merchant_id IS NOT NEW.merchant_id
BEGIN
  ${bump('OLD', '- 1')}
  ${bump('NEW', '+ 1')}
END;
CREATE TRIGGER charge_counts_delete AFTER DELETE ON charges BEGIN
  ${bump('OLD', '- 1')}
END;
`;
  },
};
