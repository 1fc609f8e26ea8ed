import * as z from 'zod';
import { endpoint, type CliPresentation } from '../endpoint.js';
import { hinted } from '../hints.js';
import { cents, currency, listQuery, metadata, money, nonEmpty, positiveCents, qEnum, timestamp, uuid } from '../common.js';
import { qFrom, qTo } from '../filters.js';
import { CARD_BRANDS } from '../../domain/brands.js';
import { statusesOf, type StatusOf } from '../../domain/lifecycle.js';
import { MAX_CHARGE_AMOUNT, MAX_INSTALLMENTS } from '../../domain/fees.js';
import { AUTHORIZATION_VALID_DAYS, VOID_REASONS } from '../../domain/capture.js';
import { PIX_MAX_EXPIRES_IN_S, PIX_MIN_EXPIRES_IN_S } from '../../domain/sandbox.js';
import { customerTaxIdProblem, isValidCnpj, isValidCpf } from '../../domain/taxid.js';

export const CHARGE_STATUSES = statusesOf('charge') as [StatusOf<'charge'>, ...StatusOf<'charge'>[]];
export const PAYMENT_METHODS = ['credit_card', 'pix'] as const;
export const PRODUCT_TYPES = ['physical', 'digital'] as const;
export const CUSTOMER_TYPES = ['individual', 'company'] as const;

export { MAX_CHARGE_AMOUNT };
export const chargeCents = () => positiveCents().max(MAX_CHARGE_AMOUNT, { error: `must be at most ${MAX_CHARGE_AMOUNT} cents (R$ 10.000.000,00)` });

const digitsOnly = (v: string) => v.replace(/[.\-/\s]/g, '');

/** A CPF or CNPJ as typed: separators dropped. */
const taxIdText = () => z.string({ error: 'must be a CPF (11 digits) or a CNPJ (14 characters)' }).transform(digitsOnly);
/** A CPF or a CNPJ with real check digits, where no customer type says which (the hosted checkout's buyer). */
export const anyTaxId = () => taxIdText().pipe(z.string().refine((v) => isValidCpf(v) || isValidCnpj(v.toUpperCase()), { error: 'must be a valid CPF or CNPJ (check digits)' }));

export const customerInput = z
  .strictObject({
    name: nonEmpty(120),
    email: z.email({ error: 'must be an e-mail address' }).max(254),
    // checked with the type, below: one message that names what the type needs
    tax_id: taxIdText(),
    phone: z
      .string({ error: 'must be a phone number' })
      .transform((v) => v.replace(/[\s()-]/g, ''))
      .pipe(z.string().regex(/^\+?\d{10,13}$/, { error: 'must be a phone number with area code, e.g. +5511987654321' })),
    type: z.enum(CUSTOMER_TYPES, { error: `must be one of: ${CUSTOMER_TYPES.join(', ')}` }),
  })
  .superRefine((c, ctx) => {
    if (typeof c.tax_id !== 'string') return;
    const id = c.tax_id.toUpperCase();
    const problem = (CUSTOMER_TYPES as readonly unknown[]).includes(c.type)
      ? customerTaxIdProblem(id, c.type)
      : isValidCpf(id) || isValidCnpj(id)
        ? null
        : 'must be a valid CPF or CNPJ (check digits)';
    if (problem) ctx.addIssue({ code: 'custom', path: ['tax_id'], message: problem });
  });

export const itemInput = z.strictObject({
  name: nonEmpty(200),
  quantity: z.int({ error: 'must be a whole number' }).min(1, { error: 'must be at least 1' }).max(100_000, { error: 'must be at most 100000' }),
  unit_price: cents().max(MAX_CHARGE_AMOUNT, { error: `must be at most ${MAX_CHARGE_AMOUNT} cents` }),
  tangible: z.boolean({ error: 'must be true or false' }),
});

export const splitRuleInput = z
  .strictObject({
    submerchant_id: uuid().nullable().optional().describe("omitted or null: the merchant's own share"),
    amount: chargeCents().optional(),
    percentage: z
      .number({ error: 'must be a number from 0.01 to 100' })
      .gt(0, { error: 'must be greater than 0' })
      .max(100, { error: 'must be at most 100' })
      .refine((v) => Math.abs(v * 100 - Math.round(v * 100)) < 1e-6, { error: 'must have at most 2 decimal places' })
      .optional(),
    charge_processing_fee: z.boolean({ error: 'must be true or false' }).optional().describe('default true'),
    charge_remainder_fee: z
      .boolean({ error: 'must be true or false' })
      .optional()
      .describe('true on at most one rule: it takes the cents left over when the amount and the fee are divided; default: the first rule'),
  })
  .superRefine((r, ctx) => {
    if ((r.amount === undefined) === (r.percentage === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['amount'], message: 'give exactly one of amount (cents) or percentage' });
    }
  });

const chargeCommon = {
  amount: chargeCents(),
  product_type: z.enum(PRODUCT_TYPES, { error: `must be one of: ${PRODUCT_TYPES.join(', ')}` }),
  customer: customerInput,
  items: z.array(itemInput, { error: 'must be an array of items' }).min(1, { error: 'must have at least one item' }).max(100, { error: 'must have at most 100 items' }),
  submerchant_id: uuid().optional(),
  shipping_amount: cents().max(MAX_CHARGE_AMOUNT, { error: `must be at most ${MAX_CHARGE_AMOUNT} cents` }).optional(),
  currency: currency().optional(),
  metadata: metadata().optional(),
  split_rules: z.array(splitRuleInput).min(1, { error: 'must have at least one rule when given' }).max(10, { error: 'must have at most 10 rules' }).optional(),
};

export const cardDetails = z.strictObject({
  token: z.string({ error: 'must be the card token from POST /v1/tokens' }).min(1, { error: 'must not be empty' }).max(100),
  installments: z
    .int({ error: 'must be a whole number' })
    .min(1, { error: 'must be at least 1' })
    .max(MAX_INSTALLMENTS, { error: `must be at most ${MAX_INSTALLMENTS}` })
    .optional()
    .describe('1 to 12, default 1'),
});

export const pixPaymentDetails = z.strictObject({
  expires_in: z
    .int({ error: 'must be a whole number of seconds' })
    .min(PIX_MIN_EXPIRES_IN_S, { error: `must be at least ${PIX_MIN_EXPIRES_IN_S} seconds` })
    .max(PIX_MAX_EXPIRES_IN_S, { error: `must be at most ${PIX_MAX_EXPIRES_IN_S} seconds (30 days)` })
    .optional()
    .describe('seconds until the BR Code expires; default 3600'),
});

/** Card only: false authorises now and leaves the capture for POST /v1/charges/{id}/capture (or a void). */
const cardCapture = z
  .boolean({ error: 'must be true or false' })
  .optional()
  .describe(`false: authorise only; capture within ${AUTHORIZATION_VALID_DAYS} days with POST /v1/charges/{id}/capture, or void; default true`);
/** PIX is captured when the buyer pays: it cannot be authorised only. */
const pixCapture = z
  .literal(true, { error: 'only credit_card charges can be authorised and captured later; a PIX charge is captured when it is paid (leave capture out)' })
  .optional();

export const chargeCreate = z.discriminatedUnion(
  'payment_method',
  [
    z.strictObject({ ...chargeCommon, payment_method: z.literal('credit_card'), payment_details: cardDetails, capture: cardCapture }),
    z.strictObject({ ...chargeCommon, payment_method: z.literal('pix'), payment_details: pixPaymentDetails.optional(), capture: pixCapture }),
  ],
  { error: `payment_method must be one of: ${PAYMENT_METHODS.join(', ')}` },
);
export type ChargeCreate = z.infer<typeof chargeCreate>;

export const chargeSplitRule = z.object({
  submerchant_id: uuid().nullable().describe("null: the merchant's own share"),
  amount: money().describe('cents of the charge amount this party receives (gross)'),
  percentage: z.number().nullable(),
  charge_processing_fee: z.boolean(),
  charge_remainder_fee: z.boolean().describe('this party takes the cents left over of the amount and of the fee'),
});

export const charge = z.object({
  id: uuid(),
  merchant_id: uuid(),
  submerchant_id: uuid().nullable(),
  amount: money(),
  currency: z.string(),
  status: z.enum(CHARGE_STATUSES),
  payment_method: z.enum(PAYMENT_METHODS),
  product_type: z.string(),
  installments: z.int(),
  shipping_amount: money(),
  customer: z.object({ name: z.string(), email: z.string(), tax_id: z.string(), phone: z.string(), type: z.string() }),
  items: z.array(z.object({ name: z.string(), quantity: z.int(), unit_price: money(), tangible: z.boolean() })),
  split_rules: z.array(chargeSplitRule),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  card: z
    .object({ brand: z.enum(CARD_BRANDS), first_six: z.string(), last_four: z.string(), holder_name: z.string() })
    .nullable()
    .describe('credit_card only'),
  pix: z
    .object({ qr_code: hinted(z.string().describe('BR Code "copia e cola" payload'), { copy: true }), expires_at: timestamp() })
    .nullable()
    .describe('pix only'),
  fee_amount: money().nullable().describe('MDR of the whole charge, set on capture'),
  net_amount: money().nullable().describe('amount − fee_amount, set on capture'),
  failure_code: z.string().nullable(),
  failure_reason: z.string().nullable(),
  captured_at: timestamp().nullable(),
  captured_amount: money().nullable().describe('cents captured, set on capture: amount, or less after a partial capture (the rest of the authorisation is released)'),
  authorized_at: timestamp().nullable().describe('when a charge created with capture false was authorised'),
  voided_at: timestamp().nullable().describe('when the authorisation was voided'),
  void_reason: z.enum(VOID_REASONS).nullable().describe(`requested (POST /v1/charges/{id}/void) or expired (not captured within ${AUTHORIZATION_VALID_DAYS} days)`),
  failed_at: timestamp().nullable(),
  refunded_at: timestamp().nullable().describe('when the charge became refunded (all of it)'),
  refunded_amount: money().describe('cents refunded so far (0 to captured_amount); status stays captured until it equals captured_amount'),
  payment_link_id: uuid().nullable().describe('the payment link the buyer paid through (hosted checkout), else null'),
  created_at: timestamp(),
  updated_at: timestamp(),
});
export type Charge = z.infer<typeof charge>;

export const refundCreate = z.strictObject({
  amount: positiveCents()
    .optional()
    .describe('cents to refund, 1 to what is left to refund; default: all that is left'),
});
export type RefundCreate = z.infer<typeof refundCreate>;

export const chargeCaptureRequest = z.strictObject({
  amount: positiveCents()
    .optional()
    .describe('cents to capture, 1 to the authorised amount; default all of it (the rest of the authorisation is released)'),
});
export type ChargeCaptureRequest = z.infer<typeof chargeCaptureRequest>;

export const refund = z.object({
  id: uuid(),
  charge_id: uuid(),
  amount: money().describe('cents refunded by this refund'),
  created_at: timestamp(),
});
export type Refund = z.infer<typeof refund>;

export const refundListQuery = listQuery({});

export const chargeListQuery = listQuery({
  status: qEnum(CHARGE_STATUSES).optional(),
  payment_method: qEnum(PAYMENT_METHODS).optional(),
  submerchant_id: uuid().optional(),
  start_date: qFrom().optional().describe('created at or after (date or date-time)'),
  end_date: qTo().optional().describe('created at or before (date: the whole day)'),
});

const CHARGE_COLUMNS = ['id', 'status', 'payment_method', 'amount', 'installments', 'failure_code', 'created_at'] as const;

/** How the CLI presents this resource (src/contract/presentation.ts). */
export const chargePresentation: CliPresentation = {
  groups: {
    charges: 'Charges: card and PIX payments, refunds',
  },
  fields: {
    items: 'JSON array of items: [{"name","quantity","unit_price" (cents),"tangible"}]',
    shipping_amount: 'shipping',
    split_rules: 'JSON array of splits: [{"submerchant_id","amount" (cents) or "percentage","charge_processing_fee"?,"charge_remainder_fee"?}]',
    token: 'card token from `mpay tokens create`',
  },
  nested: {
    items: { columns: ['name', 'quantity', 'unit_price', 'tangible'] },
  },
};

export const chargeEndpoints = [
  endpoint({
    id: 'charges.create',
    method: 'POST',
    path: '/v1/charges',
    summary: 'Create a charge (credit_card with a token, or pix with a BR Code)',
    auth: 'secret',
    body: chargeCreate,
    response: charge,
    status: 201,
    message: 'Charge created',
    tag: 'Charges',
    idempotency: 'in-transaction',
    cli: {
      command: ['charges', 'create'],
      example:
        'mpay charges create --amount 10000 --product-type digital --payment-method pix --customer.name "Ana Souza" --customer.email ana@example.com --customer.tax-id 52998224725 --customer.phone +5511987654321 --customer.type individual --items \'[{"name":"Curso","quantity":1,"unit_price":10000,"tangible":false}]\' --wait',
      columns: CHARGE_COLUMNS,
      waitWith: 'charges.get',
    },
  }),
  endpoint({
    id: 'charges.list',
    method: 'GET',
    path: '/v1/charges',
    summary: 'List charges, newest first',
    auth: 'secret',
    query: chargeListQuery,
    response: charge,
    list: true,
    message: 'Charges retrieved',
    tag: 'Charges',
    memo: true,
    cli: {
      command: ['charges', 'list'],
      example: 'mpay charges list --status captured --payment-method pix --start-date 2026-01-01',
      columns: CHARGE_COLUMNS,
      importance: ['id', 'status', 'amount', 'created_at', 'payment_method', 'failure_code', 'installments'],
    },
  }),
  endpoint({
    id: 'charges.get',
    method: 'GET',
    path: '/v1/charges/{id}',
    summary: 'Retrieve a charge',
    auth: 'secret',
    response: charge,
    message: 'Charge retrieved',
    tag: 'Charges',
    memo: true,
    cli: { command: ['charges', 'get'], example: 'mpay charges get 0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f', columns: CHARGE_COLUMNS },
  }),
  endpoint({
    id: 'charges.refund',
    method: 'POST',
    path: '/v1/charges/{id}/refund',
    summary: 'Refund a captured charge, in full or in part (extension): pending receivables reduced or cancelled from the last installment, then received amounts debited',
    auth: 'secret',
    body: refundCreate,
    response: charge,
    status: 200,
    message: 'Charge refunded',
    tag: 'Charges',
    cli: {
      command: ['charges', 'refund'],
      example: 'mpay charges refund 0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f --amount 2500 --yes',
      columns: ['id', 'status', 'amount', 'refunded_amount', 'refunded_at'],
    },
  }),
  endpoint({
    id: 'charges.capture',
    method: 'POST',
    path: '/v1/charges/{id}/capture',
    summary: `Capture an authorised card charge (created with capture false), once, in full or in part, within ${AUTHORIZATION_VALID_DAYS} days`,
    auth: 'secret',
    body: chargeCaptureRequest,
    response: charge,
    status: 200,
    message: 'Charge captured',
    tag: 'Charges',
    idempotency: 'in-transaction',
    cli: {
      command: ['charges', 'capture'],
      example: 'mpay charges capture 0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f --amount 7500',
      columns: ['id', 'status', 'amount', 'captured_amount', 'fee_amount', 'net_amount', 'captured_at'],
    },
  }),
  endpoint({
    id: 'charges.void',
    method: 'POST',
    path: '/v1/charges/{id}/void',
    summary: 'Void an authorised card charge: nothing is captured and the authorisation is released',
    auth: 'secret',
    response: charge,
    status: 200,
    message: 'Charge voided',
    tag: 'Charges',
    idempotency: 'in-transaction',
    cli: {
      command: ['charges', 'void'],
      example: 'mpay charges void 0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f --yes',
      columns: ['id', 'status', 'amount', 'void_reason', 'voided_at'],
    },
  }),
  endpoint({
    id: 'charges.refunds',
    method: 'GET',
    path: '/v1/charges/{id}/refunds',
    summary: 'List the refunds of a charge, newest first',
    auth: 'secret',
    query: refundListQuery,
    response: refund,
    list: true,
    message: 'Refunds retrieved',
    tag: 'Charges',
    cli: { command: ['charges', 'refunds'], example: 'mpay charges refunds 0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f', columns: ['id', 'amount', 'created_at'] },
  }),
  endpoint({
    id: 'charges.sandboxPay',
    method: 'POST',
    path: '/v1/sandbox/charges/{id}/pay',
    summary: 'Sandbox: pay a pending PIX charge as the buyer would',
    auth: 'secret',
    response: charge,
    status: 200,
    sandbox: true,
    message: 'PIX charge paid',
    tag: 'Sandbox',
    cli: { command: ['sandbox', 'pay'], example: 'mpay sandbox pay 0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f', columns: CHARGE_COLUMNS },
  }),
] as const;
