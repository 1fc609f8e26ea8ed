import type { Address, LegalRepresentative, Submerchant, SubmerchantDocument } from '../../contract/resources/submerchants.js';
import { transition } from '../../store/transition.js';
import { computeRequirements, type EntityType, type Requirements } from '../../domain/onboarding.js';
import type { IdGenerator } from '../../domain/ids.js';
import { json, type Queryable } from '../../store/db.js';
import { notFound } from '../errors.js';
import { emitEvent } from './events.js';

/** Rows as stored, and their conversion to the contract's records. */
export interface SubmerchantRow {
  id: string;
  parent_merchant_id: string;
  entity_type: EntityType;
  trade_name: string;
  legal_name: string;
  tax_id: string;
  email: string;
  phone: string | null;
  website: string | null;
  description: string | null;
  soft_descriptor: string | null;
  birth_date: string | null;
  mother_name: string | null;
  status: Submerchant['status'];
  business_type: string | null;
  product_categories: string;
  average_ticket: number | null;
  monthly_revenue: number | null;
  reviewed_at: string | null;
  review_notes: string | null;
  mcc: string | null;
  cnaes: string;
  created_at: string;
  updated_at: string;
  wallet_id: string;
}

export const SUBMERCHANT_FROM = `submerchants s
  JOIN wallets w ON w.owner_type = 'submerchant' AND w.owner_id = s.id AND w.currency = 'BRL'`;
export const SUBMERCHANT_SELECT = `SELECT s.*, w.id AS wallet_id FROM ${SUBMERCHANT_FROM}`;

const money = (v: number | null) => (v === null || v === undefined ? null : String(v));

export function toSubmerchant(r: SubmerchantRow): Submerchant {
  return {
    id: r.id,
    parent_merchant_id: r.parent_merchant_id,
    entity_type: r.entity_type,
    trade_name: r.trade_name,
    legal_name: r.legal_name,
    tax_id: r.tax_id,
    email: r.email,
    phone: r.phone,
    website: r.website,
    description: r.description,
    soft_descriptor: r.soft_descriptor,
    birth_date: r.birth_date,
    mother_name: r.mother_name,
    status: r.status,
    business_type: r.business_type,
    product_categories: json.from<string[]>(r.product_categories, []),
    average_ticket: money(r.average_ticket),
    monthly_revenue: money(r.monthly_revenue),
    reviewed_at: r.reviewed_at,
    review_notes: r.review_notes,
    created_at: r.created_at,
    updated_at: r.updated_at,
    mcc: r.mcc,
    cnaes: json.from<Submerchant['cnaes']>(r.cnaes, []),
    wallet_id: r.wallet_id,
  };
}

export interface AddressRow extends Omit<Address, 'is_primary'> {
  is_primary: number;
}
export const toAddress = (r: AddressRow): Address => ({
  id: r.id,
  submerchant_id: r.submerchant_id,
  type: r.type,
  street: r.street,
  number: r.number,
  complement: r.complement,
  neighborhood: r.neighborhood,
  city: r.city,
  state: r.state,
  zip_code: r.zip_code,
  country: r.country,
  is_primary: !!r.is_primary,
  created_at: r.created_at,
});

export interface PartnerRow extends Omit<LegalRepresentative, 'is_admin' | 'participation_percentage'> {
  is_admin: number;
  participation_bp: number | null;
}
export const toPartner = (r: PartnerRow): LegalRepresentative => ({
  id: r.id,
  submerchant_id: r.submerchant_id,
  name: r.name,
  document: r.document,
  birth_date: r.birth_date,
  phone: r.phone,
  mother_name: r.mother_name,
  email: r.email,
  role: r.role,
  qualification: r.qualification,
  participation_percentage: r.participation_bp === null ? null : Number(r.participation_bp) / 100,
  is_admin: !!r.is_admin,
  entity_type: r.entity_type,
  legal_name: r.legal_name,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

export type DocumentRow = SubmerchantDocument;
export const toDocument = (r: DocumentRow): SubmerchantDocument => ({
  id: r.id,
  submerchant_id: r.submerchant_id,
  legal_representative_id: r.legal_representative_id,
  type: r.type,
  notes: r.notes,
  number: r.number,
  file_url: r.file_url,
  file_name: r.file_name,
  file_size: Number(r.file_size),
  mime_type: r.mime_type,
  status: r.status,
  verified_at: r.verified_at,
  verification_notes: r.verification_notes,
  expires_at: r.expires_at,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

export const ADDRESS_COLS =
  'id, submerchant_id, type, street, number, complement, neighborhood, city, state, zip_code, country, is_primary, created_at';
export const PARTNER_COLS =
  'id, submerchant_id, name, document, birth_date, phone, mother_name, email, role, qualification, participation_bp, is_admin, entity_type, legal_name, created_at, updated_at';
export const DOCUMENT_COLS =
  'id, submerchant_id, legal_representative_id, type, notes, number, file_url, file_name, file_size, mime_type, status, verified_at, verification_notes, expires_at, created_at, updated_at';

/** Refuses (404) a submerchant id that is not one of the merchant's submerchants. */
export async function assertSubmerchantOf(q: Queryable, merchantId: string, id: string): Promise<void> {
  const sub = await q.get('SELECT id FROM submerchants WHERE id = ? AND parent_merchant_id = ?', [id, merchantId]);
  if (!sub) throw notFound('Submerchant');
}

/**
 * The merchant's submerchant, or 404 (also when it belongs to another merchant). Inside a
 * write transaction pass `lock` so the row is locked (PostgreSQL) before children change.
 */
export async function loadSubmerchant(q: Queryable, merchantId: string, id: string, lock = false): Promise<SubmerchantRow> {
  const row = await q.get<SubmerchantRow>(`${SUBMERCHANT_SELECT} WHERE s.id = ? AND s.parent_merchant_id = ?${lock ? q.dialect.forUpdate : ''}`, [
    id,
    merchantId,
  ]);
  if (!row) throw notFound('Submerchant');
  return row;
}

/** What the submerchant still lacks, read inside the caller's transaction (or outside). */
export async function requirementsOf(q: Queryable, sub: SubmerchantRow, now: Date): Promise<Requirements> {
  const addresses = await q.all<{ id: string }>(
    'SELECT id FROM submerchant_addresses WHERE submerchant_id = ? ORDER BY is_primary DESC, created_at, id',
    [sub.id],
  );
  const partners =
    sub.entity_type === 'pj'
      ? await q.all<{ id: string; name: string }>('SELECT id, name FROM legal_representatives WHERE submerchant_id = ? ORDER BY created_at, id', [
          sub.id,
        ])
      : [];
  const documents = await q.all<{ id: string; type: string; legal_representative_id: string | null; status: string; expires_at: string | null }>(
    `SELECT id, type, legal_representative_id, status, expires_at FROM submerchant_documents
      WHERE submerchant_id = ? AND status <> 'replaced' ORDER BY created_at DESC, id DESC`,
    [sub.id],
  );
  return computeRequirements({ entityType: sub.entity_type, addresses, partners, documents, now });
}

/**
 * After an address, partner or document write (in the same transaction): a pending
 * submerchant with nothing missing moves to under_review, with its event.
 */
export async function advanceIfComplete(
  q: Queryable,
  ids: IdGenerator,
  merchantId: string,
  submerchantId: string,
  at: { now: Date; businessNow: Date },
): Promise<void> {
  const sub = await loadSubmerchant(q, merchantId, submerchantId, true);
  if (sub.status !== 'pending') return;
  const req = await requirementsOf(q, sub, at.businessNow);
  if (!req.complete) return;
  const ts = at.now.toISOString();
  await transition(q, 'submerchant', sub.id, sub.status, 'under_review', { updated_at: ts });
  await emitEvent(q, ids, {
    merchantId,
    type: 'submerchant.under_review',
    data: toSubmerchant({ ...sub, status: 'under_review', updated_at: ts }),
    at: at.now,
  });
}
