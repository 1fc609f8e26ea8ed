/**
 * The questions of `mpay submerchants onboard`, as data: one Field per answer, validated with
 * the rules the server applies (the contract's zod schemas and the pure rules of src/domain),
 * so a mistake is caught while the user is still on the field. Loaded only by the onboarding.
 */
import type * as z from 'zod';
import type { BodyOf } from '../../contract/endpoint.js';
import { addressCreate, legalRepresentativeCreate, PARTNER_ROLES, submerchantCreate } from '../../contract/resources/submerchants.js';
import { normalizeTaxId, UFS } from '../../domain/brazil.js';
import { birthDateProblem } from '../../domain/onboarding.js';
import { parseBRL } from '../../domain/money.js';
import type { EntityType } from '../../domain/onboarding.js';
import { taxIdProblem } from '../../domain/taxid.js';
import type { Operation } from '../../sdk/client.js';

export type FieldKind = 'text' | 'select' | 'confirm';

export interface Choice {
  value: string;
  name: string;
  description?: string;
}

/** The operations whose bodies the onboarding builds from answers. */
export type OnboardingOperation = 'submerchants.create' | 'submerchants.addresses.create' | 'submerchants.partners.create';
/** The fields of an operation's body, e.g. 'trade_name' | 'tax_id' | … of submerchants.create. */
export type BodyKey<I extends OnboardingOperation> = keyof BodyOf<Operation<I>> & string;

/** A question; `K` is the request body field it may fill (a field of the operation's body). */
export interface Field<K extends string = string> {
  /** key of the answer in its section of the answers file */
  key: string;
  /** the request body field it fills (errors of the service name it) */
  body: K;
  kind: FieldKind;
  message: string;
  required: boolean;
  choices?: readonly Choice[];
  default?: string | boolean;
  /** the question without its hint, e.g. "CEP": what messages about the field call it */
  label: string;
  /** true, or why the value is refused, as the server would say it (naming the label) */
  validate(value: string): true | string;
  /** the body value of an accepted answer */
  toBody(value: string): unknown;
}

/** A question's text without its trailing hint: "CEP (e.g. 01310-100)" → "CEP". */
export function labelOf(message: string): string {
  return message.replace(/\s*\([^)]*\)\s*$/, '');
}

/** A message of the service with the body fields of `fields` named by their labels. */
export function withLabels(message: string, fields: readonly Field[]): string {
  let out = message;
  for (const f of [...fields].sort((a, b) => b.body.length - a.body.length)) {
    out = out.replace(new RegExp(`(?<![\\w.])${f.body.replace(/[.[\]]/g, '\\$&')}(?![\\w])`, 'g'), f.label);
  }
  return out;
}

/** The first message of a zod schema's verdict on a value, or true. */
function check(schema: z.ZodType, value: unknown): true | string {
  const r = schema.safeParse(value);
  return r.success ? true : (r.error.issues[0]?.message ?? 'is not valid');
}

const sm = submerchantCreate.shape;
const ad = addressCreate.shape;
const lr = legalRepresentativeCreate.shape;

/** A text field checked by a schema of the contract (the body gets the schema's output). */
function schemaField<K extends string>(key: K, message: string, required: boolean, schema: z.ZodType): Field<K> {
  return {
    key,
    body: key,
    kind: 'text',
    message,
    label: labelOf(message),
    required,
    validate: (v) => {
      const ok = check(schema, v);
      return ok === true ? true : `${labelOf(message)} ${ok}`;
    },
    toBody: (v) => {
      const r = schema.safeParse(v);
      return r.success ? r.data : v;
    },
  };
}

function taxIdField<K extends string>(key: K, message: string, entity: EntityType): Field<K> {
  return {
    key,
    body: key,
    kind: 'text',
    message,
    label: labelOf(message),
    required: true,
    validate: (v) => {
      const problem = taxIdProblem(normalizeTaxId(v), entity);
      return problem ? `${labelOf(message)} ${problem}` : true;
    },
    toBody: normalizeTaxId,
  };
}

/** A birth date as Brazilians write it (DD/MM/AAAA, also with - or .) or ISO → YYYY-MM-DD; null if neither. */
export function isoBirthDate(value: string): string | null {
  const v = value.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(v)) return v;
  const m = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})$/.exec(v);
  return m ? `${m[3]}-${m[2]!.padStart(2, '0')}-${m[1]!.padStart(2, '0')}` : null;
}

function birthDateField(): Field<'birth_date'> {
  return {
    key: 'birth_date',
    body: 'birth_date',
    kind: 'text',
    message: 'Birth date (DD/MM/AAAA)',
    label: 'Birth date',
    required: false,
    validate: (v) => {
      const iso = isoBirthDate(v);
      if (iso === null) return 'Birth date must be a date as DD/MM/AAAA (e.g. 12/04/1985) or AAAA-MM-DD';
      const problem = birthDateProblem(iso, new Date());
      return problem ? `Birth date ${problem}` : true;
    },
    toBody: (v) => isoBirthDate(v) ?? v.trim(),
  };
}

function moneyField<K extends 'average_ticket' | 'monthly_revenue'>(key: K, message: string): Field<K> {
  return {
    key,
    body: key,
    kind: 'text',
    message: `${message} in R$ (e.g. 1.500,00)`,
    label: message,
    required: false,
    validate: (v) => {
      const cents = parseBRL(v);
      if (cents === null) return `${message} must be an amount in reais, e.g. 1.500,00 or 1500.00`;
      const ok = check(sm[key], cents);
      return ok === true ? true : `${message} ${ok}`;
    },
    toBody: (v) => parseBRL(v),
  };
}

/** "60", "33,33", "12.5" → a number, or null. */
export function parsePercent(value: string): number | null {
  const s = value.trim().replace(/\s*%$/, '').replace(',', '.');
  return /^\d{1,3}(\.\d+)?$/.test(s) ? Number(s) : null;
}

function percentField(): Field<'participation_percentage'> {
  return {
    key: 'participation_percentage',
    body: 'participation_percentage',
    kind: 'text',
    message: 'Participation in the company, % (0 to 100)',
    label: 'Participation %',
    required: false,
    validate: (v) => {
      const n = parsePercent(v);
      if (n === null) return 'Participation % must be a number from 0 to 100, e.g. 60 or 33,33';
      const ok = check(lr.participation_percentage, n);
      return ok === true ? true : `Participation % ${ok}`;
    },
    toBody: (v) => parsePercent(v),
  };
}

function cnaeField(): Field<'cnaes'> {
  return {
    key: 'cnae',
    body: 'cnaes',
    kind: 'text',
    message: 'Primary CNAE code (e.g. 4721-1/02)',
    label: 'Primary CNAE code',
    required: false,
    validate: (v) => {
      const r = sm.cnaes.safeParse([{ code: v, is_primary: true }]);
      return r.success ? true : `Primary CNAE code ${r.error.issues[0]?.message ?? 'is not valid'}`;
    },
    toBody: (v) => {
      const r = sm.cnaes.safeParse([{ code: v, is_primary: true }]);
      return r.success ? r.data : v;
    },
  };
}

export const ENTITY_CHOICES: readonly Choice[] = [
  { value: 'pf', name: 'pf — an individual (pessoa física, CPF)' },
  { value: 'pj', name: 'pj — a company (pessoa jurídica, CNPJ)' },
];

function choiceField<K extends string>(key: K, message: string, choices: readonly Choice[], dflt?: string): Field<K> {
  const values = choices.map((c) => c.value);
  return {
    key,
    body: key,
    kind: 'select',
    message,
    label: labelOf(message),
    required: dflt === undefined,
    choices,
    default: dflt,
    validate: (v) => (values.includes(v) ? true : `${labelOf(message)} must be one of: ${values.join(', ')}`),
    toBody: (v) => v,
  };
}

function confirmField<K extends string>(key: K, message: string, dflt: boolean): Field<K> {
  return {
    key,
    body: key,
    kind: 'confirm',
    message,
    label: labelOf(message),
    required: false,
    default: dflt,
    validate: (v) => (/^(true|false|yes|no)$/i.test(v) ? true : `${labelOf(message)} must be true or false`),
    toBody: (v) => /^(true|yes)$/i.test(v),
  };
}

export const entityTypeField = (): Field<'entity_type'> => choiceField('entity_type', 'Entity type', ENTITY_CHOICES);

/** The submerchant's own fields for an entity type, in the order they are asked. */
export function submerchantFields(entity: EntityType): Field<BodyKey<'submerchants.create'>>[] {
  const pf = entity === 'pf';
  return [
    schemaField('trade_name', 'Trade name (nome fantasia)', true, sm.trade_name),
    schemaField('legal_name', pf ? 'Full name (as on the CPF)' : 'Legal name (razão social)', true, sm.legal_name),
    taxIdField('tax_id', pf ? 'CPF' : 'CNPJ (14 digits, or the alphanumeric form)', entity),
    schemaField('email', 'E-mail', true, sm.email),
    schemaField('phone', 'Phone with area code (e.g. +55 11 98765-4321)', false, sm.phone),
    ...(pf ? [birthDateField(), schemaField('mother_name', "Mother's name", false, sm.mother_name)] : [cnaeField()]),
    schemaField('mcc', 'MCC, merchant category code (4 digits, e.g. 5462)', false, sm.mcc),
    schemaField('soft_descriptor', 'Text on the card statement (soft descriptor, up to 22 characters)', false, sm.soft_descriptor),
    moneyField('average_ticket', 'Average ticket'),
    moneyField('monthly_revenue', 'Monthly revenue'),
  ];
}

/** The address, CEP first (as Brazilians give it). */
export function addressFields(): Field<BodyKey<'submerchants.addresses.create'>>[] {
  return [
    schemaField('zip_code', 'CEP (e.g. 01310-100)', true, ad.zip_code),
    schemaField('street', 'Street', true, ad.street),
    schemaField('number', 'Number', true, ad.number),
    schemaField('complement', 'Complement (e.g. sala 12)', false, ad.complement),
    schemaField('neighborhood', 'Neighborhood (bairro)', true, ad.neighborhood),
    schemaField('city', 'City', true, ad.city),
    { ...schemaField('state', `State (UF: ${UFS.slice(0, 4).join(', ')}…)`, true, ad.state), toBody: (v: string) => v.trim().toUpperCase() },
  ];
}

export const partnerEntityField = (): Field<'entity_type'> => ({
  ...choiceField(
    'entity_type',
    'Partner type',
    [
      { value: 'pf', name: 'pf — a person (CPF)' },
      { value: 'pj', name: 'pj — a company (CNPJ)' },
    ],
    'pf',
  ),
});

const ROLE_CHOICES: readonly Choice[] = PARTNER_ROLES.map((r) => ({ value: r, name: r.replace(/_/g, ' ') }));

/** A partner's fields after its entity type. */
export function partnerFields(entity: EntityType): Field<BodyKey<'submerchants.partners.create'>>[] {
  const pf = entity === 'pf';
  return [
    schemaField('name', pf ? "Partner's full name" : 'Name of the person responsible for the company', true, lr.name),
    taxIdField('document', pf ? "Partner's CPF" : "Partner company's CNPJ", entity),
    ...(pf
      ? [birthDateField(), schemaField('mother_name', "Mother's name", false, lr.mother_name)]
      : [schemaField('legal_name', "Partner company's legal name (razão social)", true, lr.legal_name)]),
    schemaField('email', 'E-mail', false, lr.email),
    schemaField('phone', 'Phone with area code', false, lr.phone),
    choiceField('role', 'Role', ROLE_CHOICES, 'legal_representative'),
    percentField(),
    confirmField('is_admin', 'Is this partner an administrator of the account?', false),
  ];
}

/** Every key a section of the answers file may hold (both entity types). */
export const SECTION_KEYS = {
  submerchant: new Set([...submerchantFields('pf'), ...submerchantFields('pj')].map((f) => f.key)),
  address: new Set(addressFields().map((f) => f.key)),
  partner: new Set(['entity_type', 'documents', ...partnerFields('pf').map((f) => f.key), ...partnerFields('pj').map((f) => f.key)]),
};

/**
 * The request body of answered fields (skipped ones are left out), as the operation's body:
 * each value is what the field's check (the contract's schema or the domain's rule) accepted
 * and turned into the body's form, and every required field is answered (the prompter refuses
 * an empty required answer; --from-file is checked before anything is sent). The service
 * validates the body again; a refusal naming a field asks that field again.
 */
export function bodyOf<I extends OnboardingOperation>(fields: readonly Field<BodyKey<I>>[], answers: Record<string, string | undefined>): BodyOf<Operation<I>> {
  const body: Partial<Record<BodyKey<I>, unknown>> = {};
  for (const f of fields) {
    const v = answers[f.key];
    if (v !== undefined) body[f.body] = f.toBody(v);
  }
  return body as BodyOf<Operation<I>>;
}

/** The fields an error of the service is about (its details name body fields, e.g. cnaes[0].code). */
export function fieldsNamedBy(fields: readonly Field[], detailFields: readonly string[]): Field[] {
  return fields.filter((f) => detailFields.some((d) => d === f.body || d.startsWith(`${f.body}.`) || d.startsWith(`${f.body}[`)));
}
