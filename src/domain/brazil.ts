/**
 * Brazilian registry data used by onboarding: the 27 federative units (26 states and the
 * Federal District), CEP and tax-id normalisation.
 */
export const UFS = [
  'AC', 'AL', 'AP', 'AM', 'BA', 'CE', 'DF', 'ES', 'GO', 'MA', 'MT', 'MS', 'MG', 'PA',
  'PB', 'PR', 'PE', 'PI', 'RJ', 'RN', 'RS', 'RO', 'RR', 'SC', 'SP', 'SE', 'TO',
] as const;

/**
 * A CPF or CNPJ as people type it ("123.456.789-09", "12.ABC.345/01DE-35") becomes the bare
 * form we store: separators (dot, hyphen, slash, spaces) removed, letters upper-cased.
 * Nothing else is forgiven: what remains must be a valid CPF or CNPJ.
 */
export function normalizeTaxId(value: string): string {
  return value.replace(/[.\-/\s]/g, '').toUpperCase();
}

/** "01310-100" or "01310100" → "01310100"; anything else is returned unchanged (and fails). */
export function normalizeCep(value: string): string {
  const v = value.trim();
  return /^\d{5}-\d{3}$/.test(v) ? v.replace('-', '') : v;
}

/** A calendar date YYYY-MM-DD that exists (no 2023-02-29). */
export function isRealDate(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === value;
}
