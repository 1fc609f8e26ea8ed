import type { Merchant } from '../../contract/resources/merchant.js';
import { merchantRecord } from './merchants.js';
import { PIN_LOCK_MS, PIN_MAX_ATTEMPTS } from '../../domain/pin.js';
import type { ServiceContext } from '../context.js';
import { ApiError, } from '../errors.js';

interface PinRow {
  pin_hash: string | null;
  pin_failed_attempts: number;
  pin_locked_until: string | null;
}

/**
 * Checks a presented PIN against the merchant's. Does nothing when the merchant has no PIN.
 * Missing → 422 pin_required; wrong → 422 invalid_pin. After PIN_MAX_ATTEMPTS consecutive
 * wrong PINs every PIN-protected operation answers 422 pin_locked for PIN_LOCK_MS (server
 * clock), so 10 000 combinations cannot be tried. The failure count is written in its own
 * transaction: the refused operation itself changes nothing.
 */
export async function checkPin(ctx: ServiceContext, given: string | undefined, field = 'pin'): Promise<{ enabled: boolean }> {
  const row = await ctx.db.get<PinRow>('SELECT pin_hash, pin_failed_attempts, pin_locked_until FROM merchants WHERE id = ?', [ctx.merchantId]);
  if (!row?.pin_hash) return { enabled: false };
  const now = ctx.deps.clock.now();
  if (row.pin_locked_until && row.pin_locked_until > now.toISOString()) {
    const wait = Math.max(1, Math.ceil((Date.parse(row.pin_locked_until) - now.getTime()) / 1000));
    throw new ApiError('pin_locked', `Too many wrong PINs; PIN-protected operations are locked for ${wait} s`, undefined, { 'Retry-After': String(wait) });
  }
  if (given === undefined) {
    throw new ApiError('pin_required', `${field}: the merchant has a transaction PIN; send it in ${field}`, [{ field, message: 'is required: the merchant has a transaction PIN' }]);
  }
  if (ctx.deps.keyring.verifySecret(given, row.pin_hash)) {
    if (row.pin_failed_attempts) await ctx.db.run('UPDATE merchants SET pin_failed_attempts = 0, pin_locked_until = NULL WHERE id = ?', [ctx.merchantId]);
    return { enabled: true };
  }
  const after = await ctx.db.tx(async (q) => {
    const r = await q.get<{ n: number }>('UPDATE merchants SET pin_failed_attempts = pin_failed_attempts + 1 WHERE id = ? RETURNING pin_failed_attempts AS n', [
      ctx.merchantId,
    ]);
    const n = Number(r?.n ?? 0);
    if (n >= PIN_MAX_ATTEMPTS) {
      await q.run('UPDATE merchants SET pin_failed_attempts = 0, pin_locked_until = ? WHERE id = ?', [
        new Date(now.getTime() + PIN_LOCK_MS).toISOString(),
        ctx.merchantId,
      ]);
    }
    return n;
  });
  if (after >= PIN_MAX_ATTEMPTS) {
    const wait = Math.ceil(PIN_LOCK_MS / 1000);
    throw new ApiError('pin_locked', `Wrong PIN; after ${PIN_MAX_ATTEMPTS} wrong PINs PIN-protected operations are locked for ${wait} s`, undefined, {
      'Retry-After': String(wait),
    });
  }
  const left = PIN_MAX_ATTEMPTS - after;
  throw new ApiError('invalid_pin', `${field}: wrong PIN; ${left} attempt${left === 1 ? '' : 's'} left before the PIN locks`, [
    { field, message: 'does not match the transaction PIN' },
  ]);
}

export async function setPin(ctx: ServiceContext, pin: string, currentPin: string | undefined): Promise<Merchant> {
  await checkPin(ctx, currentPin, 'current_pin');
  await ctx.db.run('UPDATE merchants SET pin_hash = ?, pin_failed_attempts = 0, pin_locked_until = NULL, updated_at = ? WHERE id = ?', [
    ctx.deps.keyring.hashSecret(pin),
    ctx.now().toISOString(),
    ctx.merchantId,
  ]);
  return merchantRecord(ctx);
}

export async function disablePin(ctx: ServiceContext, currentPin: string): Promise<Merchant> {
  const { enabled } = await checkPin(ctx, currentPin, 'current_pin');
  if (!enabled) throw new ApiError('invalid_state', 'The merchant has no transaction PIN to disable');
  await ctx.db.run('UPDATE merchants SET pin_hash = NULL, pin_failed_attempts = 0, pin_locked_until = NULL, updated_at = ? WHERE id = ?', [
    ctx.now().toISOString(),
    ctx.merchantId,
  ]);
  return merchantRecord(ctx);
}
