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

/** Ledger invariants of every wallet: balance = Σcredits − Σdebits, balance_after chain, ≥ 0, integers. */
export async function checkLedger(env: TestEnv): Promise<void> {
  const { db } = env.rt.deps;
  const wallets = await db.all<{ id: string; balance: number; entry_seq: number }>('SELECT id, balance, entry_seq FROM wallets');
  for (const w of wallets) {
    const entries = await db.all<{ direction: string; amount: number; balance_after: number; seq: number }>(
      'SELECT direction, amount, balance_after, seq FROM wallet_entries WHERE wallet_id = ? ORDER BY seq',
      [w.id],
    );
    let running = 0;
    entries.forEach((e, i) => {
      if (!Number.isSafeInteger(e.amount) || e.amount <= 0) throw new Error(`wallet ${w.id}: entry amount ${e.amount} is not a positive integer`);
      if (e.seq !== i + 1) throw new Error(`wallet ${w.id}: entry seq ${e.seq} at position ${i + 1}`);
      running += e.direction === 'credit' ? e.amount : -e.amount;
      if (running < 0) throw new Error(`wallet ${w.id}: balance went below zero at entry ${i + 1}`);
      if (e.balance_after !== running) throw new Error(`wallet ${w.id}: balance_after ${e.balance_after} ≠ running ${running} at entry ${i + 1}`);
    });
    if (!Number.isSafeInteger(w.balance) || w.balance < 0) throw new Error(`wallet ${w.id}: balance ${w.balance}`);
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

/**
 * Issue 14 item 1: every statement of every wallet reconciles — the whole history, and each São
 * Paulo day that has an entry: opening + credits − debits = closing, the first entry's
 * balance_after = opening ± its amount, each next one chains, the last equals closing.
 * Returns how many statements were checked.
 */
export async function checkStatements(env: TestEnv, m = env.merchant): Promise<number> {
  const { localDate } = await import('../../src/domain/calendar.js');
  const wallets = await env.rt.deps.db.all<{ id: string }>('SELECT id FROM wallets WHERE merchant_id = ?', [m.merchant_id]);
  let n = 0;
  for (const w of wallets) {
    const days = await env.rt.deps.db.all<{ created_at: string }>('SELECT DISTINCT created_at FROM wallet_entries WHERE wallet_id = ?', [w.id]);
    const periods = new Set(days.map((d) => localDate(new Date(d.created_at))));
    const all = [...periods].sort();
    const ranges: Array<[string, string]> = [...all.map((d) => [d, d] as [string, string])];
    if (all.length) ranges.push([all[0]!, all[all.length - 1]!]);
    if (all.length > 2) ranges.push([all[1]!, all[all.length - 2]!]);
    for (const [from, to] of ranges) {
      const r = await env.call('GET', `/v1/wallets/${w.id}/statement?start_date=${from}&end_date=${to}`, undefined, { authorization: basic(m.public_key, m.secret_key) });
      if (r.status !== 200) throw new Error(`statement ${w.id} ${from}..${to}: ${r.status} ${JSON.stringify(r.body)}`);
      const { entries, summary } = r.body.data as { entries: Array<{ direction: string; amount: number; balance_after: number; id: string }>; summary: Record<string, number> };
      const where = `wallet ${w.id} statement ${from}..${to}`;
      let bal = summary.opening_balance!;
      let credits = 0;
      let debits = 0;
      for (const e of entries) {
        bal += e.direction === 'credit' ? e.amount : -e.amount;
        if (e.direction === 'credit') credits += e.amount;
        else debits += e.amount;
        if (e.balance_after !== bal) throw new Error(`${where}: entry ${e.id} balance_after ${e.balance_after}, expected ${bal} (opening ${summary.opening_balance})`);
        if (bal < 0) throw new Error(`${where}: balance below zero at entry ${e.id}`);
      }
      if (summary.closing_balance !== bal) throw new Error(`${where}: closing_balance ${summary.closing_balance}, last balance ${bal}`);
      if (summary.total_credits !== credits || summary.total_debits !== debits) throw new Error(`${where}: totals ${JSON.stringify(summary)} vs ${credits}/${debits}`);
      if (summary.opening_balance! + credits - debits !== summary.closing_balance) throw new Error(`${where}: opening + credits − debits ≠ closing`);
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
