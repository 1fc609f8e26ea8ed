/** A merchant's receivables: what its captured charges will pay into its wallets, installment by installment. */
import type { Receivable } from '../../contract/resources/receivables.js';
import type { Page, PageRequest, QueryFor, ServiceContext } from './context.js';
import { listPage } from '../lists.js';
import { receivableRecord } from './charges/rows.js';

/** The merchant's receivables, newest charge first, its installments last to first. */
export function listReceivables(ctx: ServiceContext, query: QueryFor<'receivables.list'>, page: PageRequest): Promise<Page<Receivable>> {
  return listPage(ctx.db, {
    from: 'receivables',
    filters: [
      ['merchant_id = ?', ctx.merchantId],
      ['status = ?', query.status],
      ['payment_method = ?', query.payment_method],
      ['settlement_date >= ?', query.settlement_date_from],
      ['settlement_date < ?', query.settlement_date_to],
      ['charge_id = ?', query.charge_id],
      ['submerchant_id = ?', query.submerchant_id],
    ],
    order: 'created_at DESC, id DESC, installment DESC',
    page,
    map: receivableRecord,
  });
}
