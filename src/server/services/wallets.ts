/**
 * Wallets, their entries and their statements (docs/api.md, "Wallets").
 *
 * A wallet's entries are immutable and numbered 1, 2, 3… in the order they were written
 * (`seq`; the wallet keeps the last number, `entry_seq`), and `wallet_entry_sums` (migration
 * 610) keeps their count, credits and debits per month, day and hour of `created_at`, exact
 * by triggers. So:
 *  - a page of the entries list without filters is a seek on `(wallet_id, seq)`, and its
 *    total is `entry_seq`: any page costs what the first does;
 *  - a statement page — the summary of the whole period, its count, and where the page starts
 *    in effective-time order (`created_at`, then `seq`) with the balance there — is read from
 *    a few dozen of those sums (the months before the period's bounds, the days and hours
 *    before each bound in its month and day, the days of the month and the hours of the day
 *    the page starts in) and from the entries of at most three hours (each bound's, and the
 *    page's first), never from every entry of the period.
 * Each answer is made as of one moment: the moment the wallet's last entry was number `n`,
 * read first. Every later read leaves out the entries numbered after it (written while the
 * answer is being made), so the summary, the count and the rows agree.
 */
import type { Statement, Wallet, WalletEntry } from '../../contract/resources/wallets.js';
import type { IdGenerator } from '../../domain/ids.js';
import type { Queryable } from '../../store/db.js';
import type { Page, PagedRecord, PageRequest, QueryFor, ServiceContext } from './context.js';
import { invalid, notFound } from '../errors.js';
import { listPage } from '../lists.js';

export type WalletOwner = 'merchant' | 'submerchant';

/** The id of the BRL wallet of a merchant or of a submerchant, by its owner, if it has one. */
export async function walletOf(q: Queryable, ownerType: WalletOwner, ownerId: string): Promise<string | undefined> {
  const w = await q.get<{ id: string }>("SELECT id FROM wallets WHERE owner_type = ? AND owner_id = ? AND currency = 'BRL'", [ownerType, ownerId]);
  return w?.id;
}

/** A wallet of the merchant (its own or one of its submerchants'), by id, and whose it is; undefined for any other. */
export function walletOfMerchant(q: Queryable, merchantId: string, id: string): Promise<{ id: string; owner_type: WalletOwner; owner_id: string } | undefined> {
  return q.get<{ id: string; owner_type: WalletOwner; owner_id: string }>('SELECT id, owner_type, owner_id FROM wallets WHERE id = ? AND merchant_id = ?', [id, merchantId]);
}

/** Creates the BRL wallet of a merchant or submerchant, in the caller's transaction. */
export async function createWallet(
  q: Queryable,
  ids: IdGenerator,
  merchantId: string,
  ownerType: WalletOwner,
  ownerId: string,
  now: Date,
): Promise<string> {
  const id = ids();
  const ts = now.toISOString();
  await q.run(
    `INSERT INTO wallets (id, merchant_id, owner_type, owner_id, currency, balance, created_at, updated_at)
     VALUES (?, ?, ?, ?, 'BRL', 0, ?, ?)`,
    [id, merchantId, ownerType, ownerId, ts, ts],
  );
  return id;
}

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

/** The merchant's and its submerchants' wallets. */
export function listWallets(ctx: ServiceContext, query: QueryFor<'wallets.list'>, page: PageRequest): Promise<Page<Wallet>> {
  return listPage(ctx.db, {
    from: 'wallets',
    select: WALLET_COLS,
    filters: [['merchant_id = ?', ctx.merchantId], ['owner_type = ?', query.owner_type], ['owner_id = ?', query.owner_id]],
    page,
    map: walletRecord,
  });
}

/** The number of the wallet's last entry, if the wallet is the merchant's (404 otherwise). */
async function lastSeq(ctx: ServiceContext, walletId: string): Promise<number> {
  const w = await ctx.db.get<{ entry_seq: number }>('SELECT entry_seq FROM wallets WHERE id = ? AND merchant_id = ?', [walletId, ctx.merchantId]);
  if (!w) throw notFound('Wallet');
  return Number(w.entry_seq);
}

/** How many entry numbers a block of `wallet_entry_blocks` holds (migration 760). */
const ENTRY_BLOCK = 1024;

/**
 * The entries of a wallet, newest first (write order), as of one moment (its last entry
 * numbered `n`). Without filters a page is the entries numbered `n − offset` down: a seek, and
 * `n` is the total. With filters (reference type, direction, a period of `created_at`) the
 * total and where the page starts come from `wallet_entry_blocks` (migration 760): per block
 * of 1,024 entry numbers, by reference type and direction, how many entries and the span of
 * their dates. A block whose entries asked for are all dated inside the period counts whole,
 * one whose are all outside counts nothing; only the blocks that span a bound of the period
 * (and the block of entry `n`, written into while the answer is made) are counted from their
 * rows. The page is then read from the blocks it starts and ends in. So any page reads one
 * row per block and type, the rows of the blocks that span a bound, and the page's rows,
 * never every entry that matches.
 *
 * Entries are numbered in write order, and `created_at` mostly follows it, not always: a
 * settlement is dated at its due date when it is written later, and the merchant's clock can
 * move. Such an entry widens its block's span of dates, so a period's bound can fall in a few
 * more blocks than the one or two of entries written in date order; each costs at most one
 * block of rows.
 */
export async function listEntries(ctx: ServiceContext, walletId: string, query: QueryFor<'wallets.entries'>, page: PageRequest): Promise<Page<WalletEntry>> {
  const n = await lastSeq(ctx, walletId);
  const { reference_type: type, direction, start_date: from, end_date: to } = query;
  if (type === undefined && direction === undefined && from === undefined && to === undefined) {
    const top = n - page.offset;
    const rows = top > 0 ? await ctx.db.all<WalletEntry>(`SELECT ${ENTRY_COLS} FROM wallet_entries WHERE wallet_id = ? AND seq > ? AND seq <= ? ORDER BY seq DESC`, [walletId, top - page.limit, top]) : [];
    return { items: rows.map(entryRecord), total: n };
  }
  const kinds: [string, string][] = [];
  if (type !== undefined) kinds.push(['reference_type = ?', type]);
  if (direction !== undefined) kinds.push(['direction = ?', direction]);
  const dates: [string, string][] = [];
  if (from !== undefined) dates.push(['created_at >= ?', from]);
  if (to !== undefined) dates.push(['created_at < ?', to]);
  /** The entries numbered from lo (exclusive) to hi of the types asked for; `dated` the condition on their dates. */
  const range = (lo: number, hi: number) => ({
    where: `wallet_id = ? AND seq > ? AND seq <= ?${kinds.map((f) => ` AND ${f[0]}`).join('')}`,
    args: [walletId, lo, hi, ...kinds.map((f) => f[1])],
    dated: dates.length ? dates.map((f) => f[0]).join(' AND ') : '1 = 1',
    dateArgs: dates.map((f) => f[1]),
  });

  // the matching entries of each block, newest block first: from the block's sums when its
  // dates lie wholly inside or outside the period, else from its rows
  const topBlock = Math.floor((n - 1) / ENTRY_BLOCK);
  const overlaps = [...(from !== undefined ? [['last_at >= ?', from]] : []), ...(to !== undefined ? [['first_at < ?', to]] : [])];
  const sums = n > 0 ? await ctx.db.all<{ block: number; entries: number; first_at: string; last_at: string }>(
    `SELECT block, entries, first_at, last_at FROM wallet_entry_blocks
      WHERE wallet_id = ? AND block < ? AND entries > 0${[...kinds, ...overlaps].map((f) => ` AND ${f[0]}`).join('')}
      ORDER BY block DESC`,
    [walletId, topBlock, ...[...kinds, ...overlaps].map((f) => f[1]!)],
  ) : [];
  const blocks: { lo: number; hi: number; count: number | undefined }[] = n > 0 ? [{ lo: topBlock * ENTRY_BLOCK, hi: n, count: undefined }] : [];
  for (const s of sums) {
    const block = Number(s.block);
    const inside = (from === undefined || s.first_at >= from) && (to === undefined || s.last_at < to);
    let b = blocks.at(-1)!;
    if (b.lo !== block * ENTRY_BLOCK) blocks.push((b = { lo: block * ENTRY_BLOCK, hi: (block + 1) * ENTRY_BLOCK, count: 0 }));
    if (b.count !== undefined) b.count = inside ? b.count + Number(s.entries) : undefined;
  }
  await Promise.all(
    blocks.map(async (b) => {
      if (b.count !== undefined) return;
      // the dates counted, not searched: a search by date would read every entry of the period
      const m = range(b.lo, b.hi);
      const row = await ctx.db.get<{ n: number }>(`SELECT COALESCE(SUM(CASE WHEN ${m.dated} THEN 1 ELSE 0 END), 0) AS n FROM wallet_entries WHERE ${m.where}`, [...m.dateArgs, ...m.args]);
      b.count = Number(row?.n ?? 0);
    }),
  );
  const counted = blocks as { lo: number; hi: number; count: number }[];
  const total = counted.reduce((t, b) => t + b.count, 0);
  if (page.offset >= total) return { items: [], total };

  // the page: from the block it starts in, the blocks with matches down to the one it ends in
  const reads: { lo: number; hi: number; skip: number; take: number }[] = [];
  let before = 0;
  let wanted = Math.min(page.limit, total - page.offset);
  for (const b of counted) {
    if (wanted <= 0) break;
    if (before + b.count > page.offset && b.count > 0) {
      const skip = Math.max(0, page.offset - before);
      const take = Math.min(wanted, b.count - skip);
      const last = reads.at(-1);
      // neighbouring blocks read as one range
      if (last && last.lo === b.hi) Object.assign(last, { lo: b.lo, take: last.take + take });
      else reads.push({ lo: b.lo, hi: b.hi, skip, take });
      wanted -= take;
    }
    before += b.count;
  }
  const pages = await Promise.all(
    reads.map((r) => {
      const m = range(r.lo, r.hi);
      return ctx.db.all<WalletEntry>(`SELECT ${ENTRY_COLS} FROM wallet_entries WHERE ${m.where} AND ${m.dated} ORDER BY seq DESC LIMIT ? OFFSET ?`, [...m.args, ...m.dateArgs, r.take, r.skip]);
    }),
  );
  return { items: pages.flat().map(entryRecord), total };
}

/** How many entries, and their credits and debits. */
interface Sums {
  entries: number;
  credits: number;
  debits: number;
}
const NONE: Sums = { entries: 0, credits: 0, debits: 0 };
const sumsOf = (r: Partial<Sums> | undefined): Sums => ({ entries: Number(r?.entries ?? 0), credits: Number(r?.credits ?? 0), debits: Number(r?.debits ?? 0) });
const plus = (a: Sums, b: Sums): Sums => ({ entries: a.entries + b.entries, credits: a.credits + b.credits, debits: a.debits + b.debits });
const minus = (a: Sums, b: Sums): Sums => ({ entries: a.entries - b.entries, credits: a.credits - b.credits, debits: a.debits - b.debits });
const net = (s: Sums) => s.credits - s.debits;
const sumAll = (rows: readonly Sums[]) => rows.reduce(plus, NONE);

const SUMS_OF_ENTRIES = `COUNT(*) AS entries, COALESCE(SUM(CASE WHEN direction = 'credit' THEN amount ELSE 0 END), 0) AS credits,
  COALESCE(SUM(CASE WHEN direction = 'debit' THEN amount ELSE 0 END), 0) AS debits`;

/** The spans of `wallet_entry_sums` (migration 610) and the length of their key in `created_at`. */
type Span = 'month' | 'day' | 'hour';
const KEY_LENGTH: Record<Span, number> = { month: 7, day: 10, hour: 13 };
/** The key of the month, day or hour an ISO instant is in: '2026-03', '2026-03-31', '2026-03-31T03'. */
const keyOf = (span: Span, iso: string) => iso.slice(0, KEY_LENGTH[span]);
/** The first instant of a month, day or hour key. */
const startOf = (key: string) => key + '0000-01-01T00:00:00.000Z'.slice(key.length);
/**
 * A key of the same shape just past this one ('2026-12' → '2026-13', '2026-03-31' →
 * '2026-03-32'): an exclusive upper bound. Keys are only ever compared with keys of their own
 * shape, so the order is the same under any collation of the database.
 */
const past = (key: string) => key.slice(0, -2) + String(Number(key.slice(-2)) + 1).padStart(2, '0');

interface SpanSums extends Sums {
  span: Span;
  period: string;
}

/** The keys of one span from `from` (inclusive) to `to` (exclusive). */
type SpanRange = readonly [span: Span, from: string, to: string];

/**
 * Reads a wallet's entries and their sums as of one moment: when its last entry was number
 * `n`. Entries numbered after `n` (written while an answer is being made) are left out of
 * every read: by `seq <= n` where entries are read, and subtracted from the sums where
 * those are.
 */
class WalletAt {
  constructor(
    private readonly db: Queryable,
    readonly walletId: string,
    readonly n: number,
  ) {}

  /** The sums of the spans in these ranges, in order of span and key (the wallet in each range: one index range each). */
  async spans(ranges: readonly SpanRange[]): Promise<SpanSums[]> {
    const rows = await this.db.all<SpanSums & { n: number }>(
      `SELECT span, period, entries, credits, debits, (SELECT entry_seq FROM wallets WHERE id = ?) AS n
         FROM wallet_entry_sums
        WHERE ${ranges.map(() => '(wallet_id = ? AND span = ? AND period >= ? AND period < ?)').join(' OR ')}
        ORDER BY span, period`,
      [this.walletId, ...ranges.flatMap((r) => [this.walletId, ...r])],
    );
    const out: SpanSums[] = rows.map((r) => ({ span: r.span, period: r.period, ...sumsOf(r) }));
    const seen = Number(rows[0]?.n ?? this.n);
    if (seen > this.n) {
      const newer = await this.db.all<{ created_at: string; direction: string; amount: number }>(
        'SELECT created_at, direction, amount FROM wallet_entries WHERE wallet_id = ? AND seq > ? AND seq <= ?',
        [this.walletId, this.n, seen],
      );
      for (const e of newer) {
        for (const r of out) {
          if (r.period !== keyOf(r.span, e.created_at)) continue;
          r.entries -= 1;
          if (e.direction === 'credit') r.credits -= Number(e.amount);
          else r.debits -= Number(e.amount);
        }
      }
    }
    return out;
  }

  /** The sums of the first `count` entries from `from` in effective-time order. */
  async first(from: string, count: number): Promise<Sums> {
    if (count <= 0) return NONE;
    return sumsOf(
      await this.db.get<Sums>(
        `SELECT ${SUMS_OF_ENTRIES} FROM (SELECT direction, amount FROM wallet_entries WHERE wallet_id = ? AND created_at >= ? AND seq <= ? ORDER BY created_at, seq LIMIT ?) x`,
        [this.walletId, from, this.n, count],
      ),
    );
  }

  /** `limit` entries dated from `from` to before `to` in effective-time order, after the first `skip`. */
  rows(from: string, to: string, skip: number, limit: number): Promise<WalletEntry[]> {
    return this.db.all<WalletEntry>(
      `SELECT ${ENTRY_COLS} FROM wallet_entries WHERE wallet_id = ? AND created_at >= ? AND created_at < ? AND seq <= ? ORDER BY created_at, seq LIMIT ? OFFSET ?`,
      [this.walletId, from, to, this.n, limit, skip],
    );
  }
}

/**
 * What a statement needs at its bounds, read by one SQL statement, so as of one moment: the
 * wallet's last entry number (none: not the merchant's wallet), the sums of every month up to
 * the end's, of the days of each bound's month before its day and of the hours of each bound's
 * day before its hour, and of the entries of each bound's hour before it.
 */
async function bounds(db: Queryable, merchantId: string, walletId: string, start: string, end: string) {
  const ranges: SpanRange[] = [['month', '0000-00', past(keyOf('month', end))]];
  const cuts: string[] = [];
  const args: (string | number)[] = [walletId, merchantId];
  for (const t of [start, end]) {
    ranges.push(['day', `${keyOf('month', t)}-01`, keyOf('day', t)], ['hour', `${keyOf('day', t)}T00`, keyOf('hour', t)]);
    cuts.push(`SELECT CAST(? AS TEXT), NULL, ${SUMS_OF_ENTRIES} FROM wallet_entries WHERE wallet_id = ? AND created_at >= ? AND created_at < ?`);
  }
  const rows = await db.all<SpanSums & { part: string }>(
    `SELECT 'wallet' AS part, NULL AS period, entry_seq AS entries, 0 AS credits, 0 AS debits FROM wallets WHERE id = ? AND merchant_id = ?
     UNION ALL SELECT span, period, entries, credits, debits FROM wallet_entry_sums WHERE ${ranges.map(() => '(wallet_id = ? AND span = ? AND period >= ? AND period < ?)').join(' OR ')}
     UNION ALL ${cuts.join(' UNION ALL ')}
     ORDER BY part, period`,
    [...args, ...ranges.flatMap((r) => [walletId, ...r]), 'start', walletId, startOf(keyOf('hour', start)), start, 'end', walletId, startOf(keyOf('hour', end)), end],
  );
  const wallet = rows.find((r) => r.part === 'wallet');
  if (!wallet) return undefined;
  const spans = rows.filter((r) => r.part === 'month' || r.part === 'day' || r.part === 'hour').map((r) => ({ span: r.part as Span, period: r.period, ...sumsOf(r) }));
  /** The sums of the entries dated before t: the months before its month, the days of its month before its day, the hours of its day before its hour, and the entries of its hour before it. */
  const before = (t: string, cut: string): Sums => {
    const [m, d, h] = [keyOf('month', t), keyOf('day', t), keyOf('hour', t)];
    const whole = spans.filter(
      (s) => (s.span === 'month' && s.period < m) || (s.span === 'day' && s.period.startsWith(m) && s.period < d) || (s.span === 'hour' && s.period.startsWith(d) && s.period < h),
    );
    return plus(sumAll(whole), sumsOf(rows.find((r) => r.part === cut)));
  };
  return { n: Number(wallet.entries), months: spans.filter((s) => s.span === 'month'), atStart: before(start, 'start'), atEnd: before(end, 'end') };
}

/**
 * Where entry number `target` (from 0) of the entries dated from the start of `months[0]`
 * is: the hour it is in, the sums of the entries from the start of `months[0]` to that hour,
 * and how many entries of that hour come before it. `months` are the sums of the months from
 * there on. Reads the days of one month, then the hours of one day.
 */
async function locate(at: WalletAt, months: readonly SpanSums[], target: number): Promise<{ hour: string; before: Sums; skip: number }> {
  let before = NONE;
  let spans = months;
  for (;;) {
    let found: SpanSums | undefined;
    for (const s of spans) {
      if (before.entries + s.entries > target) {
        found = s;
        break;
      }
      before = plus(before, s);
    }
    if (!found) throw new Error(`wallet ${at.walletId}: no ${spans[0]?.span ?? 'span'} holds entry ${target} from ${months[0]?.period}`);
    const key = found.period;
    if (found.span === 'hour') return { hour: key, before, skip: target - before.entries };
    // the days of the month found, or the hours of the day found
    spans = await at.spans([found.span === 'month' ? ['day', `${key}-01`, past(`${key}-31`)] : ['hour', `${key}T00`, past(`${key}T23`)]]);
  }
}

/**
 * One page of a wallet's statement for [start, end): the page's entries in effective-time
 * order (`created_at`, then `seq`), each `balance_after` the running balance from the
 * opening balance, and the summary and count of the whole period.
 *
 * Effective-time order, not write order: a due move booked late (a settlement dated at its
 * settlement date, written after a request's own entry) sits in its period, and the chain
 * reconciles whatever order writes came in. Only credits are ever dated before their write,
 * so no running balance goes below zero.
 */
export async function walletStatement(ctx: ServiceContext, walletId: string, query: QueryFor<'wallets.statement'>, page: PageRequest): Promise<PagedRecord<Statement>> {
  const { start_date: start, end_date: end } = query;
  const b = await bounds(ctx.db, ctx.merchantId, walletId, start, end);
  if (!b) throw notFound('Wallet');
  if (end <= start) throw invalid('end_date', 'must not be before start_date');
  const { atStart, atEnd } = b;
  const count = atEnd.entries - atStart.entries;
  const opening = net(atStart);
  const { credits, debits } = minus(atEnd, atStart);

  const entries: WalletEntry[] = [];
  if (page.offset < count) {
    // the page's first entry, counted from the start of the period's first month
    const at = new WalletAt(ctx.db, walletId, b.n);
    const firstMonth = keyOf('month', start);
    const earlier = sumAll(b.months.filter((s) => s.period < firstMonth));
    const target = atStart.entries - earlier.entries + page.offset;
    const { hour, before: upToHour, skip } = await locate(at, b.months.filter((s) => s.period >= firstMonth), target);
    const [skipped, rows] = await Promise.all([at.first(startOf(hour), skip), at.rows(startOf(hour), end, skip, Math.min(page.limit, count - page.offset))]);
    let balance = net(earlier) + net(upToHour) + net(skipped);
    for (const r of rows) {
      const e = entryRecord(r);
      balance += e.direction === 'credit' ? e.amount : -e.amount;
      entries.push({ ...e, balance_after: balance });
    }
  }
  return {
    record: {
      wallet_id: walletId,
      start_date: start,
      end_date: new Date(Date.parse(end) - 1).toISOString(),
      entries,
      summary: { opening_balance: opening, closing_balance: opening + credits - debits, total_credits: credits, total_debits: debits },
    },
    total: count,
  };
}
