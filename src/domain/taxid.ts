/**
 * Brazilian tax ids. CPF: 11 digits, two mod-11 check digits. CNPJ: 14 characters, the first
 * 12 of [0-9A-Z] (the alphanumeric form in force since July 2026) and 2 numeric check digits;
 * each character weighs (ASCII code - 48), so digits keep their face value.
 * Numbers made of one repeated character are rejected.
 */

function mod11Digit(sum: number): number {
  const r = sum % 11;
  return r < 2 ? 0 : 11 - r;
}

/** The two check digits of a CPF whose first nine digits are `base9`. */
export function cpfCheckDigits(base9: string): string {
  const d = [...base9].map((c) => c.charCodeAt(0) - 48);
  const d1 = mod11Digit(d.reduce((acc, x, i) => acc + x * (10 - i), 0));
  const d2 = mod11Digit([...d, d1].reduce((acc, x, i) => acc + x * (11 - i), 0));
  return `${d1}${d2}`;
}

export function isValidCpf(value: string): boolean {
  if (!/^\d{11}$/.test(value) || /^(\d)\1{10}$/.test(value)) return false;
  return cpfCheckDigits(value.slice(0, 9)) === value.slice(9);
}

const CNPJ_W1 = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
const CNPJ_W2 = [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];

export function cnpjCheckDigits(base12: string): string {
  const v = [...base12].map((c) => c.charCodeAt(0) - 48);
  const d1 = mod11Digit(v.reduce((acc, x, i) => acc + x * CNPJ_W1[i]!, 0));
  const v2 = [...v, d1];
  const d2 = mod11Digit(v2.reduce((acc, x, i) => acc + x * CNPJ_W2[i]!, 0));
  return `${d1}${d2}`;
}

export function isValidCnpj(value: string): boolean {
  if (!/^[0-9A-Z]{12}\d{2}$/.test(value) || /^(.)\1{13}$/.test(value)) return false;
  return cnpjCheckDigits(value.slice(0, 12)) === value.slice(12);
}

/** Accepts a CPF (11 digits) or a CNPJ (14 characters). */
export function taxIdKind(value: string): 'cpf' | 'cnpj' | null {
  if (isValidCpf(value)) return 'cpf';
  if (isValidCnpj(value)) return 'cnpj';
  return null;
}

/**
 * Why `value` (already normalised: bare, upper-case) is not the tax id an entity type needs,
 * or null when it is: a CPF for pf, a CNPJ for pj, with real check digits. When the value is a
 * valid id of the other kind the message says that entity_type is the problem. The server
 * answers with these messages and the CLI's onboarding shows them as the user types.
 */
export function taxIdProblem(value: string, entity: 'pf' | 'pj'): string | null {
  if (entity === 'pj' && /^\d{11}$/.test(value) && !isValidCpf(value)) {
    return 'has 11 digits, like a CPF, but entity_type is pj (a company), which needs a CNPJ of 14 characters; use entity_type pf for an individual';
  }
  return problemFor(value, WANTS[entity]);
}

/**
 * Why `value` (normalised) is not the tax id a charge's customer of `type` needs, or null: a
 * CPF for an individual, a CNPJ for a company, with real check digits. One message, which
 * names the other kind when the value is a valid id of it.
 */
export function customerTaxIdProblem(value: string, type: 'individual' | 'company'): string | null {
  return problemFor(value, WANTS[type]);
}

/** Which kind each type of holder needs, and the words for "needs one" and "is the other kind". */
const WANTS = {
  pf: { kind: 'cpf', needs: 'for entity_type pf', other: 'is a CNPJ, but entity_type is pf (an individual), which needs a CPF; use entity_type pj for a company' },
  pj: { kind: 'cnpj', needs: 'for entity_type pj', other: 'is a CPF, but entity_type is pj (a company), which needs a CNPJ; use entity_type pf for an individual' },
  individual: { kind: 'cpf', needs: 'for an individual customer', other: 'is a CNPJ, but the customer type is individual, which needs a CPF; use type company for a company' },
  company: { kind: 'cnpj', needs: 'for a company customer', other: 'is a CPF, but the customer type is company, which needs a CNPJ; use type individual for a person' },
} as const;

function problemFor(value: string, w: (typeof WANTS)[keyof typeof WANTS]): string | null {
  const [valid, validOther, problem] = w.kind === 'cpf' ? [isValidCpf, isValidCnpj, cpfProblem] : [isValidCnpj, isValidCpf, cnpjProblem];
  if (valid(value)) return null;
  if (validOther(value)) return w.other;
  return problem(value, w.needs);
}

/** Why a value that is not a valid CPF is not one; `needs` says who needs a CPF. */
function cpfProblem(value: string, needs: string): string {
  if (!/^\d{11}$/.test(value)) return `must be a CPF of 11 digits ${needs}`;
  if (/^(\d)\1{10}$/.test(value)) return 'is not a valid CPF (all digits are the same)';
  return 'is not a valid CPF (the check digits do not match)';
}

/** Why a value that is not a valid CNPJ is not one; `needs` says who needs a CNPJ. */
function cnpjProblem(value: string, needs: string): string {
  if (!/^[0-9A-Z]{12}\d{2}$/.test(value)) return `must be a CNPJ of 14 characters ${needs} (12 digits or capital letters, then 2 check digits)`;
  if (/^(.)\1{13}$/.test(value)) return 'is not a valid CNPJ (all characters are the same)';
  return 'is not a valid CNPJ (the check digits do not match)';
}

/** A bare CPF or CNPJ as printed: 529.982.247-25, 11.222.333/0001-81 (anything else unchanged). */
export function formatTaxId(value: string): string {
  if (/^\d{11}$/.test(value)) return `${value.slice(0, 3)}.${value.slice(3, 6)}.${value.slice(6, 9)}-${value.slice(9)}`;
  if (/^[0-9A-Z]{14}$/.test(value)) return `${value.slice(0, 2)}.${value.slice(2, 5)}.${value.slice(5, 8)}/${value.slice(8, 12)}-${value.slice(12)}`;
  return value;
}
