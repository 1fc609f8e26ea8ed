/** Merchant transaction PIN: 4 digits, not trivially guessable. */
export const PIN_RE = /^\d{4}$/;
/** consecutive wrong PINs before PIN-protected operations lock */
export const PIN_MAX_ATTEMPTS = 5;
export const PIN_LOCK_MS = 15 * 60 * 1000;

/** Why a PIN is too easy to guess, or null. Repeated digits (1111) and straight runs (1234, 9876). */
export function weakPinReason(pin: string): string | null {
  if (/^(\d)\1{3}$/.test(pin)) return 'must not be one digit repeated (e.g. 1111)';
  const d = [...pin].map(Number);
  const steps = d.slice(1).map((x, i) => x - d[i]!);
  if (steps.every((s) => s === 1) || steps.every((s) => s === -1)) return 'must not be a run of consecutive digits (e.g. 1234 or 4321)';
  return null;
}
