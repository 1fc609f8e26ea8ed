import * as z from 'zod';
import { endpoint, type CliPresentation } from '../endpoint.js';
import { cents, centsString, isoDate, isoDateTime, listQuery, nonEmpty, qEnum, timestamp, uuid } from '../common.js';
import { statusesOf } from '../../domain/lifecycle.js';
import { UFS, isRealDate, normalizeCep, normalizeTaxId } from '../../domain/brazil.js';
import { DOCUMENT_TYPES } from '../../domain/onboarding.js';
import { ACCEPTED_MIME_TYPES, MAX_UPLOAD_BYTES, extensionOf, kindOfExtension, kindOfMime } from '../../domain/files.js';

/**
 * Submerchant onboarding: submerchants, their addresses, legal representatives (partners),
 * documents, uploaded files, requirements and the sandbox review. Record schemas follow the
 * seed's tables field by field; `wallet_id` on the submerchant is an extension.
 */

export const ENTITY_TYPES = ['pf', 'pj'] as const;
export const SUBMERCHANT_STATUSES = statusesOf('submerchant') as ['pending', 'under_review', 'approved', 'rejected'];
export const DOCUMENT_STATUSES = statusesOf('document') as ['pending', 'approved', 'rejected', 'replaced'];
export const ADDRESS_TYPES = ['billing', 'business', 'mailing'] as const;
export const PARTNER_ROLES = ['legal_representative', 'partner', 'administrator', 'attorney'] as const;
export const BUSINESS_TYPES = ['physical', 'digital'] as const;

// ---------------------------------------------------------------------------------------------
// Field helpers

const entityType = () => z.enum(ENTITY_TYPES, { error: 'must be pf (individual) or pj (company)' });

/** CPF or CNPJ; separators are removed and letters upper-cased before the check digits are checked. */
const taxIdInput = () =>
  z
    .string({ error: 'must be a string' })
    .transform(normalizeTaxId)
    .pipe(
      z
        .string()
        .regex(/^([0-9]{11}|[0-9A-Z]{12}[0-9]{2})$/, {
          error: 'must be a CPF (11 digits) or a CNPJ (14 characters: 12 digits or letters and 2 check digits)',
        }),
    );

const birthDate = () =>
  isoDate().refine(isRealDate, { error: 'must be a real calendar date in the form YYYY-MM-DD' });

const email = () => z.string({ error: 'must be a string' }).trim().pipe(z.email({ error: 'must be a valid e-mail address' }).max(254));

const phone = () =>
  z
    .string({ error: 'must be a string' })
    .transform((v) => v.replace(/[\s()-]/g, ''))
    .pipe(z.string().regex(/^\+?\d{10,13}$/, { error: 'must be a phone number with area code, e.g. +5511987654321' }));

const optText = (max: number) => nonEmpty(max).optional();

// ---------------------------------------------------------------------------------------------
// Submerchant

export const cnae = z.object({
  code: z.string(),
  description: z.string().nullable(),
  is_primary: z.boolean(),
});

export const submerchant = z.object({
  id: uuid(),
  parent_merchant_id: uuid(),
  entity_type: z.enum(ENTITY_TYPES),
  trade_name: z.string(),
  legal_name: z.string(),
  tax_id: z.string(),
  email: z.string(),
  phone: z.string().nullable(),
  website: z.string().nullable(),
  description: z.string().nullable(),
  soft_descriptor: z.string().nullable(),
  birth_date: z.string().nullable(),
  mother_name: z.string().nullable(),
  status: z.enum(SUBMERCHANT_STATUSES),
  business_type: z.string().nullable(),
  product_categories: z.array(z.string()),
  average_ticket: centsString().nullable().describe('integer cents as a decimal string, e.g. "15000" = R$ 150,00'),
  monthly_revenue: centsString().nullable().describe('integer cents as a decimal string'),
  reviewed_at: timestamp().nullable(),
  review_notes: z.string().nullable(),
  created_at: timestamp(),
  updated_at: timestamp(),
  mcc: z.string().nullable(),
  cnaes: z.array(cnae),
  wallet_id: uuid().describe('the BRL wallet created with the submerchant (extension)'),
});
export type Submerchant = z.infer<typeof submerchant>;

const cnaeInput = z.strictObject({
  code: z
    .string({ error: 'must be a string' })
    .transform((v) => v.replace(/[.\-/\s]/g, ''))
    .pipe(z.string().regex(/^\d{7}$/, { error: 'must be a 7-digit CNAE code, e.g. 4781400 (or 4781-4/00)' })),
  description: optText(255),
  is_primary: z.boolean({ error: 'must be true or false' }).optional(),
});

/** The submerchant's own fields as requests take them: required at creation, optional in a correction. */
const sub = {
  trade_name: () => nonEmpty(100),
  legal_name: () => nonEmpty(150),
  soft_descriptor: () =>
    z
      .string({ error: 'must be a string' })
      .trim()
      .regex(/^[A-Za-z0-9 .*-]{1,22}$/, { error: 'must be 1 to 22 letters, digits, spaces or . * -' }),
  mother_name: () => nonEmpty(150),
  mcc: () => z.string({ error: 'must be a string' }).regex(/^\d{4}$/, { error: 'must be a 4-digit merchant category code, e.g. 5411' }),
  cnaes: () => z.array(cnaeInput).max(20, { error: 'must have at most 20 entries' }),
  website: () => z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(255),
  description: () => nonEmpty(500),
  business_type: () => z.enum(BUSINESS_TYPES, { error: `must be one of: ${BUSINESS_TYPES.join(', ')}` }),
  product_categories: () => z.array(nonEmpty(60)).max(20, { error: 'must have at most 20 entries' }),
};

/** One primary CNAE, none listed twice. */
function checkCnaes(cnaes: readonly { code: string; is_primary?: boolean }[] | undefined, ctx: z.RefinementCtx): void {
  if (!cnaes?.length) return;
  const primaries = cnaes.filter((c) => c.is_primary === true).length;
  if (primaries !== 1) {
    ctx.addIssue({ code: 'custom', path: ['cnaes'], message: `exactly one entry must have is_primary true (found ${primaries})` });
  }
  const seen = new Set<string>();
  cnaes.forEach((c, i) => {
    if (seen.has(c.code)) ctx.addIssue({ code: 'custom', path: ['cnaes', i, 'code'], message: `${c.code} is listed twice` });
    seen.add(c.code);
  });
}

export const submerchantCreate = z
  .strictObject({
    trade_name: sub.trade_name(),
    legal_name: sub.legal_name(),
    tax_id: taxIdInput(),
    email: email(),
    entity_type: entityType().default('pj'),
    soft_descriptor: sub.soft_descriptor().optional(),
    birth_date: birthDate().optional(),
    mother_name: sub.mother_name().optional(),
    average_ticket: cents().optional(),
    monthly_revenue: cents().optional(),
    mcc: sub.mcc().optional(),
    cnaes: sub.cnaes().optional(),
    // extensions: the record's other fields may be set at creation too
    phone: phone().optional(),
    website: sub.website().optional(),
    description: sub.description().optional(),
    business_type: sub.business_type().optional(),
    product_categories: sub.product_categories().optional(),
  })
  .superRefine((v, ctx) => {
    if (v.entity_type === 'pj') {
      for (const f of ['birth_date', 'mother_name'] as const) {
        if (v[f] !== undefined) ctx.addIssue({ code: 'custom', path: [f], message: 'is only for entity_type pf (an individual)' });
      }
    }
    checkCnaes(v.cnaes, ctx);
  });

/**
 * A correction (PATCH): any field of the creation but entity_type; null clears an optional one.
 * The service refuses, with 409 invalid_state, a change to a field under review.
 */
export const submerchantUpdate = z
  .strictObject({
    trade_name: sub.trade_name().optional(),
    legal_name: sub.legal_name().optional(),
    tax_id: taxIdInput().optional(),
    email: email().optional(),
    soft_descriptor: sub.soft_descriptor().nullable().optional(),
    birth_date: birthDate().nullable().optional(),
    mother_name: sub.mother_name().nullable().optional(),
    average_ticket: cents().nullable().optional(),
    monthly_revenue: cents().nullable().optional(),
    mcc: sub.mcc().nullable().optional(),
    cnaes: sub.cnaes().optional().describe('the whole list; [] clears it'),
    phone: phone().nullable().optional(),
    website: sub.website().nullable().optional(),
    description: sub.description().nullable().optional(),
    business_type: sub.business_type().nullable().optional(),
    product_categories: sub.product_categories().optional(),
  })
  .superRefine((v, ctx) => {
    if (Object.keys(v).length === 0) ctx.addIssue({ code: 'custom', path: [], message: 'send at least one field to change' });
    checkCnaes(v.cnaes ?? undefined, ctx);
  });

/** One correction of a submerchant: the fields it changed, each from its old value to its new one. */
export const submerchantChange = z.object({
  id: uuid(),
  submerchant_id: uuid(),
  status: z.enum(SUBMERCHANT_STATUSES).describe("the submerchant's status when it was corrected"),
  changes: z.array(
    z.object({
      field: z.string(),
      from: z.unknown().describe('the value before, as the submerchant record shows it'),
      to: z.unknown().describe('the value after'),
    }),
  ),
  changed_by: z.string().nullable().describe('the id of the API key that made the correction'),
  created_at: timestamp(),
});
export type SubmerchantChange = z.infer<typeof submerchantChange>;

export const submerchantListQuery = listQuery({
  status: qEnum(SUBMERCHANT_STATUSES).optional(),
  entity_type: qEnum(ENTITY_TYPES).optional(),
  tax_id: z.string().transform(normalizeTaxId).optional(),
});

// ---------------------------------------------------------------------------------------------
// Address

export const address = z.object({
  id: uuid(),
  submerchant_id: uuid(),
  type: z.enum(ADDRESS_TYPES),
  street: z.string(),
  number: z.string(),
  complement: z.string().nullable(),
  neighborhood: z.string(),
  city: z.string(),
  state: z.enum(UFS),
  zip_code: z.string(),
  country: z.literal('BR'),
  is_primary: z.boolean(),
  created_at: timestamp(),
});
export type Address = z.infer<typeof address>;

export const addressCreate = z.strictObject({
  street: nonEmpty(200),
  number: nonEmpty(20).describe('street number as written on the address: "1000", "12A", or "S/N" where there is none'),
  complement: optText(100),
  neighborhood: nonEmpty(100),
  city: nonEmpty(100),
  state: z
    .string({ error: 'must be a string' })
    .transform((v) => v.trim().toUpperCase())
    .pipe(z.enum(UFS, { error: `must be the 2-letter code of a Brazilian state (UF): ${UFS.join(', ')}` })),
  zip_code: z
    .string({ error: 'must be a string' })
    .transform(normalizeCep)
    .pipe(
      z
        .string()
        .regex(/^\d{8}$/, { error: 'must be a CEP of 8 digits, e.g. 01310100 (or 01310-100)' })
        .refine((v) => v !== '00000000', { error: 'must be a real CEP: 00000000 is not one (Correios CEPs start at 01000000)' }),
    ),
  type: z.enum(ADDRESS_TYPES, { error: `must be one of: ${ADDRESS_TYPES.join(', ')}` }).default('billing'),
  country: z.literal('BR', { error: 'only BR is accepted' }).default('BR'),
  is_primary: z.boolean({ error: 'must be true or false' }).optional(),
});

// ---------------------------------------------------------------------------------------------
// Legal representative (partner)

export const legalRepresentative = z.object({
  id: uuid(),
  submerchant_id: uuid(),
  name: z.string(),
  document: z.string(),
  birth_date: z.string().nullable(),
  phone: z.string().nullable(),
  mother_name: z.string().nullable(),
  email: z.string().nullable(),
  role: z.string(),
  qualification: z.string().nullable(),
  participation_percentage: z.number().nullable(),
  is_admin: z.boolean(),
  entity_type: z.enum(ENTITY_TYPES),
  legal_name: z.string().nullable(),
  created_at: timestamp(),
  updated_at: timestamp(),
});
export type LegalRepresentative = z.infer<typeof legalRepresentative>;

export const legalRepresentativeCreate = z
  .strictObject({
    name: nonEmpty(150),
    document: taxIdInput(),
    entity_type: entityType().optional().describe('pf or pj; default pf (an update keeps the stored value)'),
    legal_name: optText(150),
    birth_date: birthDate().optional(),
    mother_name: optText(150),
    email: email().optional(),
    phone: phone().optional(),
    role: z.enum(PARTNER_ROLES, { error: `must be one of: ${PARTNER_ROLES.join(', ')}` }).optional(),
    qualification: optText(100),
    participation_percentage: z
      .number({ error: 'must be a number from 0 to 100' })
      .min(0, { error: 'must be at least 0' })
      .max(100, { error: 'must be at most 100' })
      .refine((v) => Math.abs(Math.round(v * 100) - v * 100) < 1e-6, { error: 'must have at most 2 decimal places' })
      .optional(),
    is_admin: z.boolean({ error: 'must be true or false' }).optional(),
  });

// ---------------------------------------------------------------------------------------------
// Document

export const submerchantDocument = z.object({
  id: uuid(),
  submerchant_id: uuid(),
  legal_representative_id: uuid().nullable(),
  type: z.enum(DOCUMENT_TYPES),
  notes: z.string().nullable(),
  number: z.string().nullable(),
  file_url: z.string(),
  file_name: z.string(),
  file_size: z.int(),
  mime_type: z.enum(ACCEPTED_MIME_TYPES),
  status: z.enum(DOCUMENT_STATUSES),
  verified_at: timestamp().nullable(),
  verification_notes: z.string().nullable(),
  expires_at: timestamp().nullable(),
  created_at: timestamp(),
  updated_at: timestamp(),
});
export type SubmerchantDocument = z.infer<typeof submerchantDocument>;

export const documentCreate = z
  .strictObject({
    type: z.enum(DOCUMENT_TYPES, { error: `must be one of: ${DOCUMENT_TYPES.join(', ')}` }),
    file_url: z.url({ protocol: /^https?$/, error: 'must be the http(s) URL of an already hosted file' }).max(2048),
    file_name: nonEmpty(255),
    file_size: z
      .int({ error: 'must be an integer number of bytes' })
      .min(1, { error: 'must be at least 1 byte' })
      .max(MAX_UPLOAD_BYTES, { error: `must be at most ${MAX_UPLOAD_BYTES} bytes (10 MiB)` }),
    mime_type: z.enum(ACCEPTED_MIME_TYPES, { error: `must be one of: ${ACCEPTED_MIME_TYPES.join(', ')}` }),
    number: optText(50).describe("the document's own number (RG, CNH, registration…)"),
    expires_at: isoDateTime().optional(),
    notes: optText(1000),
    legal_representative_id: uuid().optional(),
  })
  .superRefine((v, ctx) => {
    const ext = extensionOf(v.file_name);
    const kind = kindOfExtension(ext);
    if (!ext) ctx.addIssue({ code: 'custom', path: ['file_name'], message: 'must have an extension: .pdf, .png, .jpg or .jpeg' });
    else if (!kind) ctx.addIssue({ code: 'custom', path: ['file_name'], message: `extension .${ext} is not accepted; use .pdf, .png, .jpg or .jpeg` });
    else if (kind !== kindOfMime(v.mime_type)) {
      ctx.addIssue({ code: 'custom', path: ['file_name'], message: `extension .${ext} does not match mime_type ${v.mime_type}` });
    }
    const partner = v.type.startsWith('partner_');
    if (partner && !v.legal_representative_id) {
      ctx.addIssue({ code: 'custom', path: ['legal_representative_id'], message: `is required for document type ${v.type}` });
    }
    if (!partner && v.legal_representative_id) {
      ctx.addIssue({
        code: 'custom',
        path: ['legal_representative_id'],
        message: `is only for partner_ document types; remove it for type ${v.type}`,
      });
    }
  });

export const documentListQuery = listQuery({
  type: qEnum(DOCUMENT_TYPES).optional(),
  status: qEnum(DOCUMENT_STATUSES).optional(),
  legal_representative_id: uuid().optional(),
});

// ---------------------------------------------------------------------------------------------
// Upload

export const uploadedFile = z.object({
  url: z.url(),
  key: z.string(),
  fileName: z.string(),
  fileSize: z.int(),
  mimeType: z.enum(ACCEPTED_MIME_TYPES),
});
export type UploadedFile = z.infer<typeof uploadedFile>;

// ---------------------------------------------------------------------------------------------
// Requirements and review

const requirementKind = z.enum(['address', 'legal_representative', 'document']);

export const requirements = z.object({
  submerchant_id: uuid(),
  entity_type: z.enum(ENTITY_TYPES),
  status: z.enum(SUBMERCHANT_STATUSES),
  complete: z.boolean().describe('true when nothing is missing'),
  missing: z.array(
    z.object({
      kind: requirementKind,
      type: z.enum(DOCUMENT_TYPES).optional(),
      legal_representative_id: uuid().optional(),
      message: z.string(),
    }),
  ),
  satisfied: z.array(
    z.object({
      kind: requirementKind,
      type: z.enum(DOCUMENT_TYPES).optional(),
      legal_representative_id: uuid().optional(),
      resource_id: uuid(),
    }),
  ),
});
export type RequirementsResult = z.infer<typeof requirements>;

export const reviewRequest = z
  .strictObject({
    decision: z.enum(['approve', 'reject'], { error: 'must be approve or reject' }),
    notes: optText(1000),
  })
  .superRefine((v, ctx) => {
    if (v.decision === 'reject' && !v.notes) {
      ctx.addIssue({ code: 'custom', path: ['notes'], message: 'is required when rejecting: tell the submerchant what to fix' });
    }
  });

// ---------------------------------------------------------------------------------------------
// Endpoints

const SUB_COLUMNS = ['id', 'entity_type', 'trade_name', 'tax_id', 'status', 'created_at'] as const;
const EXAMPLE_ID = '0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f';

/** How the CLI presents this resource (src/contract/presentation.ts). */
export const submerchantPresentation: CliPresentation = {
  groups: {
    submerchants: 'Submerchants: onboarding (KYC), addresses, partners, documents, requirements',
    'submerchants addresses': 'Submerchant addresses: add and list',
    'submerchants partners': 'Submerchant partners (owners, administrators): add and list',
    'submerchants docs': 'Submerchant documents: register by URL and list (upload: `mpay submerchants upload`)',
    files: 'Files: upload evidence, download uploaded documents',
  },
  fields: {
    trade_name: 'trade name (nome fantasia)',
    legal_name: 'legal name (razão social)',
    entity_type: 'pf (person, CPF) or pj (company, CNPJ)',
    soft_descriptor: 'name on the customer card statement',
    birth_date: 'birth date (YYYY-MM-DD)',
    mother_name: "mother's full name",
    average_ticket: 'average sale',
    monthly_revenue: 'monthly revenue',
    mcc: 'merchant category code (4 digits)',
    cnaes: 'CNAE activity codes',
    website: 'website URL',
    business_type: 'kind of business',
    product_categories: 'what the business sells',
    street: 'street',
    complement: 'complement (apartment, suite…)',
    neighborhood: 'neighborhood (bairro)',
    city: 'city',
    state: 'state, two letters (e.g. SP)',
    zip_code: 'CEP, 8 digits',
    country: 'country, two letters',
    is_primary: 'the main address',
    document: 'CPF or CNPJ (digits)',
    role: 'role in the company',
    qualification: 'legal qualification',
    participation_percentage: 'share of the company, in percent',
    is_admin: 'whether the partner administers the company',
    file_url: 'URL of the file',
    file_name: 'file name',
    file_size: 'file size in bytes',
    mime_type: 'MIME type, e.g. image/png',
    notes: 'notes for the reviewer',
    legal_representative_id: 'partner id of the legal representative',
    decision: 'approve or reject the submerchant',
  },
};

export const submerchantEndpoints = [
  endpoint({
    id: 'submerchants.create',
    method: 'POST',
    path: '/v1/submerchants',
    summary: 'Create a submerchant (with its wallet)',
    auth: 'secret',
    body: submerchantCreate,
    response: submerchant,
    status: 201,
    message: 'Submerchant created',
    tag: 'Submerchants',
    cli: {
      command: ['submerchants', 'create'],
      example:
        'mpay submerchants create --entity-type pj --trade-name "Padaria Boa" --legal-name "Padaria Boa LTDA" --tax-id 11222333000181 --email financeiro@padariaboa.com.br --mcc 5462',
      columns: [...SUB_COLUMNS],
    },
  }),
  endpoint({
    id: 'submerchants.get',
    method: 'GET',
    path: '/v1/submerchants/{id}',
    summary: 'Retrieve a submerchant',
    auth: 'secret',
    response: submerchant,
    message: 'Submerchant retrieved',
    tag: 'Submerchants',
    cli: { command: ['submerchants', 'get'], example: `mpay submerchants get ${EXAMPLE_ID}`, columns: [...SUB_COLUMNS, 'wallet_id'] },
  }),
  endpoint({
    id: 'submerchants.list',
    method: 'GET',
    path: '/v1/submerchants',
    summary: 'List submerchants (filters: status, entity_type, tax_id)',
    auth: 'secret',
    query: submerchantListQuery,
    response: submerchant,
    list: true,
    message: 'Submerchants retrieved',
    tag: 'Submerchants',
    cli: {
      command: ['submerchants', 'list'],
      example: 'mpay submerchants list --status pending --entity-type pj',
      columns: [...SUB_COLUMNS],
      importance: ['id', 'trade_name', 'status', 'tax_id', 'entity_type', 'created_at'],
    },
  }),
  endpoint({
    id: 'submerchants.update',
    method: 'PATCH',
    path: '/v1/submerchants/{id}',
    summary: 'Correct a pending or under_review submerchant (the fields under review cannot change); each change is recorded',
    auth: 'secret',
    body: submerchantUpdate,
    response: submerchant,
    status: 200,
    message: 'Submerchant updated',
    tag: 'Submerchants',
    cli: {
      command: ['submerchants', 'update'],
      example: `mpay submerchants update ${EXAMPLE_ID} --legal-name "Padaria Boa LTDA" --email financeiro@padariaboa.com.br`,
      columns: [...SUB_COLUMNS, 'email', 'updated_at'],
    },
  }),
  endpoint({
    id: 'submerchants.changes.list',
    method: 'GET',
    path: '/v1/submerchants/{id}/changes',
    summary: "The corrections made to a submerchant (PATCH), newest first: each field's old and new value",
    auth: 'secret',
    query: listQuery({}),
    response: submerchantChange,
    list: true,
    message: 'Changes retrieved',
    tag: 'Submerchants',
    cli: {
      command: ['submerchants', 'changes'],
      example: `mpay submerchants changes ${EXAMPLE_ID}`,
      columns: ['created_at', 'status', 'changes', 'changed_by'],
      importance: ['created_at', 'changes', 'status', 'changed_by'],
    },
  }),
  endpoint({
    id: 'submerchants.addresses.create',
    method: 'POST',
    path: '/v1/submerchants/{id}/addresses',
    summary: 'Add an address to a submerchant',
    auth: 'secret',
    body: addressCreate,
    response: address,
    status: 201,
    message: 'Address added',
    tag: 'Submerchants',
    cli: {
      command: ['submerchants', 'addresses', 'add'],
      example: `mpay submerchants addresses add ${EXAMPLE_ID} --street "Av. Paulista" --number 1000 --neighborhood "Bela Vista" --city "São Paulo" --state SP --zip-code 01310100`,
      columns: ['id', 'type', 'street', 'number', 'city', 'state', 'zip_code', 'is_primary'],
    },
  }),
  endpoint({
    id: 'submerchants.addresses.list',
    method: 'GET',
    path: '/v1/submerchants/{id}/addresses',
    summary: "List a submerchant's addresses",
    auth: 'secret',
    query: listQuery({}),
    response: address,
    list: true,
    message: 'Addresses retrieved',
    tag: 'Submerchants',
    cli: {
      command: ['submerchants', 'addresses', 'list'],
      example: `mpay submerchants addresses list ${EXAMPLE_ID}`,
      columns: ['id', 'type', 'street', 'number', 'city', 'state', 'zip_code', 'is_primary'],
    },
  }),
  endpoint({
    id: 'submerchants.partners.create',
    method: 'POST',
    path: '/v1/submerchants/{id}/legal-representatives',
    summary: 'Add or update (by document) a legal representative of a pj submerchant',
    auth: 'secret',
    body: legalRepresentativeCreate,
    response: legalRepresentative,
    status: 201,
    message: 'Legal representative added',
    tag: 'Submerchants',
    cli: {
      command: ['submerchants', 'partners', 'add'],
      example: `mpay submerchants partners add ${EXAMPLE_ID} --name "Ana Souza" --document 52998224725 --birth-date 1985-04-12 --participation-percentage 60 --is-admin`,
      columns: ['id', 'name', 'document', 'entity_type', 'role', 'participation_percentage', 'is_admin'],
    },
  }),
  endpoint({
    id: 'submerchants.partners.list',
    method: 'GET',
    path: '/v1/submerchants/{id}/legal-representatives',
    summary: 'List the legal representatives of a pj submerchant',
    auth: 'secret',
    query: listQuery({}),
    response: legalRepresentative,
    list: true,
    message: 'Legal representatives retrieved',
    tag: 'Submerchants',
    cli: {
      command: ['submerchants', 'partners', 'list'],
      example: `mpay submerchants partners list ${EXAMPLE_ID}`,
      columns: ['id', 'name', 'document', 'entity_type', 'role', 'participation_percentage', 'is_admin'],
    },
  }),
  endpoint({
    id: 'submerchants.documents.create',
    method: 'POST',
    path: '/v1/submerchants/{id}/documents',
    summary: 'Add a document (replaces the current one of the same type and partner)',
    auth: 'secret',
    body: documentCreate,
    response: submerchantDocument,
    status: 201,
    message: 'Document added',
    tag: 'Submerchants',
    cli: {
      command: ['submerchants', 'docs', 'add'],
      example: `mpay submerchants docs add ${EXAMPLE_ID} --type cnpj_card --file-url https://files.example.com/cnpj.pdf --file-name cnpj.pdf --file-size 48213 --mime-type application/pdf`,
      columns: ['id', 'type', 'legal_representative_id', 'file_name', 'status', 'created_at'],
    },
  }),
  endpoint({
    id: 'submerchants.documents.list',
    method: 'GET',
    path: '/v1/submerchants/{id}/documents',
    summary: "List a submerchant's documents (filters: type, status, legal_representative_id)",
    auth: 'secret',
    query: documentListQuery,
    response: submerchantDocument,
    list: true,
    message: 'Documents retrieved',
    tag: 'Submerchants',
    cli: {
      command: ['submerchants', 'docs', 'list'],
      example: `mpay submerchants docs list ${EXAMPLE_ID} --status pending`,
      columns: ['id', 'type', 'legal_representative_id', 'file_name', 'status', 'created_at'],
    },
  }),
  endpoint({
    id: 'submerchants.upload',
    method: 'POST',
    path: '/v1/submerchants/{id}/upload',
    summary: 'Upload a file (multipart/form-data, one part named file: PNG, JPEG or PDF up to 10 MiB)',
    auth: 'secret',
    multipart: true,
    response: uploadedFile,
    status: 201,
    message: 'File uploaded',
    tag: 'Submerchants',
    cli: {
      command: ['submerchants', 'upload'],
      example: `mpay submerchants upload ${EXAMPLE_ID} --file ./contrato-social.pdf`,
      columns: ['key', 'fileName', 'fileSize', 'mimeType', 'url'],
    },
  }),
  endpoint({
    id: 'files.upload',
    method: 'POST',
    path: '/v1/files',
    summary: "Upload a file of the merchant's own (multipart/form-data, one part named file: PNG, JPEG or PDF up to 10 MiB), e.g. chargeback evidence",
    auth: 'secret',
    multipart: true,
    response: uploadedFile,
    status: 201,
    message: 'File uploaded',
    tag: 'Files',
    cli: {
      command: ['files', 'upload'],
      example: 'mpay files upload --file ./comprovante-entrega.pdf',
      columns: ['key', 'fileName', 'fileSize', 'mimeType', 'url'],
    },
  }),
  endpoint({
    id: 'files.get',
    method: 'GET',
    path: '/v1/files/{key}',
    summary: 'Download an uploaded file (the raw bytes, not an envelope; only for the merchant that uploaded it)',
    auth: 'secret',
    response: z.string().describe('the file bytes, served as an attachment with the stored mime type'),
    raw: true,
    message: 'File retrieved',
    tag: 'Files',
    cli: { command: ['files', 'download'], example: 'mpay files download 0190f0c4-1c2b-4d3e-8f40-5a6b7c8d9e0f.pdf --out contrato.pdf' },
  }),
  endpoint({
    id: 'submerchants.requirements',
    method: 'GET',
    path: '/v1/submerchants/{id}/requirements',
    summary: 'What is still missing before the submerchant goes under review',
    auth: 'secret',
    response: requirements,
    message: 'Requirements retrieved',
    tag: 'Submerchants',
    cli: {
      command: ['submerchants', 'requirements'],
      example: `mpay submerchants requirements ${EXAMPLE_ID}`,
      columns: ['kind', 'type', 'legal_representative_id', 'message'],
    },
  }),
  endpoint({
    id: 'sandbox.submerchants.review',
    method: 'POST',
    path: '/v1/sandbox/submerchants/{id}/review',
    summary: 'Sandbox: approve or reject a submerchant under review',
    auth: 'secret',
    body: reviewRequest,
    response: submerchant,
    status: 200,
    sandbox: true,
    message: 'Submerchant reviewed',
    tag: 'Submerchants',
    cli: {
      command: ['sandbox', 'review'],
      example: `mpay sandbox review ${EXAMPLE_ID} --decision reject --notes "CNPJ card is illegible"`,
      columns: ['id', 'status', 'reviewed_at', 'review_notes'],
    },
  }),
] as const;
