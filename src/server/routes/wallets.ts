import type { walletEndpoints, Wallet, WalletEntry } from '../../contract/resources/wallets.js';
import type { Queryable } from '../../store/db.js';
import type { Handlers } from '../context.js';
import { invalid, notFound } from '../errors.js';
import { listPage } from '../lists.js';

interface WalletRow {
  id: string;
  owner_type: Wallet['owner_type'];
  owner_id: string;
  currency: string;
  balance: number;
  created_at: string;
  updated_at: string;
}

const WALLET_COLS = 'id, owner_type, owner_id, currency, balance, created_at, updated_at';
const ENTRY_COLS = 'id, wallet_id, direction, amount, balance_after, reference_type, reference_id, description, created_at';

const walletRecord = (r: WalletRow): Wallet => ({ ...r, balance: Number(r.balance) });
const entryRecord = (r: WalletEntry): WalletEntry => ({ ...r, amount: Number(r.amount), balance_after: Number(r.balance_after) });

async function myWallet(q: Queryable, merchantId: string, id: string): Promise<WalletRow> {
  const w = await q.get<WalletRow>(`SELECT ${WALLET_COLS} FROM wallets WHERE id = ? AND merchant_id = ?`, [id, merchantId]);
  if (!w) throw notFound('Wallet');
  return w;
}

export const walletHandlers: Handlers<typeof walletEndpoints> = {
  'wallets.list': (ctx, { query, page }) =>
    listPage(ctx.db, {
      from: 'wallets',
      select: WALLET_COLS,
      filters: [['merchant_id = ?', ctx.merchantId], ['owner_type = ?', query.owner_type], ['owner_id = ?', query.owner_id]],
      page,
      map: walletRecord,
    }),

  'wallets.entries': async (ctx, { params, query, page }) => {
    await myWallet(ctx.db, ctx.merchantId, params.wallet_id);
    return listPage(ctx.db, {
      from: 'wallet_entries',
      select: ENTRY_COLS,
      filters: [
        ['wallet_id = ?', params.wallet_id],
        ['reference_type = ?', query.reference_type],
        ['direction = ?', query.direction],
        ['created_at >= ?', query.start_date],
        ['created_at < ?', query.end_date],
      ],
      order: 'seq DESC',
      page,
      map: entryRecord,
    });
  },

  'wallets.statement': async (ctx, { params, query }) => {
    const wallet = await myWallet(ctx.db, ctx.merchantId, params.wallet_id);
    if (query.end_date <= query.start_date) throw invalid('end_date', 'must not be before start_date');
    const sums = `SELECT COALESCE(SUM(CASE WHEN direction = 'credit' THEN amount ELSE 0 END), 0) AS credits,
                         COALESCE(SUM(CASE WHEN direction = 'debit' THEN amount ELSE 0 END), 0) AS debits
                    FROM wallet_entries WHERE wallet_id = ?`;
    const before = await ctx.db.get<{ credits: number; debits: number }>(`${sums} AND created_at < ?`, [wallet.id, query.start_date]);
    const entries = await ctx.db.all<WalletEntry>(
      `SELECT ${ENTRY_COLS} FROM wallet_entries WHERE wallet_id = ? AND created_at >= ? AND created_at < ? ORDER BY created_at, seq`,
      [wallet.id, query.start_date, query.end_date],
    );
    // Issue 14 item 1: a statement is in effective-time order (created_at, then write order) and
    // each balance_after is the running balance on that order, from the opening balance. A due
    // move booked late (a settlement dated at its settlement date, written after a request's own
    // entry) thus sits in its period and the chain reconciles whatever order writes came in.
    // Only credits are ever dated before their write, so no running balance goes below zero.
    const opening = Number(before?.credits ?? 0) - Number(before?.debits ?? 0);
    let credits = 0;
    let debits = 0;
    let running = opening;
    const chained = entries.map((e) => {
      const amount = Number(e.amount);
      if (e.direction === 'credit') credits += amount;
      else debits += amount;
      running += e.direction === 'credit' ? amount : -amount;
      return { ...entryRecord(e), balance_after: running };
    });
    return {
      wallet_id: wallet.id,
      start_date: query.start_date,
      end_date: new Date(Date.parse(query.end_date) - 1).toISOString(),
      entries: chained,
      summary: { opening_balance: opening, closing_balance: opening + credits - debits, total_credits: credits, total_debits: debits },
    };
  },
};
