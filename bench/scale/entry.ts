/** What bench/scale/run.mjs needs from the sources, bundled by esbuild at run time. */
import type { Db } from '../../src/store/db.js';
import { uuidv7 } from '../../src/domain/ids.js';

export { openRuntime } from '../../src/server/runtime.js';
export { createMerchant } from '../../src/server/services/merchants.js';
export { credit } from '../../src/server/services/ledger.js';

// no pending card charges and no PIX due to expire: the due work must find nothing to move
const STATUSES = ['captured', 'captured', 'captured', 'captured', 'captured', 'captured', 'captured', 'failed', 'failed', 'refunded'] as const;
const customer = JSON.stringify({ name: 'Ana Souza', email: 'ana@example.com', tax_id: '52998224725', phone: '+5511987654321', type: 'individual' });

/**
 * Inserts `n` charges for a merchant, 5,000 per transaction, spread over the year up to
 * `end` (created_at increasing with the id, as the service writes them): 80 % card (mostly
 * captured, some failed/refunded), 20 % PIX (paid or expired; pending only in the last hour),
 * realistic JSON. Nothing is due: the due work finds nothing to move.
 */
export async function seedCharges(db: Db, merchantId: string, n: number, end = Date.now() - 60_000): Promise<void> {
  const span = 365 * 86_400_000;
  const start = end - span;
  const BATCH = 5000;
  for (let done = 0; done < n; ) {
    const size = Math.min(BATCH, n - done);
    await db.tx(async (q) => {
      for (let i = 0; i < size; i++) {
        const k = done + i;
        const at = new Date(start + Math.floor((k / n) * span));
        const ts = at.toISOString();
        const pix = k % 5 === 0;
        // PIX: paid or expired unpaid; pending only if created within the last hour (it expires an hour after)
        const recent = end - at.getTime() < 3600_000;
        const status = pix ? (recent && k % 3 === 1 ? 'pending' : (['captured', 'captured', 'failed'] as const)[k % 3]!) : STATUSES[k % STATUSES.length]!;
        const amount = 500 + ((k * 7919) % 500_000);
        const items = JSON.stringify([{ name: `Produto ${k % 97}`, quantity: 1, unit_price: amount, tangible: k % 2 === 0 }]);
        const fee = status === 'captured' || status === 'refunded' ? Math.round(amount * 0.0399) : null;
        await q.run(
          `INSERT INTO charges (id, merchant_id, submerchant_id, amount, shipping_amount, currency, status, payment_method, product_type,
             installments, customer, items, split_rules, parties, metadata, card_token, card_brand, card_first_six, card_last_four,
             card_holder_name, pix_qr_code, pix_expires_at, fee_amount, net_amount, failure_code, failure_reason, captured_at, failed_at,
             refunded_at, created_at, updated_at)
           VALUES (?, ?, NULL, ?, 0, 'BRL', ?, ?, ?, ?, ?, ?, '[]', '[]', NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [
            uuidv7(at.getTime()),
            merchantId,
            amount,
            status,
            pix ? 'pix' : 'credit_card',
            k % 2 === 0 ? 'physical' : 'digital',
            pix ? 1 : 1 + (k % 12),
            customer,
            items,
            pix ? null : 'tok_seeded',
            pix ? null : 'visa',
            pix ? null : '411111',
            pix ? null : '1111',
            pix ? null : 'ANA SOUZA',
            pix ? '00020126580014br.gov.bcb.pix0136seeded5204000053039865802BR5913LOJA6009SAO PAULO6304ABCD' : null,
            pix ? new Date(at.getTime() + 3600_000).toISOString() : null,
            fee,
            fee === null ? null : amount - fee,
            status === 'failed' ? (pix ? 'expired' : 'card_declined') : null,
            status === 'failed' ? (pix ? 'The PIX charge expired unpaid' : 'The card was declined by the issuer') : null,
            status === 'captured' || status === 'refunded' ? ts : null,
            status === 'failed' ? ts : null,
            status === 'refunded' ? ts : null,
            ts,
            ts,
          ],
        );
      }
    });
    done += size;
  }
}

export { seedWalletEntries } from '../../test/helpers/walletSeed.js';
export { onSchedule, percentile } from '../../test/helpers/schedule.js';
