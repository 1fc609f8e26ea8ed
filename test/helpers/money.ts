import { basic, type TestEnv } from './server.js';
import { createWallet } from '../../src/server/services/wallets.js';
import { credit } from '../../src/server/services/ledger.js';
import { cvvLength, detectBrand } from '../../src/domain/brands.js';

export const CPF = '52998224725';
export const CNPJ = '11222333000181';
export const CNPJ_ALNUM = '12ABC34501DE35';

/** Tokenizes a card for the env's merchant (or another) through POST /v1/tokens. */
export async function tokenize(env: TestEnv, number = '4111111111111111', m = env.merchant): Promise<string> {
  const res = await env.rt.app.request('/v1/tokens', {
    method: 'POST',
    headers: { authorization: basic(m.public_key, ''), 'content-type': 'application/json' },
    body: JSON.stringify({ card: { number, holderName: 'Ana Souza', expirationMonth: '12', expirationYear: '2030', cvv: '1234'.slice(0, cvvLength(detectBrand(number) ?? 'visa')) } }),
  });
  const body = (await res.json()) as { data: { token: string } };
  if (res.status >= 300) throw new Error(`tokenize failed: ${JSON.stringify(body)}`);
  return body.data.token;
}

/** A charge body whose amount matches one item of that price. */
export function chargeBody(amount: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    amount,
    product_type: 'digital',
    customer: { name: 'Ana Souza', email: 'ana@example.com', tax_id: CPF, phone: '+5511987654321', type: 'individual' },
    items: [{ name: 'Curso', quantity: 1, unit_price: amount, tangible: false }],
    ...extra,
  };
}

export async function cardCharge(env: TestEnv, amount: number, installments = 1, extra: Record<string, unknown> = {}, number?: string) {
  const token = await tokenize(env, number);
  return env.call('POST', '/v1/charges', chargeBody(amount, { payment_method: 'credit_card', payment_details: { token, installments }, ...extra }));
}

/** A submerchant row and its wallet, as the onboarding API would create them. */
export async function addSubmerchant(env: TestEnv, merchantId = env.merchant.merchant_id, status = 'approved'): Promise<{ id: string; wallet_id: string }> {
  const { db, ids } = env.rt.deps;
  const id = ids();
  const now = env.clock.now();
  const ts = now.toISOString();
  const wallet_id = await db.tx(async (q) => {
    await q.run(
      `INSERT INTO submerchants (id, parent_merchant_id, entity_type, trade_name, legal_name, tax_id, email, status, created_at, updated_at)
       VALUES (?, ?, 'pj', 'Loja Parceira', 'Loja Parceira LTDA', '11222333000181', 'parceira@example.com', ?, ?, ?)`,
      [id, merchantId, status, ts, ts],
    );
    return createWallet(q, ids, merchantId, 'submerchant', id, now);
  });
  return { id, wallet_id };
}

export async function balanceOf(env: TestEnv, walletId: string): Promise<number> {
  const w = await env.rt.deps.db.get<{ balance: number }>('SELECT balance FROM wallets WHERE id = ?', [walletId]);
  return Number(w!.balance);
}

/** The entries that may take a balance below zero: a chargeback's debits (src/server/services/ledger.ts chargebackDebit). */
export const CHARGEBACK_ENTRY_TYPES: readonly string[] = ['chargeback', 'chargeback_fee'];

/** Whether an entry leaving `balanceAfter` breaks "below zero only by a chargeback": a debit of another kind that ends below zero. */
export function belowZeroWrongly(e: { direction: string; reference_type: string }, balanceAfter: number): boolean {
  return balanceAfter < 0 && e.direction === 'debit' && !CHARGEBACK_ENTRY_TYPES.includes(e.reference_type);
}

/**
 * Ledger invariants of every wallet: balance = Σcredits − Σdebits, balance_after chain, integers,
 * and below zero only by a chargeback: a debit that ends below zero is a chargeback's (a credit
 * into a negative balance raises it toward zero).
 */
export async function checkLedger(env: TestEnv): Promise<void> {
  const { db } = env.rt.deps;
  const wallets = await db.all<{ id: string; balance: number; entry_seq: number }>('SELECT id, balance, entry_seq FROM wallets');
  for (const w of wallets) {
    const entries = await db.all<{ direction: string; amount: number; balance_after: number; seq: number; reference_type: string }>(
      'SELECT direction, amount, balance_after, seq, reference_type FROM wallet_entries WHERE wallet_id = ? ORDER BY seq',
      [w.id],
    );
    let running = 0;
    entries.forEach((e, i) => {
      if (!Number.isSafeInteger(e.amount) || e.amount <= 0) throw new Error(`wallet ${w.id}: entry amount ${e.amount} is not a positive integer`);
      if (e.seq !== i + 1) throw new Error(`wallet ${w.id}: entry seq ${e.seq} at position ${i + 1}`);
      running += e.direction === 'credit' ? e.amount : -e.amount;
      if (belowZeroWrongly(e, running)) throw new Error(`wallet ${w.id}: a ${e.reference_type} debit took the balance below zero at entry ${i + 1}`);
      if (e.balance_after !== running) throw new Error(`wallet ${w.id}: balance_after ${e.balance_after} ≠ running ${running} at entry ${i + 1}`);
    });
    if (!Number.isSafeInteger(w.balance)) throw new Error(`wallet ${w.id}: balance ${w.balance}`);
    if (w.balance !== running) throw new Error(`wallet ${w.id}: balance ${w.balance} ≠ Σcredits − Σdebits ${running}`);
    if (Number(w.entry_seq) !== entries.length) throw new Error(`wallet ${w.id}: entry_seq ${w.entry_seq} ≠ ${entries.length} entries`);
  }
}

/** Credits a wallet `times` × `amount` cents through the ledger (reference_type 'test'). */
export async function fund(env: TestEnv, walletId: string, amount: number, times = 1): Promise<void> {
  const { db, ids } = env.rt.deps;
  for (let i = 0; i < times; i++) {
    await db.tx((q) => credit(q, ids, { walletId, amount, referenceType: 'test', referenceId: ids(), description: 'test funding', at: env.clock.now() }));
  }
}

interface StatementEntry {
  id: string;
  direction: string;
  amount: number;
  balance_after: number;
  reference_type: string;
  created_at: string;
}
interface StatementSummary {
  opening_balance: number;
  closing_balance: number;
  total_credits: number;
  total_debits: number;
}

/**
 * The statement of a period computed from the wallet's rows, the slow way: every entry in
 * effective-time order (created_at, then write order), each with the running balance from the
 * sum of every entry before the period. `start_date` and `end_date` as the API takes them.
 */
export async function statementFromRows(env: TestEnv, walletId: string, startDate: string, endDate: string): Promise<{ entries: StatementEntry[]; summary: StatementSummary }> {
  const { qFrom, qTo } = await import('../../src/contract/filters.js');
  const from = qFrom().parse(startDate);
  const to = qTo().parse(endDate);
  const rows = await env.rt.deps.db.all<StatementEntry & { seq: number }>(
    'SELECT id, direction, amount, balance_after, reference_type, created_at, seq FROM wallet_entries WHERE wallet_id = ? ORDER BY created_at, seq',
    [walletId],
  );
  let balance = 0;
  let credits = 0;
  let debits = 0;
  let opening = 0;
  const entries: StatementEntry[] = [];
  for (const r of rows) {
    const signed = r.direction === 'credit' ? Number(r.amount) : -Number(r.amount);
    if (r.created_at < from) opening += signed;
    if (r.created_at < from || r.created_at >= to) continue;
    if (r.direction === 'credit') credits += Number(r.amount);
    else debits += Number(r.amount);
    balance = opening + credits - debits;
    entries.push({ id: r.id, direction: r.direction, amount: Number(r.amount), balance_after: balance, reference_type: r.reference_type, created_at: r.created_at });
  }
  return { entries, summary: { opening_balance: opening, closing_balance: opening + credits - debits, total_credits: credits, total_debits: debits } };
}

/**
 * Reads a statement a page at a time (`per_page`) through the API, and checks that the pages
 * together are the statement computed from the rows: the same entries in the same order, each
 * `balance_after` the running balance from `opening_balance`, the last one `closing_balance`,
 * the same summary on every page, and the pagination of a list of them.
 */
export async function checkStatement(env: TestEnv, walletId: string, startDate: string, endDate: string, perPage: number, m = env.merchant): Promise<number> {
  const where = `wallet ${walletId} statement ${startDate}..${endDate} per_page=${perPage}`;
  const want = await statementFromRows(env, walletId, startDate, endDate);
  const got: StatementEntry[] = [];
  const q = `start_date=${encodeURIComponent(startDate)}&end_date=${encodeURIComponent(endDate)}&per_page=${perPage}`;
  const pages = Math.max(1, Math.ceil(want.entries.length / perPage));
  for (let page = 1; page <= pages; page++) {
    const r = await env.call('GET', `/v1/wallets/${walletId}/statement?${q}&page=${page}`, undefined, { authorization: basic(m.public_key, m.secret_key) });
    if (r.status !== 200) throw new Error(`${where} page ${page}: ${r.status} ${JSON.stringify(r.body)}`);
    const p = r.body.pagination;
    if (!p || p.page !== page || p.perPage !== perPage || p.total !== want.entries.length || p.totalPages !== Math.ceil(want.entries.length / perPage)) {
      throw new Error(`${where} page ${page}: pagination ${JSON.stringify(p)}, ${want.entries.length} entries in the period`);
    }
    const summary = r.body.data.summary as StatementSummary;
    if (JSON.stringify(summary) !== JSON.stringify(want.summary)) throw new Error(`${where} page ${page}: summary ${JSON.stringify(summary)}, from the rows ${JSON.stringify(want.summary)}`);
    got.push(...(r.body.data.entries as StatementEntry[]));
  }
  want.entries.forEach((e, i) => {
    const g = got[i];
    if (!g || g.id !== e.id || g.balance_after !== e.balance_after || g.amount !== e.amount || g.direction !== e.direction) {
      throw new Error(`${where}: entry ${i + 1} is ${JSON.stringify(g)}, from the rows ${JSON.stringify(e)}`);
    }
    if (belowZeroWrongly(g, g.balance_after)) throw new Error(`${where}: a ${g.reference_type} debit shows a balance below zero at entry ${g.id}`);
  });
  if (got.length !== want.entries.length) throw new Error(`${where}: ${got.length} entries in its pages, ${want.entries.length} in the period`);
  return pages;
}

/**
 * Every statement of every wallet reconciles — the whole history, each São Paulo day that has
 * an entry, the days between the first and the last, and a period bounded by two entries'
 * instants (inside an hour) — read a few entries a page: opening + credits − debits = closing,
 * the first entry's balance_after = opening ± its amount, each next one chains, the last
 * equals closing, and the pages hold exactly the period's entries in effective-time order.
 * Returns how many statements were checked.
 */
export async function checkStatements(env: TestEnv, m = env.merchant, perPage = 3): Promise<number> {
  const { localDate } = await import('../../src/domain/calendar.js');
  const wallets = await env.rt.deps.db.all<{ id: string }>('SELECT id FROM wallets WHERE merchant_id = ?', [m.merchant_id]);
  let n = 0;
  for (const w of wallets) {
    const times = (await env.rt.deps.db.all<{ created_at: string }>('SELECT DISTINCT created_at FROM wallet_entries WHERE wallet_id = ? ORDER BY created_at', [w.id])).map((d) => d.created_at);
    const all = [...new Set(times.map((t) => localDate(new Date(t))))].sort();
    const ranges: Array<[string, string]> = all.map((d) => [d, d] as [string, string]);
    if (all.length) ranges.push([all[0]!, all[all.length - 1]!]);
    if (all.length > 2) ranges.push([all[1]!, all[all.length - 2]!]);
    if (times.length > 2) ranges.push([times[1]!, times[times.length - 2]!]);
    for (const [from, to] of ranges) {
      await checkStatement(env, w.id, from, to, perPage, m);
      n++;
    }
  }
  return n;
}

/** A charge's receivables, in installment order. */
export async function receivablesOf(env: TestEnv, chargeId: string): Promise<Array<Record<string, any>>> {
  const r = await env.call('GET', `/v1/receivables?per_page=100&charge_id=${chargeId}`);
  if (r.status !== 200) throw new Error(`GET /v1/receivables: ${r.status} ${JSON.stringify(r.body)}`);
  return (r.body.data as Array<Record<string, any>>).sort((a, b) => a.installment - b.installment);
}
