/**
 * The merchant: its row in `merchants` has this one owner. Its creation (with its wallet and
 * first key pair), the lock of its row, its record, its sandbox clock and its transaction PIN.
 */
import { randomBytes } from 'node:crypto';
import type { Queryable } from '../../store/db.js';
import { PIN_LOCK_MS, PIN_MAX_ATTEMPTS } from '../../domain/pin.js';
import type { Merchant } from '../../contract/resources/merchant.js';
import type { Mode, ServiceContext, ServiceDeps } from './context.js';
import { ApiError, notFound } from '../errors.js';
import { effectivePricing, type Pricing } from '../../domain/pricing.js';
import { createWallet, walletOf } from './wallets.js';

export interface KeyPair {
  public_key: string;
  secret_key: string;
}

export function generateKeyPair(mode: Mode): KeyPair {
  const env = mode === 'production' ? 'live' : 'test';
  return {
    public_key: `pk_${env}_${randomBytes(16).toString('hex')}`,
    secret_key: `sk_${env}_${randomBytes(24).toString('base64url')}`,
  };
}

/**
 * Locks the merchant's row until the caller's transaction ends (`FOR UPDATE`; on SQLite a plain
 * read, as BEGIN IMMEDIATE already holds the database's one write lock), so that transactions
 * which count a merchant's rows and then write one run one at a time and each sees the last
 * one's write.
 */
export async function lockMerchant(q: Queryable, merchantId: string): Promise<void> {
  await q.get(`SELECT id FROM merchants WHERE id = ?${q.dialect.forUpdate}`, [merchantId]);
}

export interface NewMerchant {
  merchant_id: string;
  wallet_id: string;
  public_key: string;
  secret_key: string;
}

/** A merchant with its BRL wallet and first key pair, in the caller's transaction. */
export async function createMerchant(
  q: Queryable,
  deps: Pick<ServiceDeps, 'ids' | 'keyring' | 'mode'>,
  name: string,
  now: Date,
): Promise<NewMerchant> {
  const ts = now.toISOString();
  const merchantId = deps.ids();
  const keys = generateKeyPair(deps.mode);
  await q.run('INSERT INTO merchants (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)', [merchantId, name, ts, ts]);
  const walletId = await createWallet(q, deps.ids, merchantId, 'merchant', merchantId, now);
  await q.run(
    `INSERT INTO api_keys (id, merchant_id, name, public_key, secret_hash, is_active, allowed_ips, created_at)
     VALUES (?, ?, 'default', ?, ?, 1, '[]', ?)`,
    [deps.ids(), merchantId, keys.public_key, deps.keyring.hashSecret(keys.secret_key), ts],
  );
  return { merchant_id: merchantId, wallet_id: walletId, ...keys };
}

/** The merchant record of GET /v1/merchant. */
export async function merchantRecord(ctx: ServiceContext): Promise<Merchant> {
  const m = await ctx.db.get<{ id: string; name: string; pin_hash: string | null; pricing: string | null; created_at: string }>(
    'SELECT id, name, pin_hash, pricing, created_at FROM merchants WHERE id = ?',
    [ctx.merchantId],
  );
  const walletId = m && (ctx.walletId ?? (await walletOf(ctx.db, 'merchant', m.id)));
  if (!m || !walletId) throw notFound('Merchant');
  return {
    id: m.id,
    name: m.name,
    wallet_id: walletId,
    pin_enabled: !!m.pin_hash,
    mode: ctx.deps.mode,
    clock: ctx.now().toISOString(),
    pricing: effectivePricing(ctx.deps.pricing, m.pricing),
    created_at: m.created_at,
  };
}

/** The merchant's name (for a PIX charge's BR Code), if it exists. */
export async function merchantName(q: Queryable, merchantId: string): Promise<string | undefined> {
  return (await q.get<{ name: string }>('SELECT name FROM merchants WHERE id = ?', [merchantId]))?.name;
}

/** Moves the merchant's sandbox clock `ms` ahead, in a transaction of its own; returns its new offset (ms). */
export async function moveClock(ctx: ServiceContext, ms: number): Promise<number> {
  const ts = ctx.deps.clock.now().toISOString();
  const row = await ctx.db.tx((q) =>
    q.get<{ clock_offset_ms: number }>('UPDATE merchants SET clock_offset_ms = clock_offset_ms + ?, updated_at = ? WHERE id = ? RETURNING clock_offset_ms', [
      ms,
      ts,
      ctx.merchantId,
    ]),
  );
  return Number(row!.clock_offset_ms);
}

/** The merchant (or every merchant, by id) with its sandbox clock offset as stored. */
export function merchantClocks(q: Queryable, merchantId?: string): Promise<{ id: string; clock_offset_ms: number }[]> {
  return merchantId
    ? q.all<{ id: string; clock_offset_ms: number }>('SELECT id, clock_offset_ms FROM merchants WHERE id = ?', [merchantId])
    : q.all<{ id: string; clock_offset_ms: number }>('SELECT id, clock_offset_ms FROM merchants ORDER BY id');
}

interface Attempt {
  ok: number;
  n: number;
  ends: string | null;
}

/**
 * Compares a PIN and counts it when wrong, in one statement on the merchant's row, so however
 * many guesses arrive at once — from however many processes or replicas — each is compared
 * and counted in turn: at most PIN_MAX_ATTEMPTS wrong PINs in a window of PIN_LOCK_MS (server
 * clock), which opens with the first wrong one. Once they are spent the statement matches no
 * row until the window ends, so nothing more is compared, the right PIN included. A right PIN
 * changes nothing (a window that has ended is cleared), so right PINs sent at once never keep
 * each other out. Answers nothing when the merchant has no PIN or the window is spent.
 *
 * The comparison is of keyed hashes (HMAC-SHA256 of the PIN), made by the database.
 */
async function attempt(ctx: ServiceContext, given: string, now: Date): Promise<Attempt | undefined> {
  const at = now.toISOString();
  const h = ctx.deps.keyring.hashSecret(given);
  const ended = '(pin_window_ends IS NULL OR pin_window_ends <= ?)';
  return ctx.db.get<Attempt>(
    `UPDATE merchants SET
       pin_failed_attempts = CASE WHEN ${ended} THEN 0 ELSE pin_failed_attempts END + CASE WHEN pin_hash = ? THEN 0 ELSE 1 END,
       pin_window_ends = CASE WHEN NOT ${ended} THEN pin_window_ends WHEN pin_hash = ? THEN NULL ELSE ? END
     WHERE id = ? AND pin_hash IS NOT NULL AND (${ended} OR pin_failed_attempts < ?)
     RETURNING CASE WHEN pin_hash = ? THEN 1 ELSE 0 END AS ok, pin_failed_attempts AS n, pin_window_ends AS ends`,
    [at, h, at, h, new Date(now.getTime() + PIN_LOCK_MS).toISOString(), ctx.merchantId, at, PIN_MAX_ATTEMPTS, h],
  );
}

function lockedError(ends: string, now: Date, wrongNow: boolean): ApiError {
  const wait = Math.max(1, Math.ceil((Date.parse(ends) - now.getTime()) / 1000));
  const message = wrongNow
    ? `Wrong PIN; after ${PIN_MAX_ATTEMPTS} wrong PINs PIN-protected operations are locked for ${wait} s`
    : `Too many wrong PINs; PIN-protected operations are locked for ${wait} s`;
  return new ApiError('pin_locked', message, undefined, { retryAfterS: wait });
}

/**
 * Checks a presented PIN against the merchant's. Does nothing when the merchant has no PIN.
 * Missing → 422 pin_required; wrong → 422 invalid_pin. At most PIN_MAX_ATTEMPTS wrong PINs
 * are compared in a window of PIN_LOCK_MS (server clock) that opens with the first wrong one;
 * once they are spent every PIN-protected operation answers 422 pin_locked until the window
 * ends, even with the right PIN, so 10 000 combinations cannot be tried. A right PIN clears
 * nothing. The attempt is its own statement: the refused operation itself changes nothing.
 */
export async function checkPin(ctx: ServiceContext, given: string | undefined, field = 'pin'): Promise<{ enabled: boolean }> {
  const now = ctx.deps.clock.now();
  if (given === undefined) {
    const row = await ctx.db.get<{ pin_hash: string | null; n: number; ends: string | null }>(
      'SELECT pin_hash, pin_failed_attempts AS n, pin_window_ends AS ends FROM merchants WHERE id = ?',
      [ctx.merchantId],
    );
    if (!row?.pin_hash) return { enabled: false };
    if (row.ends && row.ends > now.toISOString() && Number(row.n) >= PIN_MAX_ATTEMPTS) throw lockedError(row.ends, now, false);
    throw new ApiError('pin_required', `${field}: the merchant has a transaction PIN; send it in ${field}`, [
      { field, message: 'is required: the merchant has a transaction PIN' },
    ]);
  }
  const tried = await attempt(ctx, given, now);
  if (!tried) {
    const row = await ctx.db.get<{ pin_hash: string | null; ends: string | null }>('SELECT pin_hash, pin_window_ends AS ends FROM merchants WHERE id = ?', [
      ctx.merchantId,
    ]);
    if (!row?.pin_hash) return { enabled: false };
    throw lockedError(row.ends ?? now.toISOString(), now, false);
  }
  if (Number(tried.ok) === 1) return { enabled: true };
  const n = Number(tried.n);
  if (n >= PIN_MAX_ATTEMPTS) throw lockedError(tried.ends ?? now.toISOString(), now, true);
  const left = PIN_MAX_ATTEMPTS - n;
  throw new ApiError('invalid_pin', `${field}: wrong PIN; ${left} attempt${left === 1 ? '' : 's'} left before the PIN locks`, [
    { field, message: 'does not match the transaction PIN' },
  ]);
}

export async function setPin(ctx: ServiceContext, pin: string, currentPin: string | undefined): Promise<Merchant> {
  await checkPin(ctx, currentPin, 'current_pin');
  await ctx.db.run('UPDATE merchants SET pin_hash = ?, updated_at = ? WHERE id = ?', [ctx.deps.keyring.hashSecret(pin), ctx.now().toISOString(), ctx.merchantId]);
  return merchantRecord(ctx);
}

export async function disablePin(ctx: ServiceContext, currentPin: string): Promise<Merchant> {
  const { enabled } = await checkPin(ctx, currentPin, 'current_pin');
  if (!enabled) throw new ApiError('invalid_state', 'The merchant has no transaction PIN to disable');
  await ctx.db.run('UPDATE merchants SET pin_hash = NULL, pin_failed_attempts = 0, pin_window_ends = NULL, updated_at = ? WHERE id = ?', [
    ctx.now().toISOString(),
    ctx.merchantId,
  ]);
  return merchantRecord(ctx);
}

/**
 * The effective pricing of a merchant, read in the caller's transaction (or from the store):
 * the server's pricing with its override laid over it. Here, not in services/pricing.ts, so a
 * withdrawal or a charge reads it without loading the pricing document's schema.
 */
export async function merchantPricing(q: Queryable, deps: Pick<ServiceDeps, 'pricing'>, merchantId: string): Promise<Pricing> {
  const m = await q.get<{ pricing: string | null }>('SELECT pricing FROM merchants WHERE id = ?', [merchantId]);
  return effectivePricing(deps.pricing, m?.pricing);
}
