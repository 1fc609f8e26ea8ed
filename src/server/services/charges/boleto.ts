/**
 * A boleto's slip, made inside the transaction that inserts its charge: the store's next "nosso
 * número", the merchant's account number (given on its first boleto), and the barcode of the
 * sandbox bank (src/domain/boleto.ts).
 *
 * Both numbers come from `counters` rows moved by `UPDATE … RETURNING` in the caller's
 * transaction: on PostgreSQL the row lock orders every replica's writers, and a transaction that
 * rolls back gives its number back, so numbers are unique across the store (a unique index on
 * each backs it) and a charge that was never written took none.
 */
import { buildSandboxSlip, MAX_OUR_NUMBER } from '../../../domain/boleto.js';
import type { Queryable } from '../../../store/db.js';
import { clockOffset, type ServiceDeps } from '../context.js';
import type { ChargeRow } from './rows.js';

/** The most accounts the 8 digits of the free field hold. */
const MAX_ACCOUNT = 99_999_999;

async function next(q: Queryable, name: 'boleto_our_number' | 'boleto_account', max: number): Promise<number> {
  const r = await q.get<{ value: number | string }>('UPDATE counters SET value = value + 1 WHERE name = ? RETURNING value', [name]);
  const n = Number(r?.value);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`counter ${name} is missing`);
  if (n > max) throw new Error(`counter ${name} ran out: ${n} > ${max}`);
  return n;
}

/** The merchant's 8-digit account at the sandbox bank, given from the store's sequence on its first boleto. */
export async function boletoAccountOf(q: Queryable, merchantId: string): Promise<string> {
  const read = () => q.get<{ boleto_account: string | null }>('SELECT boleto_account FROM merchants WHERE id = ?', [merchantId]);
  const known = (await read())?.boleto_account;
  if (known) return known;
  const account = String(await next(q, 'boleto_account', MAX_ACCOUNT)).padStart(8, '0');
  const set = await q.run('UPDATE merchants SET boleto_account = ? WHERE id = ? AND boleto_account IS NULL', [account, merchantId]);
  if (set.changes === 1) return account;
  // another transaction gave the merchant its account first (its number is left unused)
  const other = (await read())?.boleto_account;
  if (!other) throw new Error(`merchant ${merchantId} has no boleto account`);
  return other;
}

export interface NewSlip {
  our_number: number;
  barcode: string;
}

/** The slip of a new boleto of `amount` cents due on `dueDate`. */
export async function newSlip(q: Queryable, merchantId: string, amount: number, dueDate: string): Promise<NewSlip> {
  const account = await boletoAccountOf(q, merchantId);
  const ourNumber = await next(q, 'boleto_our_number', MAX_OUR_NUMBER);
  const slip = buildSandboxSlip({ dueDate, amountCents: amount, account, ourNumber });
  return { our_number: ourNumber, barcode: slip.barcode };
}

/** What the printable page of a boleto shows: the charge, its beneficiary and the merchant's day. */
export interface PrintableBoleto {
  row: ChargeRow;
  /** the beneficiary: the submerchant's legal name and tax id, else the merchant's name */
  beneficiary: { name: string; taxId: string | null };
  account: string;
  /** the merchant's clock now */
  now: Date;
}

/**
 * GET /boleto/{id}: the boleto of that id, or null for anything else (no charge, or a charge of
 * another method), so that every other id gets the same page. The id is the capability, as a
 * payment link's is for its checkout.
 */
export async function loadPrintableBoleto(deps: ServiceDeps, id: string): Promise<PrintableBoleto | null> {
  const row = await deps.db.get<ChargeRow & { m_name: string; m_account: string | null; m_clock_offset_ms: number; s_legal_name: string | null; s_tax_id: string | null }>(
    `SELECT c.*, m.name AS m_name, m.boleto_account AS m_account, m.clock_offset_ms AS m_clock_offset_ms, s.legal_name AS s_legal_name, s.tax_id AS s_tax_id
       FROM charges c JOIN merchants m ON m.id = c.merchant_id LEFT JOIN submerchants s ON s.id = c.submerchant_id
      WHERE c.id = ? AND c.payment_method = 'boleto'`,
    [id],
  );
  if (!row?.boleto_barcode) return null;
  return {
    row,
    beneficiary: row.s_legal_name ? { name: row.s_legal_name, taxId: row.s_tax_id } : { name: row.m_name, taxId: null },
    account: row.m_account ?? '',
    now: new Date(deps.clock.now().getTime() + clockOffset(deps, row.m_clock_offset_ms)),
  };
}
