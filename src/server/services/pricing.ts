/**
 * Whose prices a merchant pays: the server's pricing (`deps.pricing`: the defaults, or
 * `--pricing FILE` / MPAY_PRICING) with the merchant's override (`merchants.pricing`) laid over
 * it, field by field (src/domain/pricing.ts `effectivePricing`). New charges are priced
 * by it and record the rates they used; withdrawals pay its fees when they are made.
 */
import type { ErrorDetail } from '../../contract/errors.js';
import { parsePricing, pricingProblems } from '../../contract/resources/pricing.js';
import { effectivePricing, type Pricing } from '../../domain/pricing.js';
import type { Db } from '../../store/db.js';

/** A merchant's pricing as the admin commands show it: its override (null for none) and the effective pricing. */
export interface MerchantPricing {
  merchant_id: string;
  override: Record<string, unknown> | null;
  pricing: Pricing;
}

/** An override that does not check out: what is wrong, field by field. */
export class PricingError extends Error {
  constructor(readonly details: ErrorDetail[]) {
    super(pricingProblems(details));
  }
}

/** A merchant's override and effective pricing over the server's `server` pricing; null for no such merchant. */
export async function getMerchantPricing(db: Db, server: Pricing, merchantId: string): Promise<MerchantPricing | null> {
  const m = await db.get<{ id: string; pricing: string | null }>('SELECT id, pricing FROM merchants WHERE id = ?', [merchantId]);
  if (!m) return null;
  return { merchant_id: m.id, override: m.pricing ? (JSON.parse(m.pricing) as Record<string, unknown>) : null, pricing: effectivePricing(server, m.pricing) };
}

/**
 * Stores a merchant's override (a partial pricing document; `{}` removes it) once the pricing it
 * makes over `server` checks out; PricingError naming each bad field otherwise, and nothing is
 * written. Charges already made keep the rates they recorded. Null for no such merchant.
 */
export async function setMerchantPricing(db: Db, server: Pricing, merchantId: string, override: unknown, now: Date): Promise<MerchantPricing | null> {
  const checked = parsePricing(override, server);
  if (!checked.ok) throw new PricingError(checked.details);
  const doc = override as Record<string, unknown>;
  const stored = Object.keys(doc).length ? JSON.stringify(doc) : null;
  const r = await db.run('UPDATE merchants SET pricing = ?, updated_at = ? WHERE id = ?', [stored, now.toISOString(), merchantId]);
  if (r.changes === 0) return null;
  return { merchant_id: merchantId, override: stored ? doc : null, pricing: checked.pricing };
}
