/**
 * Versioned migrations, applied in order. `sql(dialect)` returns DDL for the engine; keep it
 * portable (TEXT ids and timestamps, BIGINT cents, INTEGER 0/1 flags, TEXT JSON) and branch on
 * the dialect only where the engines really differ.
 * Versions: 1xx foundation, 2xx money, 3xx onboarding, 4xx webhooks, 5xx later work.
 */
import { m100_foundation } from './100_foundation.js';
import { m110_meta } from './110_meta.js';
import { m200_ledger } from './200_ledger.js';
import { m250_withdrawals } from './250_withdrawals.js';
import { m260_recipients } from './260_recipients.js';
import { m270_payment_links } from './270_payment_links.js';
import { m210_charges } from './210_charges.js';
import { m211_wallet_entry_seq } from './211_wallet_entry_seq.js';
import { m300_onboarding } from './300_onboarding.js';
import { m400_webhooks } from './400_webhooks.js';
import { m120_files } from './120_files.js';
import { m500_checkout } from './500_checkout.js';
import { m510_charge_counts } from './510_charge_counts.js';
import { m530_idempotency_expiry } from './530_idempotency_expiry.js';
import { m540_checkout_holds } from './540_checkout_holds.js';
import { m550_webhook_secret_rotation } from './550_webhook_secret_rotation.js';
import { m560_refunds } from './560_refunds.js';
import { m570_append_indexes } from './570_append_indexes.js';
import { m580_drop_idempotency_expiry } from './580_drop_idempotency_expiry.js';
import { m590_pin_window } from './590_pin_window.js';
import { m610_wallet_entry_sums } from './610_wallet_entry_sums.js';
import { m620_card_token_match } from './620_card_token_match.js';
import { m621_file_attachment } from './621_file_attachment.js';
import { m630_withdrawal_request_hash_alg } from './630_withdrawal_request_hash_alg.js';
import { m710_submerchant_changes } from './710_submerchant_changes.js';
import { m720_pricing } from './720_pricing.js';
import { m730_authorize_capture } from './730_authorize_capture.js';
import { m740_receivable_deductions } from './740_receivable_deductions.js';
import { m741_negative_balances } from './741_negative_balances.js';
import { m742_merchant_files } from './742_merchant_files.js';
import { m743_chargebacks } from './743_chargebacks.js';
import { m750_due_dated_charges } from './750_due_dated_charges.js';
import { m760_wallet_entry_blocks } from './760_wallet_entry_blocks.js';
import { m770_pix_returns } from './770_pix_returns.js';

export interface Migration {
  version: number;
  name: string;
  sql: (dialect: 'sqlite' | 'postgres') => string;
}

export const MIGRATIONS: readonly Migration[] = [
  m100_foundation,
  m110_meta,
  m120_files,
  m200_ledger,
  m210_charges,
  m211_wallet_entry_seq,
  m250_withdrawals,
  m260_recipients,
  m270_payment_links,
  m300_onboarding,
  m400_webhooks,
  m500_checkout,
  m510_charge_counts,
  m530_idempotency_expiry,
  m540_checkout_holds,
  m550_webhook_secret_rotation,
  m560_refunds,
  m570_append_indexes,
  m580_drop_idempotency_expiry,
  m590_pin_window,
  m610_wallet_entry_sums,
  m620_card_token_match,
  m621_file_attachment,
  m630_withdrawal_request_hash_alg,
  m710_submerchant_changes,
  m720_pricing,
  m730_authorize_capture,
  m740_receivable_deductions,
  m741_negative_balances,
  m742_merchant_files,
  m743_chargebacks,
  m750_due_dated_charges,
  m760_wallet_entry_blocks,
  m770_pix_returns,
].sort((a, b) => a.version - b.version);
