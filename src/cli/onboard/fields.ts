/**
 * The questions of `mpay submerchants onboard`, as data: one Field per answer, validated with
 * the rules the server applies (the contract's zod schemas and the pure rules of src/domain),
 * so a mistake is caught while the user is still on the field. Loaded only by the onboarding.
 */
import type * as z from 'zod';
import type { BodyOf } from '../../contract/endpoint.js';
import { addressCreate, legalRepresentativeCreate, PARTNER_ROLES, submerchantCreate } from '../../contract/resources/submerchants.js';
import { normalizeTaxId, UFS } from '../../domain/brazil.js';
import { checkBirthDate } from '../../domain/onboarding.js';
import { formatBRL, parseBRL } from '../../domain/money.js';
import type { EntityType } from '../../domain/onboarding.js';
import { taxIdProblem } from '../../domain/taxid.js';
import type { Operation } from '../../sdk/client.js';
import { en, translate, type Catalogue } from './locale.js';

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
  /** a tax id: the other entity type when the value is a valid id of that type (a person answers) */
  switchTo?: (value: string) => EntityType | undefined;
  /** an accepted answer as the review shows it, where that is not as typed (money as R$) */
  display?: (value: string) => string;
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

/** What the questions are asked with: the language, the merchant's clock, whether a person answers. */
export interface FieldContext {
  t: Catalogue;
  /** today, for birth dates: the merchant's clock (the sandbox may have moved it) */
  now: Date;
  /** a person answers: a tax id of the other entity type is accepted, to offer switching */
  interactive: boolean;
}

export const defaultContext = (): FieldContext => ({ t: en, now: new Date(), interactive: false });

/** The first message of a zod schema's verdict on a value, or true. */
function check(schema: z.ZodType, value: unknown): true | string {
  const r = schema.safeParse(value);
  return r.success ? true : (r.error.issues[0]?.message ?? 'is not valid');
}

const sm = submerchantCreate.shape;
const ad = addressCreate.shape;
const lr = legalRepresentativeCreate.shape;

/** A text field checked by a schema of the contract (the body gets the schema's output). */
function schemaField<K extends string>(c: FieldContext, key: K, message: string, required: boolean, schema: z.ZodType): Field<K> {
  const label = labelOf(message);
  return {
    key,
    body: key,
    kind: 'text',
    message,
    label,
    required,
    validate: (v) => {
      const ok = check(schema, v);
      return ok === true ? true : `${label} ${translate(c.t, ok)}`;
    },
    toBody: (v) => {
      const r = schema.safeParse(v);
      return r.success ? r.data : v;
    },
  };
}

/**
 * A CPF or CNPJ with its check digits. When a person answers, a valid id of the other entity
 * type is accepted too and `switchTo` names that type, so the wizard can offer to switch.
 */
function taxIdField<K extends string>(c: FieldContext, key: K, message: string, entity: EntityType): Field<K> {
  const label = labelOf(message);
  const other: EntityType = entity === 'pf' ? 'pj' : 'pf';
  const switchTo = (v: string) => (c.interactive && taxIdProblem(normalizeTaxId(v), other) === null ? other : undefined);
  return {
    key,
    body: key,
    kind: 'text',
    message,
    label,
    required: true,
    validate: (v) => {
      const problem = taxIdProblem(normalizeTaxId(v), entity);
      if (!problem || switchTo(v)) return true;
      return `${label} ${translate(c.t, problem)}`;
    },
    toBody: normalizeTaxId,
    switchTo: c.interactive ? switchTo : undefined,
  };
}

/** A birth date as Brazilians write it (DD/MM/AAAA, also with - or .) or ISO → YYYY-MM-DD; null if neither. */
export function isoBirthDate(value: string): string | null {
  const v = value.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(v)) return v;
  const m = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})$/.exec(v);
  return m ? `${m[3]}-${m[2]!.padStart(2, '0')}-${m[1]!.padStart(2, '0')}` : null;
}

/** YYYY-MM-DD → DD/MM/AAAA, the form the question asks for (and explains in). */
export const brDate = (iso: string): string => `${iso.slice(8, 10)}/${iso.slice(5, 7)}/${iso.slice(0, 4)}`;

/** A birth date, asked and explained as DD/MM/AAAA; a person must be 18 (the service's rule, src/domain/onboarding.ts). */
function birthDateField(c: FieldContext): Field<'birth_date'> {
  const label = labelOf(c.t.q.birthDate);
  return {
    key: 'birth_date',
    body: 'birth_date',
    kind: 'text',
    message: c.t.q.birthDate,
    label,
    required: false,
    validate: (v) => {
      const iso = isoBirthDate(v);
      if (iso === null) return c.t.check.dateFormat(label);
      const p = checkBirthDate(iso, c.now);
      switch (p?.kind) {
        case undefined:
          return true;
        case 'not_a_date':
          return c.t.check.notADate(label, /^\d{4}-/.test(v.trim()) ? brDate(iso) : v.trim());
        case 'before_1900':
          return c.t.check.before1900(label);
        case 'future':
          return c.t.check.future(label, brDate(iso), brDate(p.today));
        case 'under_age':
          return c.t.check.underAge(label, brDate(iso), p.age, brDate(p.today), brDate(p.adultOn));
      }
    },
    toBody: (v) => isoBirthDate(v) ?? v.trim(),
  };
}

function moneyField<K extends 'average_ticket' | 'monthly_revenue'>(c: FieldContext, key: K, label: string): Field<K> {
  return {
    key,
    body: key,
    kind: 'text',
    message: c.t.q.money(label),
    label,
    required: false,
    validate: (v) => {
      const cents = parseBRL(v);
      if (cents === null) return c.t.check.money(label);
      const ok = check(sm[key], cents);
      return ok === true ? true : `${label} ${translate(c.t, ok)}`;
    },
    toBody: (v) => parseBRL(v),
    display: (v) => {
      const cents = parseBRL(v);
      return cents === null ? v : formatBRL(cents);
    },
  };
}

/** "60", "33,33", "12.5" → a number, or null. */
export function parsePercent(value: string): number | null {
  const s = value.trim().replace(/\s*%$/, '').replace(',', '.');
  return /^\d{1,3}(\.\d+)?$/.test(s) ? Number(s) : null;
}

function percentField(c: FieldContext): Field<'participation_percentage'> {
  const label = c.t.q.participationLabel;
  return {
    key: 'participation_percentage',
    body: 'participation_percentage',
    kind: 'text',
    message: c.t.q.participation,
    label,
    required: false,
    validate: (v) => {
      const n = parsePercent(v);
      if (n === null) return c.t.check.percent(label);
      const ok = check(lr.participation_percentage, n);
      return ok === true ? true : `${label} ${translate(c.t, ok)}`;
    },
    toBody: (v) => parsePercent(v),
  };
}

function cnaeField(c: FieldContext): Field<'cnaes'> {
  const label = labelOf(c.t.q.cnae);
  const parse = (v: string) => sm.cnaes.safeParse([{ code: v, is_primary: true }]);
  return {
    key: 'cnae',
    body: 'cnaes',
    kind: 'text',
    message: c.t.q.cnae,
    label,
    required: false,
    validate: (v) => {
      const r = parse(v);
      return r.success ? true : `${label} ${translate(c.t, r.error.issues[0]?.message ?? 'is not valid')}`;
    },
    toBody: (v) => {
      const r = parse(v);
      return r.success ? r.data : v;
    },
  };
}

function choiceField<K extends string>(c: FieldContext, key: K, message: string, choices: readonly Choice[], dflt?: string): Field<K> {
  const values = choices.map((x) => x.value);
  const label = labelOf(message);
  return {
    key,
    body: key,
    kind: 'select',
    message,
    label,
    required: dflt === undefined,
    choices,
    default: dflt,
    validate: (v) => (values.includes(v) ? true : c.t.check.oneOf(label, values.join(', '))),
    toBody: (v) => v,
  };
}

function confirmField<K extends string>(c: FieldContext, key: K, message: string, dflt: boolean): Field<K> {
  const label = labelOf(message);
  return {
    key,
    body: key,
    kind: 'confirm',
    message,
    label,
    required: false,
    default: dflt,
    validate: (v) => (/^(true|false|yes|no)$/i.test(v) ? true : c.t.check.trueFalse(label)),
    toBody: (v) => /^(true|yes)$/i.test(v),
  };
}

export const entityChoices = (t: Catalogue): readonly Choice[] => [
  { value: 'pf', name: t.q.entityPf },
  { value: 'pj', name: t.q.entityPj },
];

export const entityTypeField = (c: FieldContext = defaultContext()): Field<'entity_type'> => choiceField(c, 'entity_type', c.t.q.entityType, entityChoices(c.t));

/** The submerchant's own fields for an entity type, in the order they are asked. */
export function submerchantFields(entity: EntityType, c: FieldContext = defaultContext()): Field<BodyKey<'submerchants.create'>>[] {
  const pf = entity === 'pf';
  const q = c.t.q;
  return [
    schemaField(c, 'trade_name', q.tradeName, true, sm.trade_name),
    schemaField(c, 'legal_name', pf ? q.fullName : q.legalName, true, sm.legal_name),
    taxIdField(c, 'tax_id', pf ? q.cpf : q.cnpj, entity),
    schemaField(c, 'email', q.email, true, sm.email),
    schemaField(c, 'phone', q.phone, false, sm.phone),
    ...(pf ? [birthDateField(c), schemaField(c, 'mother_name', q.motherName, false, sm.mother_name)] : [cnaeField(c)]),
    schemaField(c, 'mcc', q.mcc, false, sm.mcc),
    schemaField(c, 'soft_descriptor', q.softDescriptor, false, sm.soft_descriptor),
    moneyField(c, 'average_ticket', q.averageTicket),
    moneyField(c, 'monthly_revenue', q.monthlyRevenue),
  ];
}

/** The address, CEP first (as Brazilians give it). */
export function addressFields(c: FieldContext = defaultContext()): Field<BodyKey<'submerchants.addresses.create'>>[] {
  const q = c.t.q;
  return [
    schemaField(c, 'zip_code', q.zipCode, true, ad.zip_code),
    schemaField(c, 'street', q.street, true, ad.street),
    schemaField(c, 'number', q.number, true, ad.number),
    schemaField(c, 'complement', q.complement, false, ad.complement),
    schemaField(c, 'neighborhood', q.neighborhood, true, ad.neighborhood),
    schemaField(c, 'city', q.city, true, ad.city),
    { ...schemaField(c, 'state', q.state(UFS.slice(0, 4).join(', ')), true, ad.state), toBody: (v: string) => v.trim().toUpperCase() },
  ];
}

export const partnerEntityField = (c: FieldContext = defaultContext()): Field<'entity_type'> =>
  choiceField(
    c,
    'entity_type',
    c.t.q.partnerType,
    [
      { value: 'pf', name: c.t.q.partnerPf },
      { value: 'pj', name: c.t.q.partnerPj },
    ],
    'pf',
  );

/** A partner's fields after its entity type. */
export function partnerFields(entity: EntityType, c: FieldContext = defaultContext()): Field<BodyKey<'submerchants.partners.create'>>[] {
  const pf = entity === 'pf';
  const q = c.t.q;
  const roles: readonly Choice[] = PARTNER_ROLES.map((r) => ({ value: r, name: q.roles[r] ?? r.replace(/_/g, ' ') }));
  return [
    schemaField(c, 'name', pf ? q.partnerName : q.partnerResponsible, true, lr.name),
    taxIdField(c, 'document', pf ? q.partnerCpf : q.partnerCnpj, entity),
    ...(pf ? [birthDateField(c), schemaField(c, 'mother_name', q.motherName, false, lr.mother_name)] : [schemaField(c, 'legal_name', q.partnerLegalName, true, lr.legal_name)]),
    schemaField(c, 'email', q.email, false, lr.email),
    schemaField(c, 'phone', q.partnerPhone, false, lr.phone),
    choiceField(c, 'role', q.role, roles, 'legal_representative'),
    percentField(c),
    confirmField(c, 'is_admin', q.isAdmin, false),
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
