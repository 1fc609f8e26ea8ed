import { describe, expect, it } from 'vitest';
import { withdrawalFee } from '../../src/domain/payouts.js';
import { DEFAULT_PRICING } from '../../src/contract/resources/pricing.js';
import { checkPixKey } from '../../src/domain/pix.js';
import { weakPinReason } from '../../src/domain/pin.js';
import { sandboxPayoutFailure } from '../../src/domain/sandboxPayouts.js';

describe('withdrawal fees (worked examples)', () => {
  it.each([
    ['pix', 1, 0],
    ['pix', 1_000_000, 0],
    ['ted', 368, 367],
    ['ted', 1_000_000, 367],
    ['cryptocurrency', 101, 100], // 1 % = 1.01 → minimum 100
    ['cryptocurrency', 10_000, 100], // 1 % = 100
    ['cryptocurrency', 10_049, 100], // 100.49 → 100
    ['cryptocurrency', 10_050, 101], // 100.5 → 101 (half up)
    ['cryptocurrency', 1_234_567, 12_346], // 12 345.67 → 12 346
  ] as const)('%s of %i cents → fee %i', (type, amount, fee) => {
    expect(withdrawalFee(amount, DEFAULT_PRICING.withdrawal_fees[type])).toBe(fee);
  });

  it('takes any rule: a fixed part plus a rate, never below the minimum', () => {
    expect(withdrawalFee(10_000, { fixed_amount: 200, bps: 50, min_amount: 0 })).toBe(250);
    expect(withdrawalFee(100, { fixed_amount: 0, bps: 50, min_amount: 75 })).toBe(75);
    expect(withdrawalFee(1, { fixed_amount: 0, bps: 0, min_amount: 0 })).toBe(0);
  });
});

describe('pix keys', () => {
  it('canonicalises and rejects by type', () => {
    expect(checkPixKey('phone', '11987654321')).toEqual({ ok: true, key: '+5511987654321' });
    expect(checkPixKey('cnpj', '12.abc.345/01de-35')).toEqual({ ok: true, key: '12ABC34501DE35' });
    expect(checkPixKey('email', 'a'.repeat(70) + '@ex.com').ok).toBe(true); // 77 characters: the limit
    expect(checkPixKey('email', 'a'.repeat(71) + '@ex.com').ok).toBe(false);
    expect(checkPixKey('phone', '+5536987654321').ok).toBe(false); // DDD 36 is not in use
  });
});

describe('PIN strength', () => {
  it('refuses repeated digits and straight runs only', () => {
    expect(weakPinReason('0000')).toMatch(/repeated/);
    expect(weakPinReason('3456')).toMatch(/consecutive/);
    expect(weakPinReason('6543')).toMatch(/consecutive/);
    expect(weakPinReason('1324')).toBeNull();
    expect(weakPinReason('9012')).toBeNull();
  });
});

describe('sandbox payout magic values', () => {
  it('match by type and field; everything else completes', () => {
    expect(sandboxPayoutFailure('ted', 5_099, {})?.failure_reason).toBe('destination_rejected');
    expect(sandboxPayoutFailure('pix', 5_000, { pix_key: 'fail@mpay.test' })?.failure_reason).toBe('pix_key_not_found');
    expect(sandboxPayoutFailure('ted', 5_000, { pix_key: 'fail@mpay.test' })).toBeUndefined();
    expect(sandboxPayoutFailure('ted', 5_000, { account_number: '99999999' })?.fails_at).toBe('pending');
    expect(sandboxPayoutFailure('pix', 5_098, { pix_key: 'ana@example.com' })).toBeUndefined();
  });
});
