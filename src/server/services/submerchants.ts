/**
 * Submerchants of a merchant and their onboarding: creation (tax id rules), addresses, partners
 * (the participation rule: at most 100 % between them; the same document updates the partner),
 * documents (a new one of a type replaces the previous), the upload / file-store protocol and
 * downloads, requirements, and the sandbox review. Routes parse and shape; the work is here.
 */
import { readFile, rm } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import type { Address, LegalRepresentative, RequirementsResult, Submerchant, SubmerchantChange, SubmerchantDocument, UploadedFile } from '../../contract/resources/submerchants.js';
import { FILE_KEY_RE, FILE_KINDS, kindOfMime, sanitizeFileName, type FileKind } from '../../domain/files.js';
import { percentToBps } from '../../domain/money.js';
import { transition } from '../../store/transition.js';
import { allowedDocumentTypes, birthDateProblem, CORRECTABLE_STATUSES, UNDER_REVIEW_FIELDS, type EntityType } from '../../domain/onboarding.js';
import { taxIdProblem } from '../../domain/taxid.js';
import { json, UniqueViolation, type Queryable, type SqlValue } from '../../store/db.js';
import type { BodyFor, Page, PageRequest, QueryFor, ServiceContext } from './context.js';
import { ApiError, invalid, notFound } from '../errors.js';
import { emitEvent } from './events.js';
import {
  ADDRESS_COLS,
  DOCUMENT_COLS,
  PARTNER_COLS,
  SUBMERCHANT_FROM,
  advanceIfComplete,
  loadSubmerchant,
  requirementsOf,
  toAddress,
  toDocument,
  toPartner,
  toSubmerchant,
  type AddressRow,
  type DocumentRow,
  type PartnerRow,
} from './onboarding.js';
import { checkUploadQuota, refuseAtQuota } from './uploadQuota.js';
import { lockMerchant } from './merchants.js';
import { createWallet } from './wallets.js';
import { listPage } from '../lists.js';
import { blockedReason, hostOf } from '../webhooks/netguard.js';

/**
 * A CPF for pf, a CNPJ for pj, with real check digits. The message (src/domain/taxid.ts, shared
 * with the CLI's onboarding) says which one is expected and, when the value is a valid id of
 * the other kind, that entity_type is wrong.
 */
export function checkTaxId(field: string, value: string, entity: EntityType): void {
  const problem = taxIdProblem(value, entity);
  if (problem) throw invalid(field, problem);
}

/** A birth date that exists, is not after today and is 18 years ago (São Paulo dates, the merchant's clock). */
function checkBirthDate(field: string, value: string | null | undefined, now: Date): void {
  if (value === null || value === undefined) return;
  const problem = birthDateProblem(value, now);
  if (problem) throw invalid(field, problem);
}

function businessRule(field: string | null, message: string): ApiError {
  return new ApiError('business_rule', field ? `${field}: ${message}` : message, field ? [{ field, message }] : undefined);
}

/** Every record of the merchant carries the merchant's clock (the sandbox can move it). */
function stamp(ctx: ServiceContext): { now: Date; businessNow: Date } {
  const now = ctx.now();
  return { now, businessNow: now };
}

/** A path segment decoded until it no longer changes (at most 3 rounds); null when malformed. */
function decodeSegment(segment: string): string | null {
  let s = segment;
  for (let i = 0; i < 3; i++) {
    let next: string;
    try {
      next = decodeURIComponent(s);
    } catch {
      return null;
    }
    if (next === s) break;
    s = next;
  }
  return s;
}

/**
 * The file key a URL's path names when it is a download of this service, `/v1/files/{key}`,
 * however it is spelled: encoded slashes and backslashes, repeated and trailing slashes, any
 * case of `/v1/files/`, any of its characters percent-encoded, once or more (dot segments the
 * URL parser has already resolved). `malformed` when the key's percent-encoding is broken;
 * null when the path is something else.
 */
function filesPathKey(url: URL): { key: string } | { malformed: string } | null {
  const segments = url.pathname.split(/\/|%2f|%5c/i).filter((x) => x !== '');
  if (segments.length !== 3) return null;
  const [v1, files, raw] = segments as [string, string, string];
  if (decodeSegment(v1)?.toLowerCase() !== 'v1' || decodeSegment(files)?.toLowerCase() !== 'files') return null;
  const key = decodeSegment(raw);
  return key === null ? { malformed: raw } : { key };
}

/**
 * Whether a URL's host is this service: the host of its public base URL, or a loopback or
 * unspecified address in any spelling (`localhost` and its subdomains, 127.0.0.0/8, 0.0.0.0,
 * ::1, their IPv6 forms), on any port and either scheme.
 */
function isServiceHost(url: URL, baseUrl: string | undefined): boolean {
  const host = url.hostname.toLowerCase();
  if (baseUrl && host === new URL(baseUrl).hostname.toLowerCase()) return true;
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const reason = blockedReason(hostOf(url), 'production');
  return reason === 'loopback' || reason === 'unspecified';
}

/**
 * A file_url that is a download URL of this service, under any spelling (`filesPathKey`,
 * `isServiceHost`), or that names an upload of this service on any host (a host name or
 * address of the service that it cannot know, such as a LAN address), must be an upload of
 * this merchant for this submerchant, of the declared type and size. Another merchant's
 * upload is answered like a key that does not exist: its existence is not told.
 */
async function checkOwnFileUrl(
  q: Queryable,
  ctx: ServiceContext,
  submerchantId: string,
  b: { file_url: string; mime_type: string; file_size: number },
): Promise<string | undefined> {
  const url = new URL(b.file_url);
  const named = filesPathKey(url);
  if (!named) return;
  const ours = isServiceHost(url, ctx.baseUrl);
  if ('malformed' in named) {
    // malformed percent-encoding (`%`, `%ZZ`, a cut UTF-8 sequence) is the client's mistake; on
    // another host it cannot name an upload of this service (their keys are plain ASCII)
    if (!ours) return;
    throw businessRule('file_url', `the file key ${JSON.stringify(named.malformed)} has malformed percent-encoding; use the url returned by POST /v1/submerchants/{id}/upload`);
  }
  const { key } = named;
  const f = FILE_KEY_RE.test(key)
    ? await q.get<{ merchant_id: string; submerchant_id: string; size: number; mime: string }>(
        // locked: the due work's removal of an unattached upload waits for this document, or wins before it
        `SELECT merchant_id, submerchant_id, size, mime FROM files WHERE key = ?${q.dialect.forUpdate}`,
        [key],
      )
    : undefined;
  if (!f && !ours) return;
  if (!f || f.merchant_id !== ctx.merchantId || f.submerchant_id !== submerchantId) {
    throw businessRule('file_url', `no file with key ${key} was uploaded for this submerchant; upload it with POST /v1/submerchants/{id}/upload`);
  }
  if (f.mime !== b.mime_type) throw businessRule('mime_type', `the uploaded file ${key} is ${f.mime}, not ${b.mime_type}`);
  if (Number(f.size) !== b.file_size) throw businessRule('file_size', `the uploaded file ${key} has ${f.size} bytes, not ${b.file_size}`);
  return key;
}

export async function createSubmerchant(ctx: ServiceContext, b: BodyFor<'submerchants.create'>): Promise<Submerchant> {
  checkTaxId('tax_id', b.tax_id, b.entity_type);
  checkBirthDate('birth_date', b.birth_date, ctx.now());
  const { now } = stamp(ctx);
  const ts = now.toISOString();
  const cnaes = (b.cnaes ?? []).map((c) => ({ code: c.code, description: c.description ?? null, is_primary: c.is_primary === true }));
  return ctx.db.tx(async (q) => {
    // lock the merchant so two concurrent creations cannot both pass the tax_id check (PostgreSQL)
    await lockMerchant(q, ctx.merchantId);
    const dup = await q.get<{ id: string }>('SELECT id FROM submerchants WHERE parent_merchant_id = ? AND tax_id = ?', [ctx.merchantId, b.tax_id]);
    if (dup) throw new ApiError('conflict', `tax_id: a submerchant with this tax_id already exists (${dup.id})`, [{ field: 'tax_id', message: `already used by submerchant ${dup.id}` }]);
    const id = ctx.deps.ids();
    await q.run(
      `INSERT INTO submerchants (id, parent_merchant_id, entity_type, trade_name, legal_name, tax_id, email, phone, website, description,
         soft_descriptor, birth_date, mother_name, status, business_type, product_categories, average_ticket, monthly_revenue, mcc, cnaes,
         created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        id,
        ctx.merchantId,
        b.entity_type,
        b.trade_name,
        b.legal_name,
        b.tax_id,
        b.email,
        b.phone ?? null,
        b.website ?? null,
        b.description ?? null,
        b.soft_descriptor ?? null,
        b.birth_date ?? null,
        b.mother_name ?? null,
        b.business_type ?? null,
        JSON.stringify(b.product_categories ?? []),
        b.average_ticket ?? null,
        b.monthly_revenue ?? null,
        b.mcc ?? null,
        JSON.stringify(cnaes),
        ts,
        ts,
      ],
    );
    await createWallet(q, ctx.deps.ids, ctx.merchantId, 'submerchant', id, now);
    const record = toSubmerchant(await loadSubmerchant(q, ctx.merchantId, id));
    await emitEvent(q, ctx.deps.ids, { merchantId: ctx.merchantId, type: 'submerchant.created', data: record, at: now });
    return record;
  });
}

export async function getSubmerchant(ctx: ServiceContext, id: string): Promise<Submerchant> {
  return toSubmerchant(await loadSubmerchant(ctx.db, ctx.merchantId, id));
}

export function listSubmerchants(ctx: ServiceContext, query: QueryFor<'submerchants.list'>, page: PageRequest): Promise<Page<Submerchant>> {
  return listPage(ctx.db, {
    from: SUBMERCHANT_FROM,
    countFrom: 'submerchants s',
    select: 's.*, w.id AS wallet_id',
    filters: [
      ['s.parent_merchant_id = ?', ctx.merchantId],
      ['s.status = ?', query.status],
      ['s.entity_type = ?', query.entity_type],
      ['s.tax_id = ?', query.tax_id],
    ],
    order: 's.created_at DESC, s.id DESC',
    page,
    map: toSubmerchant,
  });
}

/** A request value of a correction in the record's form (cents as decimal strings, CNAEs whole). */
function recordValueOf(field: string, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (field === 'average_ticket' || field === 'monthly_revenue') return String(v);
  if (field === 'cnaes') return (v as { code: string; description?: string; is_primary?: boolean }[]).map((c) => ({ code: c.code, description: c.description ?? null, is_primary: c.is_primary === true }));
  return v;
}

/** The column value of a record value. */
function columnValueOf(field: string, v: unknown): SqlValue {
  if (v === null) return null;
  if (field === 'average_ticket' || field === 'monthly_revenue') return Number(v);
  if (field === 'cnaes' || field === 'product_categories') return JSON.stringify(v);
  return v as SqlValue;
}

/**
 * Corrects a pending or under_review submerchant (`changedBy`: the API key). Only the fields
 * whose value differs count as changes; none → `changed: false`, nothing written. While under
 * review, a change to one of UNDER_REVIEW_FIELDS is 409 invalid_state naming them all. The
 * update and its row in submerchant_changes are one transaction.
 */
export async function updateSubmerchant(
  ctx: ServiceContext,
  id: string,
  b: BodyFor<'submerchants.update'>,
  changedBy: string | null,
): Promise<{ record: Submerchant; changed: boolean }> {
  const { now } = stamp(ctx);
  const ts = now.toISOString();
  return ctx.db.tx(async (q) => {
    // a new tax_id is checked for duplicates under the merchant's lock, as at creation
    if (b.tax_id !== undefined) await lockMerchant(q, ctx.merchantId);
    const row = await loadSubmerchant(q, ctx.merchantId, id, true);
    if (!(CORRECTABLE_STATUSES as readonly string[]).includes(row.status)) {
      throw new ApiError('invalid_state', `The submerchant is ${row.status}: only a ${CORRECTABLE_STATUSES.join(' or ')} submerchant can be corrected`);
    }
    const before = toSubmerchant(row) as unknown as Record<string, unknown>;
    const asked = b as Record<string, unknown>;
    const changes = Object.keys(before)
      .filter((f) => asked[f] !== undefined)
      .map((f) => ({ field: f, from: before[f], to: recordValueOf(f, asked[f]) }))
      .filter((c) => JSON.stringify(c.from) !== JSON.stringify(c.to));
    const changing = (f: string) => changes.some((c) => c.field === f);
    if (row.entity_type === 'pj') {
      for (const f of ['birth_date', 'mother_name'] as const) if (changing(f) && b[f] !== null) throw invalid(f, 'is only for entity_type pf (an individual)');
    }
    if (changing('tax_id')) checkTaxId('tax_id', b.tax_id!, row.entity_type);
    if (changing('birth_date')) checkBirthDate('birth_date', b.birth_date, now);
    if (row.status === 'under_review') {
      const frozen = changes.filter((c) => (UNDER_REVIEW_FIELDS as readonly string[]).includes(c.field)).map((c) => c.field);
      if (frozen.length) {
        throw new ApiError(
          'invalid_state',
          `${frozen.join(', ')}: the submerchant is under_review and these fields are being reviewed; they cannot change until the review ends (the others can)`,
          frozen.map((field) => ({ field, message: 'is under review: it cannot change until the review ends' })),
        );
      }
    }
    if (!changes.length) return { record: toSubmerchant(row), changed: false };
    if (changing('tax_id')) {
      const dup = await q.get<{ id: string }>('SELECT id FROM submerchants WHERE parent_merchant_id = ? AND tax_id = ? AND id <> ?', [ctx.merchantId, b.tax_id!, row.id]);
      if (dup) throw new ApiError('conflict', `tax_id: a submerchant with this tax_id already exists (${dup.id})`, [{ field: 'tax_id', message: `already used by submerchant ${dup.id}` }]);
    }
    // the column names come from the record's own keys (toSubmerchant), never from the request
    await q.run(`UPDATE submerchants SET ${changes.map((c) => `${c.field} = ?`).join(', ')}, updated_at = ? WHERE id = ?`, [
      ...changes.map((c) => columnValueOf(c.field, c.to)),
      ts,
      row.id,
    ]);
    await q.run('INSERT INTO submerchant_changes (id, submerchant_id, merchant_id, status, changes, changed_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [
      ctx.deps.ids(),
      row.id,
      ctx.merchantId,
      row.status,
      JSON.stringify(changes),
      changedBy,
      ts,
    ]);
    return { record: toSubmerchant(await loadSubmerchant(q, ctx.merchantId, row.id)), changed: true };
  });
}

interface ChangeRow {
  id: string;
  submerchant_id: string;
  status: SubmerchantChange['status'];
  changes: string;
  changed_by: string | null;
  created_at: string;
}

/** The corrections of a submerchant, newest first. */
export async function listSubmerchantChanges(ctx: ServiceContext, submerchantId: string, p: PageRequest): Promise<Page<SubmerchantChange>> {
  const sub = await loadSubmerchant(ctx.db, ctx.merchantId, submerchantId);
  return listPage(ctx.db, {
    from: 'submerchant_changes',
    select: 'id, submerchant_id, status, changes, changed_by, created_at',
    filters: [['submerchant_id = ?', sub.id], ['merchant_id = ?', ctx.merchantId]],
    page: p,
    map: (r: ChangeRow): SubmerchantChange => ({ ...r, changes: json.from<SubmerchantChange['changes']>(r.changes, []) }),
  });
}

/** Adds an address; the first is the primary one, a later one becomes primary when asked. */
export async function addAddress(ctx: ServiceContext, submerchantId: string, b: BodyFor<'submerchants.addresses.create'>): Promise<Address> {
  const at = stamp(ctx);
  const ts = at.now.toISOString();
  return ctx.db.tx(async (q) => {
    const sub = await loadSubmerchant(q, ctx.merchantId, submerchantId, true);
    const n = await q.get<{ n: number }>('SELECT COUNT(*) AS n FROM submerchant_addresses WHERE submerchant_id = ?', [sub.id]);
    // the first address is always the primary one; a later one becomes primary when asked
    const primary = Number(n?.n ?? 0) === 0 || b.is_primary === true;
    if (primary) await q.run('UPDATE submerchant_addresses SET is_primary = 0 WHERE submerchant_id = ? AND is_primary = 1', [sub.id]);
    const id = ctx.deps.ids();
    await q.run(
      `INSERT INTO submerchant_addresses (id, submerchant_id, merchant_id, type, street, number, complement, neighborhood, city, state, zip_code,
         country, is_primary, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [id, sub.id, ctx.merchantId, b.type, b.street, b.number, b.complement ?? null, b.neighborhood, b.city, b.state, b.zip_code, b.country, primary ? 1 : 0, ts],
    );
    await advanceIfComplete(q, ctx.deps.ids, ctx.merchantId, sub.id, at);
    const row = await q.get<AddressRow>(`SELECT ${ADDRESS_COLS} FROM submerchant_addresses WHERE id = ?`, [id]);
    return toAddress(row!);
  });
}

export async function listAddresses(ctx: ServiceContext, submerchantId: string, p: PageRequest): Promise<Page<Address>> {
  const sub = await loadSubmerchant(ctx.db, ctx.merchantId, submerchantId);
  const { items: rows, total } = await listPage(ctx.db, {
    from: 'submerchant_addresses',
    select: ADDRESS_COLS,
    filters: [['submerchant_id = ?', sub.id], ['merchant_id = ?', ctx.merchantId]],
    page: p,
    map: (r: AddressRow) => r,
  });
  return { items: rows.map(toAddress), total };
}

/**
 * Adds a partner (legal representative) of a pj submerchant, or updates the one with the same
 * document (`created: false`). The partners' participations add up to at most 100 %.
 */
export async function upsertPartner(
  ctx: ServiceContext,
  submerchantId: string,
  b: BodyFor<'submerchants.partners.create'>,
): Promise<{ record: LegalRepresentative; created: boolean }> {
  const at = stamp(ctx);
  const ts = at.now.toISOString();
  checkBirthDate('birth_date', b.birth_date, at.businessNow);
  const attempt = () =>
    ctx.db.tx(async (q) => {
      const sub = await loadSubmerchant(q, ctx.merchantId, submerchantId, true);
      if (sub.entity_type !== 'pj') {
        throw businessRule(null, 'Legal representatives can only be added to a pj (company) submerchant; this submerchant is pf (an individual)');
      }
      const existing = await q.get<PartnerRow>(`SELECT ${PARTNER_COLS} FROM legal_representatives WHERE submerchant_id = ? AND document = ?${q.dialect.forUpdate}`, [
        sub.id,
        b.document,
      ]);
      const entity: EntityType = b.entity_type ?? existing?.entity_type ?? 'pf';
      checkTaxId('document', b.document, entity);
      if (entity === 'pj') {
        for (const f of ['birth_date', 'mother_name'] as const) if (b[f] !== undefined) throw invalid(f, 'is only for entity_type pf (an individual)');
        if (!(b.legal_name ?? existing?.legal_name)) throw invalid('legal_name', 'is required when entity_type is pj');
      } else if (b.legal_name !== undefined) {
        throw invalid('legal_name', 'is only for entity_type pj (a company); a pf partner has name only');
      }
      const bp = b.participation_percentage !== undefined ? percentToBps(b.participation_percentage) : (existing?.participation_bp ?? null);
      if (bp !== null) {
        const others = await q.get<{ s: number | null }>('SELECT SUM(participation_bp) AS s FROM legal_representatives WHERE submerchant_id = ? AND id <> ?', [
          sub.id,
          existing?.id ?? '',
        ]);
        const held = Number(others?.s ?? 0);
        if (held + bp > 10000) {
          throw businessRule(
            'participation_percentage',
            `the other partners of this submerchant already hold ${held / 100}%; adding ${bp / 100}% would make ${(held + bp) / 100}% (at most 100%)`,
          );
        }
      }
      const v = {
        name: b.name,
        entity_type: entity,
        legal_name: entity === 'pj' ? (b.legal_name ?? existing?.legal_name ?? null) : null,
        birth_date: entity === 'pf' ? (b.birth_date ?? existing?.birth_date ?? null) : null,
        mother_name: entity === 'pf' ? (b.mother_name ?? existing?.mother_name ?? null) : null,
        email: b.email ?? existing?.email ?? null,
        phone: b.phone ?? existing?.phone ?? null,
        role: b.role ?? existing?.role ?? 'legal_representative',
        qualification: b.qualification ?? existing?.qualification ?? null,
        participation_bp: bp,
        is_admin: b.is_admin ?? (existing ? !!existing.is_admin : false),
      };
      let id: string;
      if (existing) {
        id = existing.id;
        await q.run(
          `UPDATE legal_representatives SET name = ?, entity_type = ?, legal_name = ?, birth_date = ?, mother_name = ?, email = ?, phone = ?,
             role = ?, qualification = ?, participation_bp = ?, is_admin = ?, updated_at = ? WHERE id = ?`,
          [v.name, v.entity_type, v.legal_name, v.birth_date, v.mother_name, v.email, v.phone, v.role, v.qualification, v.participation_bp, v.is_admin ? 1 : 0, ts, id],
        );
      } else {
        id = ctx.deps.ids();
        await q.run(
          `INSERT INTO legal_representatives (id, submerchant_id, merchant_id, name, document, entity_type, legal_name, birth_date, mother_name,
             email, phone, role, qualification, participation_bp, is_admin, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [id, sub.id, ctx.merchantId, v.name, b.document, v.entity_type, v.legal_name, v.birth_date, v.mother_name, v.email, v.phone, v.role, v.qualification, v.participation_bp, v.is_admin ? 1 : 0, ts, ts],
        );
      }
      await advanceIfComplete(q, ctx.deps.ids, ctx.merchantId, sub.id, at);
      const row = await q.get<PartnerRow>(`SELECT ${PARTNER_COLS} FROM legal_representatives WHERE id = ?`, [id]);
      return { record: toPartner(row!), created: !existing };
    });
  try {
    return await attempt();
  } catch (e) {
    // a concurrent first call with the same document won the insert: this one is an update
    if (e instanceof UniqueViolation) return attempt();
    throw e;
  }
}

export async function listPartners(ctx: ServiceContext, submerchantId: string, p: PageRequest): Promise<Page<LegalRepresentative>> {
  const sub = await loadSubmerchant(ctx.db, ctx.merchantId, submerchantId);
  const { items: rows, total } = await listPage(ctx.db, {
    from: 'legal_representatives',
    select: PARTNER_COLS,
    filters: [['submerchant_id = ?', sub.id], ['merchant_id = ?', ctx.merchantId]],
    page: p,
    map: (r: PartnerRow) => r,
  });
  return { items: rows.map(toPartner), total };
}

/** Adds a document; it replaces the previous one of the same type (and partner). */
export async function addDocument(ctx: ServiceContext, submerchantId: string, b: BodyFor<'submerchants.documents.create'>): Promise<SubmerchantDocument> {
  const at = stamp(ctx);
  const ts = at.now.toISOString();
  if (b.expires_at && Date.parse(b.expires_at) <= at.businessNow.getTime()) {
    throw invalid('expires_at', `must be in the future (now is ${at.businessNow.toISOString()}); an expired document is not accepted`);
  }
  const expiresAt = b.expires_at ? new Date(b.expires_at).toISOString() : null;
  return ctx.db.tx(async (q) => {
    const sub = await loadSubmerchant(q, ctx.merchantId, submerchantId, true);
    const allowed = allowedDocumentTypes(sub.entity_type);
    if (!allowed.includes(b.type)) {
      throw businessRule('type', `${b.type} is not accepted for a ${sub.entity_type} submerchant; send one of: ${allowed.join(', ')}`);
    }
    const partnerId = b.legal_representative_id ?? null;
    if (partnerId) {
      const partner = await q.get('SELECT id FROM legal_representatives WHERE id = ? AND submerchant_id = ? AND merchant_id = ?', [
        partnerId,
        sub.id,
        ctx.merchantId,
      ]);
      if (!partner) {
        throw new ApiError('not_found', 'legal_representative_id: legal representative not found on this submerchant', [
          { field: 'legal_representative_id', message: 'legal representative not found on this submerchant' },
        ]);
      }
    }
    const fileKey = await checkOwnFileUrl(q, ctx, sub.id, b);
    // an upload a document points at is kept (uploads attached to none are removed after the retention)
    if (fileKey) await q.run('UPDATE files SET attached_at = ? WHERE key = ? AND attached_at IS NULL', [ts, fileKey]);
    const previous = await q.all<DocumentRow>(
      `SELECT ${DOCUMENT_COLS} FROM submerchant_documents
        WHERE submerchant_id = ? AND type = ? AND ${partnerId ? 'legal_representative_id = ?' : 'legal_representative_id IS NULL'}
          AND status <> 'replaced'${q.dialect.forUpdate}`,
      partnerId ? [sub.id, b.type, partnerId] : [sub.id, b.type],
    );
    const id = ctx.deps.ids();
    await q.run(
      `INSERT INTO submerchant_documents (id, submerchant_id, merchant_id, legal_representative_id, type, notes, number, file_url, file_name,
         file_size, mime_type, status, expires_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?)`,
      [id, sub.id, ctx.merchantId, partnerId, b.type, b.notes ?? null, b.number ?? null, b.file_url, b.file_name, b.file_size, b.mime_type, expiresAt, ts, ts],
    );
    for (const old of previous) {
      await transition(q, 'document', old.id, old.status, 'replaced', { replaced_by: id, updated_at: ts });
      await emitEvent(q, ctx.deps.ids, {
        merchantId: ctx.merchantId,
        type: 'document.replaced',
        data: { ...toDocument({ ...old, status: 'replaced', updated_at: ts }), replaced_by: id },
        at: at.now,
      });
    }
    const row = await q.get<DocumentRow>(`SELECT ${DOCUMENT_COLS} FROM submerchant_documents WHERE id = ?`, [id]);
    const record: SubmerchantDocument = toDocument(row!);
    await emitEvent(q, ctx.deps.ids, { merchantId: ctx.merchantId, type: 'document.created', data: record, at: at.now });
    await advanceIfComplete(q, ctx.deps.ids, ctx.merchantId, sub.id, at);
    return record;
  });
}

export async function listDocuments(
  ctx: ServiceContext,
  submerchantId: string,
  query: QueryFor<'submerchants.documents.list'>,
  p: PageRequest,
): Promise<Page<SubmerchantDocument>> {
  const sub = await loadSubmerchant(ctx.db, ctx.merchantId, submerchantId);
  const { items: rows, total } = await listPage(ctx.db, {
    from: 'submerchant_documents',
    select: DOCUMENT_COLS,
    filters: [
      ['submerchant_id = ?', sub.id],
      ['merchant_id = ?', ctx.merchantId],
      ['type = ?', query.type],
      ['status = ?', query.status],
      ['legal_representative_id = ?', query.legal_representative_id],
    ],
    page: p,
    map: (r: DocumentRow) => r,
  });
  return { items: rows.map(toDocument), total };
}

/** An upload received and checked (src/server/pipeline/multipart.ts), waiting in a temp file. */
export interface ReceivedFile {
  /** temp file in the scratch directory, fully written and closed; the caller removes it */
  tmpPath: string;
  size: number;
  kind: FileKind;
  /** the file name the client sent (its last path segment); display only */
  clientName: string;
}

/**
 * An upload for a submerchant, or for the merchant itself (`submerchantId` null: POST /v1/files,
 * e.g. chargeback evidence). Before anything of it is read: the submerchant it is for (404) and
 * a merchant whose uploads already fill its storage quota (422). Then `receive` reads the file
 * into a temp file (the caller's reader: the pipeline streams a multipart body,
 * src/server/pipeline/multipart.ts), which is stored and removed.
 */
export async function uploadFile(ctx: ServiceContext, submerchantId: string | null, receive: () => Promise<ReceivedFile>): Promise<UploadedFile> {
  if (submerchantId !== null) await loadSubmerchant(ctx.db, ctx.merchantId, submerchantId);
  await refuseAtQuota(ctx);
  const got = await receive();
  try {
    return await storeUpload(ctx, submerchantId, got);
  } finally {
    await rm(got.tmpPath, { force: true });
  }
}

/**
 * Stores an uploaded file for a submerchant, or for the merchant itself (`submerchantId` null:
 * POST /v1/files, e.g. chargeback evidence): the bytes go to the file store (deps.files) and a
 * row to `files`, together. The temp file is left for the caller to remove.
 */
async function storeUpload(ctx: ServiceContext, submerchantId: string | null, got: ReceivedFile): Promise<UploadedFile> {
  const sub = submerchantId === null ? null : await loadSubmerchant(ctx.db, ctx.merchantId, submerchantId);
  const info = FILE_KINDS[got.kind];
  const key = `${randomUUID()}.${info.extensions[0]}`;
  const fileName = sanitizeFileName(got.clientName, got.kind);
  // The file store every server process reads (deps.files). A database store writes the bytes
  // in the transaction that records the file, so neither exists without the other; a directory
  // store is written before it and the file deleted if the transaction fails.
  const files = ctx.deps.files;
  const inTx = files.kind === 'database';
  try {
    // read (at most 10 MiB) before the transaction, not while it holds a connection
    const bytes = inTx ? await readFile(got.tmpPath) : undefined;
    if (!inTx) await files.putFile(key, got.tmpPath, info.mime);
    const ts = ctx.now().toISOString();
    await ctx.db.tx(async (q) => {
      // the quota locks the merchant's row, before the submerchant's: the order other
      // transactions lock them in
      await checkUploadQuota(q, ctx, got.size);
      // the submerchant may not have vanished meanwhile, but keep the row scoped all the same
      if (sub) await loadSubmerchant(q, ctx.merchantId, sub.id, true);
      // path: the file's key in the file store (see store/files.ts)
      await q.run('INSERT INTO files (key, merchant_id, submerchant_id, file_name, size, mime, path, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [
        key,
        ctx.merchantId,
        sub?.id ?? null,
        fileName,
        got.size,
        info.mime,
        key,
        ts,
      ]);
      if (bytes) await files.put(key, bytes, info.mime, q);
    });
  } catch (e) {
    if (!inTx) await files.delete(key).catch(() => undefined);
    throw e;
  }
  return { url: `${ctx.baseUrl ?? ''}/v1/files/${key}`, key, fileName, fileSize: got.size, mimeType: info.mime as 'image/png' | 'image/jpeg' | 'application/pdf' };
}

/** A file uploaded by this merchant, by key; 404 for any other key. */
export async function readStoredFile(ctx: ServiceContext, key: string): Promise<{ fileName: string; mime: string; bytes: Uint8Array<ArrayBuffer>; size: number }> {
  const row = FILE_KEY_RE.test(key)
    ? await ctx.db.get<{ file_name: string; mime: string; path: string }>('SELECT file_name, mime, path FROM files WHERE key = ? AND merchant_id = ?', [
        key,
        ctx.merchantId,
      ])
    : undefined;
  if (!row || !kindOfMime(row.mime) || !FILE_KEY_RE.test(row.path)) throw notFound('File');
  const stored = await ctx.deps.files.get(row.path);
  if (!stored) throw notFound('File');
  return { fileName: row.file_name, mime: row.mime, bytes: new Uint8Array(stored.bytes), size: stored.size };
}

export async function submerchantRequirements(ctx: ServiceContext, submerchantId: string): Promise<RequirementsResult> {
  const sub = await loadSubmerchant(ctx.db, ctx.merchantId, submerchantId);
  const req = await requirementsOf(ctx.db, sub, ctx.now());
  return { submerchant_id: sub.id, entity_type: sub.entity_type, status: sub.status, ...req };
}

/** The sandbox's review of a submerchant under review: approve or reject. */
export async function reviewSubmerchant(ctx: ServiceContext, submerchantId: string, b: BodyFor<'sandbox.submerchants.review'>): Promise<Submerchant> {
  const now = ctx.now();
  const ts = now.toISOString();
  return ctx.db.tx(async (q) => {
    const sub = await loadSubmerchant(q, ctx.merchantId, submerchantId, true);
    const to = b.decision === 'approve' ? 'approved' : 'rejected';
    await transition(q, 'submerchant', sub.id, sub.status, to, { reviewed_at: ts, review_notes: b.notes ?? null, updated_at: ts });
    const record = toSubmerchant(await loadSubmerchant(q, ctx.merchantId, sub.id));
    await emitEvent(q, ctx.deps.ids, {
      merchantId: ctx.merchantId,
      type: to === 'approved' ? 'submerchant.approved' : 'submerchant.rejected',
      data: record,
      at: now,
    });
    return record;
  });
}
