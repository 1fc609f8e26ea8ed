/**
 * Onboarding rules that need no storage: which document types each entity type may send,
 * which are required, and what is still missing for a submerchant to go under review.
 */
export type EntityType = 'pf' | 'pj';

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
