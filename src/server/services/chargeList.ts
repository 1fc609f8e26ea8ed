/**
 * Reading a merchant's charges: one by id, a charge's refunds, and GET /v1/charges at scale
 * (docs/api.md, "Charge lists at scale"):
 *  - `total`: for filters on status and payment method only (or none), the sum of the
 *    per-merchant counters in `charge_counts` (kept exact by triggers); with a submerchant or
 *    a date filter, an exact COUNT(*) over the matching index range.
 *  - the page: a keyset seek from the last row of the page before when this process served
 *    that page and no charge of the merchant was added, removed or changed status since
 *    (the counters are the version); otherwise OFFSET over the covering index alone (ids
 *    only), then the rows of that one page by id (a deferred join).
 */
import type { Charge, Refund } from '../../contract/resources/charges.js';
import type { Queryable } from '../../store/db.js';
import type { JsonText, Page, PageRequest, QueryFor, ServiceContext } from './context.js';
import { listPage } from '../lists.js';
import type { Memo } from '../memo.js';
import { loadCharge, refundRecord, type ChargeRow } from './charges/rows.js';
import { chargeJson } from './charges/view.js';

/** GET /v1/charges/{id}: the merchant's charge (404 otherwise), as its record's text. */
export async function getCharge(ctx: ServiceContext, id: string): Promise<JsonText<Charge>> {
  return chargeJson(ctx.deps.caches.chargeTexts, await loadCharge(ctx.db, ctx.merchantId, id));
}

/** GET /v1/charges: a page of the merchant's charges, as their records' texts. */
export async function listChargeTexts(ctx: ServiceContext, query: QueryFor<'charges.list'>, page: PageRequest): Promise<Page<JsonText<Charge>>> {
  const { items, total } = await listCharges(ctx.db, ctx.deps.caches.chargePages, ctx.merchantId, query, page);
  return { items: items.map((row) => chargeJson(ctx.deps.caches.chargeTexts, row)), total };
}

/** The refunds of the merchant's charge (404 when the charge is not the merchant's, even with no refunds). */
export async function listRefunds(ctx: ServiceContext, chargeId: string, page: PageRequest): Promise<Page<Refund>> {
  await loadCharge(ctx.db, ctx.merchantId, chargeId);
  return listPage(ctx.db, {
    from: 'refunds',
    filters: [
      ['merchant_id = ?', ctx.merchantId],
      ['charge_id = ?', chargeId],
    ],
    order: 'created_at DESC, id DESC',
    page,
    map: refundRecord,
  });
}

export interface ChargeFilter {
  status?: string;
  payment_method?: string;
  submerchant_id?: string;
  start_date?: string;
  end_date?: string;
}

/** The last row of a page served, and the version of the merchant's charges it was served at. */
export interface PageBoundary {
  version: string;
  created_at: string;
  id: string;
}

/**
 * A page of the merchant's charges. `boundaries` (owned by the runtime) remembers the last row
 * of each page served, by `${merchant}|${filter}|${perPage}|${page}`, for the next page's seek.
 */
export async function listCharges(
  db: Queryable,
  boundaries: Memo<string, PageBoundary>,
  merchantId: string,
  f: ChargeFilter,
  page: PageRequest & { limit: number; offset: number },
) {
  const where = ['merchant_id = ?'];
  const args: (string | number)[] = [merchantId];
  if (f.status) (where.push('status = ?'), args.push(f.status));
  if (f.payment_method) (where.push('payment_method = ?'), args.push(f.payment_method));
  if (f.submerchant_id) (where.push('submerchant_id = ?'), args.push(f.submerchant_id));
  if (f.start_date) (where.push('created_at >= ?'), args.push(f.start_date));
  if (f.end_date) (where.push('created_at < ?'), args.push(f.end_date));
  const w = where.join(' AND ');

  const counts = await db.all<{ status: string; payment_method: string; n: number }>(
    'SELECT status, payment_method, n FROM charge_counts WHERE merchant_id = ? ORDER BY status, payment_method',
    [merchantId],
  );
  const version = counts.map((c) => `${c.status}/${c.payment_method}/${c.n}`).join(',');
  let total: number;
  if (!f.submerchant_id && !f.start_date && !f.end_date) {
    total = counts
      .filter((c) => (!f.status || c.status === f.status) && (!f.payment_method || c.payment_method === f.payment_method))
      .reduce((a, c) => a + Number(c.n), 0);
  } else {
    total = Number((await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM charges WHERE ${w}`, args))?.n ?? 0);
  }
  if (page.offset >= total) return { items: [] as ChargeRow[], total };

  const key = (p: number) => `${merchantId}|${f.status ?? ''}|${f.payment_method ?? ''}|${f.submerchant_id ?? ''}|${f.start_date ?? ''}|${f.end_date ?? ''}|${page.perPage}|${p}`;
  const before = page.page > 1 ? boundaries.get(key(page.page - 1)) : undefined;
  let rows: ChargeRow[];
  if (page.page === 1) {
    rows = await db.all<ChargeRow>(`SELECT * FROM charges WHERE ${w} ORDER BY created_at DESC, id DESC LIMIT ?`, [...args, page.limit]);
  } else if (before && before.version === version) {
    rows = await db.all<ChargeRow>(
      // created_at <= ? bounds the index range; the OR only breaks ties within one timestamp
      `SELECT * FROM charges WHERE ${w} AND created_at <= ? AND (created_at < ? OR id < ?) ORDER BY created_at DESC, id DESC LIMIT ?`,
      [...args, before.created_at, before.created_at, before.id, page.limit],
    );
  } else {
    rows = await db.all<ChargeRow>(
      `SELECT * FROM charges WHERE id IN (SELECT id FROM charges WHERE ${w} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?)
        ORDER BY created_at DESC, id DESC`,
      [...args, page.limit, page.offset],
    );
  }
  const last = rows[rows.length - 1];
  if (last && rows.length === page.limit) {
    boundaries.set(key(page.page), { version, created_at: last.created_at, id: last.id });
  }
  return { items: rows, total };
}
