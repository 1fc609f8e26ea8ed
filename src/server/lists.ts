import type { Queryable, SqlValue } from '../store/db.js';
import type { Page, PageRequest } from './services/context.js';

/**
 * A WHERE condition of a list: `[clause]` always applies; `[clause, value]` applies when the
 * value is given (an optional filter), with one `?` in the clause for it.
 */
export type Filter = readonly [clause: string] | readonly [clause: string, value: SqlValue | undefined];

export interface ListQuery<Row, Rec> {
  /** FROM clause: a table, or a table with joins */
  from: string;
  /** FROM clause of the count when the joins are not needed to count (default: `from`) */
  countFrom?: string;
  select?: string;
  filters: readonly Filter[];
  /** default: newest first (ids are time-ordered UUIDv7) */
  order?: string;
  page: PageRequest;
  map: (row: Row) => Rec;
}

/** One page of a list and the total it belongs to: the one way every list handler pages. */
export async function listPage<Row, Rec>(db: Queryable, o: ListQuery<Row, Rec>): Promise<Page<Rec>> {
  const active = o.filters.filter((f) => f.length === 1 || f[1] !== undefined);
  const where = active.length ? ` WHERE ${active.map((f) => f[0]).join(' AND ')}` : '';
  const args = active.filter((f) => f.length === 2).map((f) => f[1] as SqlValue);
  const total = await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${o.countFrom ?? o.from}${where}`, args);
  const rows = await db.all<Row>(
    `SELECT ${o.select ?? '*'} FROM ${o.from}${where} ORDER BY ${o.order ?? 'created_at DESC, id DESC'} LIMIT ? OFFSET ?`,
    [...args, o.page.limit, o.page.offset],
  );
  return { items: rows.map(o.map), total: Number(total?.n ?? 0) };
}
