import type { Db } from '../../src/store/db.js';
import { uuidv7 } from '../../src/domain/ids.js';

/** A wallet entry as the seeder wrote it. */
export interface SeededEntry {
  id: string;
  seq: number;
  direction: 'credit' | 'debit';
  amount: number;
  balance_after: number;
  created_at: string;
}

const DAY = 86_400_000;

/**
 * Appends `n` entries to a wallet that has none, 500 rows a statement, shaped like the ledger
 * writes them (seq 1…n, balance_after the running balance in write order, the wallet's
 * balance and entry_seq moved to match), spread over the `days` before `end`: PIX credits,
 * refunds and withdrawals (debits, only while the balance covers them), and at every São Paulo
 * midnight a batch of receivable settlements dated at that midnight, of which 40 % are written
 * after the next few entries — booked late, as due work that settles one batch a request does.
 * Returns the entries in write order.
 */
export async function seedWalletEntries(db: Db, walletId: string, n: number, end = Date.now() - 60_000, days = 365): Promise<SeededEntry[]> {
  const span = days * DAY;
  const start = end - span;
  const rows: (SeededEntry & { reference_type: string; description: string })[] = [];
  let balance = 0;
  const push = (at: number, direction: 'credit' | 'debit', amount: number, reference_type: string, description: string) => {
    balance += direction === 'credit' ? amount : -amount;
    rows.push({ id: uuidv7(at), seq: rows.length + 1, direction, amount, balance_after: balance, created_at: new Date(at).toISOString(), reference_type, description });
  };
  let midnight = Math.ceil((start - 3 * 3600_000) / DAY) * DAY + 3 * 3600_000; // 00:00 in São Paulo (UTC−3)
  let late: { at: number; amount: number }[] = [];
  for (let k = 0; rows.length < n; k++) {
    const at = start + Math.floor((rows.length / n) * span);
    if (at >= midnight) {
      const batch = 1 + (k % 40);
      for (let i = 0; i < batch; i++) {
        const amount = 900 + ((k * 31 + i * 7) % 90_000);
        if (i < batch * 0.6) push(midnight, 'credit', amount, 'receivable', 'Receivable settled');
        else late.push({ at: midnight, amount });
      }
      midnight += DAY;
    }
    if (late.length && k % 5 === 4) {
      for (const l of late) push(l.at, 'credit', l.amount, 'receivable', 'Receivable settled');
      late = [];
    }
    const amount = 500 + ((k * 7919) % 50_000);
    if (k % 4 === 3 && balance >= amount) push(at, 'debit', amount, k % 8 === 3 ? 'refund' : 'withdrawal', k % 8 === 3 ? 'Refund of a charge' : 'Withdrawal');
    else push(at, 'credit', amount, 'charge', `PIX charge ${uuidv7(at)}`);
  }
  rows.length = n;
  const BATCH = 500;
  for (let done = 0; done < n; done += BATCH) {
    const batch = rows.slice(done, done + BATCH);
    await db.run(
      `INSERT INTO wallet_entries (id, wallet_id, direction, amount, balance_after, reference_type, reference_id, description, created_at, seq)
       VALUES ${batch.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
      batch.flatMap((e) => [e.id, walletId, e.direction, e.amount, e.balance_after, e.reference_type, uuidv7(Date.parse(e.created_at)), e.description, e.created_at, e.seq]),
    );
  }
  const last = rows[n - 1]!;
  await db.run('UPDATE wallets SET balance = ?, entry_seq = ?, updated_at = ? WHERE id = ?', [last.balance_after, n, last.created_at, walletId]);
  return rows.map(({ id, seq, direction, amount, balance_after, created_at }) => ({ id, seq, direction, amount, balance_after, created_at }));
}
