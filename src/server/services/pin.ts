import type { Merchant } from '../../contract/resources/merchant.js';
import { merchantRecord } from './merchants.js';
import { PIN_LOCK_MS, PIN_MAX_ATTEMPTS } from '../../domain/pin.js';
import type { ServiceContext } from './context.js';
import { ApiError } from '../errors.js';

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
  return new ApiError('pin_locked', message, undefined, { 'Retry-After': String(wait) });
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
