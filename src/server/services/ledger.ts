import type { Queryable } from '../../store/db.js';
import type { IdGenerator } from '../../domain/ids.js';
import { assertCents } from '../../domain/money.js';
import { ApiError } from '../errors.js';

export type Direction = 'credit' | 'debit';

/** A wallet holds at most R$ 10 trillion: far above any real balance, and every sum of
 *  balances and amounts stays an exact integer in JavaScript. */
export const MAX_WALLET_BALANCE = 1_000_000_000_000_000;

export interface EntryRow {
  id: string;
  wallet_id: string;
  direction: Direction;
  amount: number;
  balance_after: number;
  reference_type: string;
  reference_id: string;
  description: string;
  created_at: string;
  /** position in the wallet's chain of entries (1, 2, 3…) */
  seq: number;
}

export interface Movement {
  walletId: string;
  amount: number;
  referenceType: string;
  referenceId: string;
  description: string;
  at: Date;
  /** the entry's id when the caller needs it before writing (an entry that is its own reference) */
  id?: string;
}

/** The reference types of the one debit that may take a wallet below zero: a chargeback's (`chargebackDebit`). */
export const CHARGEBACK_REFERENCE_TYPES = ['chargeback', 'chargeback_fee'] as const;
export type ChargebackReferenceType = (typeof CHARGEBACK_REFERENCE_TYPES)[number];

/**
 * The ledger's only writers. Each call moves the wallet balance with one conditional UPDATE
 * and appends one immutable entry carrying the running balance, inside the caller's
 * transaction. A debit that would take the balance below zero changes nothing and throws
 * `insufficient_funds` — every debit but a chargeback's (`mayGoNegative`, `chargebackDebit`),
 * which stops only at −MAX_WALLET_BALANCE. A credit raises a negative balance toward zero like
 * any other. The constraints of wallets and wallet_entries (migration 741: an entry below zero
 * is a credit or a chargeback's debit) are the last line of defence.
 */
export async function post(q: Queryable, ids: IdGenerator, direction: Direction, m: Movement, mayGoNegative = false): Promise<EntryRow> {
  assertCents(m.amount);
  if (m.amount <= 0) throw new RangeError('a ledger movement must be a positive number of cents');
  if (m.amount > MAX_WALLET_BALANCE) throw new ApiError('business_rule', `An amount cannot exceed ${MAX_WALLET_BALANCE} cents`);
  const ts = m.at.toISOString();
  const row =
    direction === 'credit'
      ? await q.get<{ balance: number; entry_seq: number }>(
          'UPDATE wallets SET balance = balance + ?, entry_seq = entry_seq + 1, updated_at = ? WHERE id = ? AND balance <= ? RETURNING balance, entry_seq',
          [m.amount, ts, m.walletId, MAX_WALLET_BALANCE - m.amount],
        )
      : await q.get<{ balance: number; entry_seq: number }>(
          'UPDATE wallets SET balance = balance - ?, entry_seq = entry_seq + 1, updated_at = ? WHERE id = ? AND balance >= ? RETURNING balance, entry_seq',
          [m.amount, ts, m.walletId, mayGoNegative ? m.amount - MAX_WALLET_BALANCE : m.amount],
        );
  if (!row) {
    const exists = await q.get('SELECT id FROM wallets WHERE id = ?', [m.walletId]);
    if (!exists) throw new Error(`wallet ${m.walletId} does not exist`);
    if (direction === 'credit') {
      throw new ApiError('business_rule', `The wallet balance cannot exceed ${MAX_WALLET_BALANCE} cents`);
    }
    if (mayGoNegative) throw new ApiError('business_rule', `The wallet balance cannot go below −${MAX_WALLET_BALANCE} cents`);
    throw new ApiError('insufficient_funds', 'The wallet balance is not enough for this amount');
  }
  const entry: EntryRow = {
    id: m.id ?? ids(),
    wallet_id: m.walletId,
    direction,
    amount: m.amount,
    balance_after: Number(row.balance),
    reference_type: m.referenceType,
    reference_id: m.referenceId,
    description: m.description,
    created_at: ts,
    seq: Number(row.entry_seq),
  };
  await q.run(
    `INSERT INTO wallet_entries (id, wallet_id, direction, amount, balance_after, reference_type, reference_id, description, created_at, seq)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [entry.id, entry.wallet_id, entry.direction, entry.amount, entry.balance_after, entry.reference_type, entry.reference_id, entry.description, entry.created_at, entry.seq],
  );
  return entry;
}

export const credit = (q: Queryable, ids: IdGenerator, m: Movement) => post(q, ids, 'credit', m);
export const debit = (q: Queryable, ids: IdGenerator, m: Movement) => post(q, ids, 'debit', m);

/**
 * A chargeback's debit (the disputed part of a party, the fee of a lost or accepted one): the one
 * debit that may take a wallet below zero. Only src/server/services/chargebacks.ts calls it.
 */
export const chargebackDebit = (q: Queryable, ids: IdGenerator, m: Movement & { referenceType: ChargebackReferenceType }) => post(q, ids, 'debit', m, true);

/**
 * Refuses (422 `negative_balance`) what may not draw on a wallet whose balance is below zero —
 * a withdrawal, an anticipation — in the caller's transaction, the wallet's row locked so that a
 * chargeback committing at once is seen before or after, never halfway.
 */
export async function refuseWhileNegative(q: Queryable, walletId: string, what: string, field?: string): Promise<void> {
  const w = await q.get<{ balance: number | string }>(`SELECT balance FROM wallets WHERE id = ?${q.dialect.forUpdate}`, [walletId]);
  const balance = Number(w?.balance ?? 0);
  if (balance >= 0) return;
  const message = `the wallet ${walletId} is at ${balance} cents, below zero after a chargeback: ${what} waits until settlements bring it back to zero`;
  throw new ApiError('negative_balance', field ? `${field}: ${message}` : `The ${message.slice(4)}`, field ? [{ field, message }] : undefined);
}
