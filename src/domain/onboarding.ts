/**
 * Onboarding rules that need no storage: which document types each entity type may send,
 * which are required, what is still missing for a submerchant to go under review, which fields
 * a review freezes, and who is old enough (birth dates on the São Paulo calendar).
 */
import { isRealDate } from './brazil.js';
import { localDate } from './calendar.js';

export type EntityType = 'pf' | 'pj';

// ---------------------------------------------------------------------------------------------
// Birth dates and age

/** A person (a pf submerchant, a pf partner) must be of age: 18 (Código Civil, art. 5). */
export const ADULT_AGE = 18;

const ymd = (v: string): [number, number, number] => v.split('-').map(Number) as [number, number, number];
const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

/**
 * The day `years` after `birth` (YYYY-MM-DD). A 29 February birthday falls on 1 March in a
 * common year: a period of years ends on the day of the same number, or the next one when the
 * month has none (Código Civil, art. 132 §3).
 */
export function anniversary(birth: string, years: number): string {
  const [y, m, d] = ymd(birth);
  const year = y + years;
  const [mm, dd] = m === 2 && d === 29 && !isLeap(year) ? [3, 1] : [m, d];
  return `${String(year).padStart(4, '0')}-${String(mm).padStart(2, '0')}-${String(dd).padStart(2, '0')}`;
}

/** Whole years of age on `day` of someone born on `birth` (both YYYY-MM-DD). */
export function ageOn(birth: string, day: string): number {
  let age = ymd(day)[0] - ymd(birth)[0];
  if (anniversary(birth, age) > day) age--;
  return age;
}

export type BirthDateProblem =
  | { kind: 'not_a_date' }
  | { kind: 'before_1900' }
  | { kind: 'future'; today: string }
  | { kind: 'under_age'; age: number; today: string; adultOn: string };

/**
 * What is wrong with a birth date (YYYY-MM-DD) at the instant `now`, judged on the calendar of
 * São Paulo (where the merchant's day is): not a real date, before 1900, after today, or (for
 * `adult`) less than ADULT_AGE years ago. Null when it is fine. The service words it in
 * English with ISO dates (`birthDateProblem`); the CLI's wizard in the user's language and in
 * the form it asked for (DD/MM/AAAA).
 */
export function checkBirthDate(value: string, now: Date, o: { adult: boolean } = { adult: true }): BirthDateProblem | null {
  if (!isRealDate(value)) return { kind: 'not_a_date' };
  if (value < '1900-01-01') return { kind: 'before_1900' };
  const today = localDate(now);
  if (value > today) return { kind: 'future', today };
  if (o.adult) {
    const age = ageOn(value, today);
    if (age < ADULT_AGE) return { kind: 'under_age', age, today, adultOn: anniversary(value, ADULT_AGE) };
  }
  return null;
}

/** The service's message for a birth date's problem, or null. */
export function birthDateProblem(value: string, now: Date, o: { adult: boolean } = { adult: true }): string | null {
  const p = checkBirthDate(value, now, o);
  switch (p?.kind) {
    case undefined:
      return null;
    case 'not_a_date':
      return 'must be a real calendar date in the form YYYY-MM-DD';
    case 'before_1900':
      return 'must be on or after 1900-01-01';
    case 'future':
      return 'must not be in the future';
    case 'under_age':
      return `must be at least ${ADULT_AGE} years ago: a person born on ${value} is ${p.age} on ${p.today} (today in São Paulo) and turns ${ADULT_AGE} on ${p.adultOn}`;
  }
}

// ---------------------------------------------------------------------------------------------
// Corrections

/**
 * The fields a review checks against the documents (identity, registry data): while a
 * submerchant is under_review they cannot change (PATCH /v1/submerchants/{id} answers 409
 * invalid_state naming them); the others (contact, descriptor, sales figures) can.
 */
export const UNDER_REVIEW_FIELDS = ['tax_id', 'legal_name', 'trade_name', 'birth_date', 'mother_name', 'cnaes'] as const;

/** The statuses in which a submerchant's data can be corrected. */
export const CORRECTABLE_STATUSES = ['pending', 'under_review'] as const;

export const COMPANY_DOCUMENT_TYPES = ['social_contract', 'contract_amendment', 'cnpj_card', 'proof_of_residence_company'] as const;
export const PERSON_DOCUMENT_TYPES = ['front_id', 'back_id', 'selfie_with_id', 'proof_of_residence'] as const;
export const PARTNER_DOCUMENT_TYPES = ['partner_front_id', 'partner_back_id', 'partner_selfie_with_id', 'partner_proof_of_residence'] as const;
export const DOCUMENT_TYPES = [...COMPANY_DOCUMENT_TYPES, ...PERSON_DOCUMENT_TYPES, ...PARTNER_DOCUMENT_TYPES] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

/** Seed rule 1: what each entity type must send (contract_amendment is optional for pj). */
export const REQUIRED_DOCUMENTS: Record<EntityType, readonly DocumentType[]> = {
  pj: ['social_contract', 'cnpj_card', 'proof_of_residence_company'],
  pf: ['front_id', 'back_id', 'selfie_with_id', 'proof_of_residence'],
};

/** Types a submerchant of this entity type may send at all. */
export function allowedDocumentTypes(entity: EntityType): readonly DocumentType[] {
  return entity === 'pj' ? [...COMPANY_DOCUMENT_TYPES, ...PARTNER_DOCUMENT_TYPES] : PERSON_DOCUMENT_TYPES;
}

/** What each document type is, in words a person recognises (used in messages and prompts). */
export const DOCUMENT_LABELS: Record<DocumentType, string> = {
  social_contract: 'articles of association (contrato social)',
  contract_amendment: 'contract amendment (alteração contratual)',
  cnpj_card: 'CNPJ card (cartão CNPJ)',
  proof_of_residence_company: "proof of the company's address",
  front_id: 'front of the ID document',
  back_id: 'back of the ID document',
  selfie_with_id: 'selfie holding the ID document',
  proof_of_residence: 'proof of residence',
  partner_front_id: "front of the partner's ID document",
  partner_back_id: "back of the partner's ID document",
  partner_selfie_with_id: 'selfie of the partner holding the ID document',
  partner_proof_of_residence: "partner's proof of residence",
};

export interface RequirementInput {
  entityType: EntityType;
  addresses: readonly { id: string }[];
  partners: readonly { id: string; name: string }[];
  /** every document of the submerchant, any status */
  documents: readonly { id: string; type: string; legal_representative_id: string | null; status: string; expires_at: string | null }[];
  now: Date;
}

export type RequirementKind = 'address' | 'legal_representative' | 'document';

export interface MissingItem {
  kind: RequirementKind;
  type?: DocumentType;
  legal_representative_id?: string;
  message: string;
}

export interface SatisfiedItem {
  kind: RequirementKind;
  type?: DocumentType;
  legal_representative_id?: string;
  /** the address, partner or document that satisfies it */
  resource_id: string;
}

export interface Requirements {
  complete: boolean;
  missing: MissingItem[];
  satisfied: SatisfiedItem[];
}

/**
 * What is still missing: an address; for a pj at least one legal representative, the company
 * documents and the four partner documents of each partner; for a pf the four personal
 * documents. A document counts when it is the current one of its type (not replaced), not
 * rejected and not expired on the merchant's clock.
 */
export function computeRequirements(i: RequirementInput): Requirements {
  const missing: MissingItem[] = [];
  const satisfied: SatisfiedItem[] = [];
  const now = i.now.getTime();

  const first = i.addresses[0];
  if (first) satisfied.push({ kind: 'address', resource_id: first.id });
  else missing.push({ kind: 'address', message: 'an address is required: add one with POST /v1/submerchants/{id}/addresses' });

  if (i.entityType === 'pj') {
    const firstPartner = i.partners[0];
    if (firstPartner) satisfied.push({ kind: 'legal_representative', resource_id: firstPartner.id });
    else {
      missing.push({
        kind: 'legal_representative',
        message: 'a pj submerchant needs at least one legal representative: add one with POST /v1/submerchants/{id}/legal-representatives',
      });
    }
  }

  const check = (type: DocumentType, partner?: { id: string; name: string }) => {
    const current = i.documents.filter(
      (d) => d.type === type && d.status !== 'replaced' && (partner ? d.legal_representative_id === partner.id : d.legal_representative_id === null),
    );
    const good = current.find((d) => d.status !== 'rejected' && !(d.expires_at && Date.parse(d.expires_at) <= now));
    const ref = partner ? { legal_representative_id: partner.id } : {};
    if (good) {
      satisfied.push({ kind: 'document', type, ...ref, resource_id: good.id });
      return;
    }
    const who = partner ? ` of partner ${partner.name} (${partner.id})` : '';
    let why = 'is missing';
    if (current.some((d) => d.status === 'rejected')) why = 'was rejected; send a new one';
    else if (current.length) why = 'has expired; send a current one';
    missing.push({ kind: 'document', type, ...ref, message: `document ${type} (${DOCUMENT_LABELS[type]})${who} ${why}` });
  };

  for (const t of REQUIRED_DOCUMENTS[i.entityType]) check(t);
  if (i.entityType === 'pj') for (const p of i.partners) for (const t of PARTNER_DOCUMENT_TYPES) check(t, p);

  return { complete: missing.length === 0, missing, satisfied };
}
