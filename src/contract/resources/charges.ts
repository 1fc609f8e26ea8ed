import * as z from 'zod';
import { endpoint, type CliPresentation } from '../endpoint.js';
import { hinted } from '../hints.js';
import { cents, currency, isoDate, listQuery, metadata, money, nonEmpty, positiveCents, qEnum, timestamp, uuid } from '../common.js';
import { qFrom, qTo } from '../filters.js';
import { CARD_BRANDS } from '../../domain/brands.js';
import { statusesOf, type StatusOf } from '../../domain/lifecycle.js';
import { MAX_CHARGE_AMOUNT, MAX_INSTALLMENTS } from '../../domain/fees.js';
import { AUTHORIZATION_VALID_DAYS, VOID_REASONS } from '../../domain/capture.js';
import { INTEREST_MODES } from '../../domain/pricing.js';
import { PIX_MAX_EXPIRES_IN_S, PIX_MIN_EXPIRES_IN_S } from '../../domain/sandbox.js';
import { customerTaxIdProblem, isValidCnpj, isValidCpf } from '../../domain/taxid.js';
import { DEFAULT_PAY_UNTIL_DAYS, MAX_DUE_DAYS_AHEAD, MAX_FINE_BPS, MAX_INTEREST_MONTHLY_BPS, MAX_PAY_UNTIL_DAYS } from '../../domain/dueAmount.js';
import { addressCreate } from './submerchants.js';
import { chargePricing } from './pricing.js';

export const CHARGE_STATUSES = statusesOf('charge') as [StatusOf<'charge'>, ...StatusOf<'charge'>[]];
export const PAYMENT_METHODS = ['credit_card', 'pix', 'boleto'] as const;
export const PRODUCT_TYPES = ['physical', 'digital'] as const;
export const CUSTOMER_TYPES = ['individual', 'company'] as const;

export { MAX_CHARGE_AMOUNT };
export const chargeCents = () => positiveCents().max(MAX_CHARGE_AMOUNT, { error: `must be at most ${MAX_CHARGE_AMOUNT} cents (R$ 10.000.000,00)` });

const digitsOnly = (v: string) => v.replace(/[.\-/\s]/g, '');

/** A CPF or CNPJ as typed: separators dropped. */
const taxIdText = () => z.string({ error: 'must be a CPF (11 digits) or a CNPJ (14 characters)' }).transform(digitsOnly);
/** A CPF or a CNPJ with real check digits, where no customer type says which (the hosted checkout's buyer). */
export const anyTaxId = () => taxIdText().pipe(z.string().refine((v) => isValidCpf(v) || isValidCnpj(v.toUpperCase()), { error: 'must be a valid CPF or CNPJ (check digits)' }));

/** The payer's address (a boleto's registration needs it): the fields and rules of a submerchant's address. */
export const payerAddress = addressCreate.pick({ street: true, number: true, complement: true, neighborhood: true, city: true, state: true, zip_code: true });

const customerFields = {
  name: nonEmpty(120),
  email: z.email({ error: 'must be an e-mail address' }).max(254),
  // checked with the type, in customerRules: one message that names what the type needs
  tax_id: taxIdText(),
  phone: z
    .string({ error: 'must be a phone number' })
    .transform((v) => v.replace(/[\s()-]/g, ''))
    .pipe(z.string().regex(/^\+?\d{10,13}$/, { error: 'must be a phone number with area code, e.g. +5511987654321' })),
  type: z.enum(CUSTOMER_TYPES, { error: `must be one of: ${CUSTOMER_TYPES.join(', ')}` }),
};

function customerRules(c: { type: string; tax_id: string }, ctx: z.RefinementCtx): void {
  if (typeof c.tax_id !== 'string') return;
  const id = c.tax_id.toUpperCase();
  const problem = (CUSTOMER_TYPES as readonly unknown[]).includes(c.type)
    ? customerTaxIdProblem(id, c.type as (typeof CUSTOMER_TYPES)[number])
    : isValidCpf(id) || isValidCnpj(id)
      ? null
      : 'must be a valid CPF or CNPJ (check digits)';
  if (problem) ctx.addIssue({ code: 'custom', path: ['tax_id'], message: problem });
}

export const customerInput = z
  .strictObject({ ...customerFields, address: payerAddress.optional().describe("the payer's address; required for a boleto") })
  .superRefine(customerRules);

/** A boleto's payer: name, CPF/CNPJ and an address with CEP are registration data, so the address is required. */
const boletoCustomer = z.strictObject({ ...customerFields, address: payerAddress }).superRefine(customerRules);

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
    liable: z
      .boolean({ error: 'must be true or false' })
      .optional()
      .describe('whether this party gives back its part of a chargeback (in proportion to its net); default true; at least one rule must be liable'),
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
  interest: z
    .enum(INTEREST_MODES, { error: `must be one of: ${INTEREST_MODES.join(', ')}` })
    .optional()
    .describe('who pays the installments\' interest: merchant (default: the MDR only) or buyer (Price table above the free installments of the pricing)'),
});

const bps = (max: number, what: string) =>
  z
    .int({ error: `must be a whole number of basis points (${what})` })
    .min(0, { error: 'must not be negative' })
    .max(max, { error: `must be at most ${max} basis points (100 %)` });

/**
 * The terms of a charge with a due date, a boleto or a PIX with one (src/domain/dueAmount.ts).
 * The rules that depend on the day and on the amount (due_date today … today + 365, discount
 * below the amount and until on or before the due date) are checked by the service.
 */
const DUE_DATE_ABOUT = `the due date, YYYY-MM-DD: a São Paulo day from today to today + ${MAX_DUE_DAYS_AHEAD} (a PIX with one is a cobv); the amount due is computed on the day it is paid`;
const dueTerms = {
  due_date: isoDate().describe(DUE_DATE_ABOUT),
  fine: bps(MAX_FINE_BPS, '200 = 2 %').optional().describe('percent of the amount in basis points, charged once when paid after the due date; default 0'),
  // the card's words for who pays installment interest, given here, are told where they belong
  interest: z
    .int({
      error: (i) =>
        i.code === 'invalid_type' && (i.input === 'merchant' || i.input === 'buyer')
          ? `must be a whole number of basis points (100 = 1 % a month), the late interest of a charge with a due date: "${i.input}" (who pays a card's installment interest) is for credit_card charges only`
          : 'must be a whole number of basis points (100 = 1 % a month)',
    })
    .min(0, { error: 'must not be negative' })
    .max(MAX_INTEREST_MONTHLY_BPS, { error: `must be at most ${MAX_INTEREST_MONTHLY_BPS} basis points (100 %)` })
    .optional()
    .describe('monthly percent in basis points, pro rata per calendar day paid after the due date; default 0'),
  discount: z
    .strictObject({
      amount: positiveCents().describe('cents off, less than the amount'),
      until: isoDate().describe('the last day it applies (YYYY-MM-DD), on or before the due date; moved to the next business day when it is not one'),
    })
    .optional()
    .describe('a fixed amount off on a payment on or before `until`'),
  pay_until_days: z
    .int({ error: 'must be a whole number of days' })
    .min(0, { error: 'must not be negative' })
    .max(MAX_PAY_UNTIL_DAYS, { error: `must be at most ${MAX_PAY_UNTIL_DAYS} days` })
    .optional()
    .describe(`days after the due date it may still be paid (then it expires); default ${DEFAULT_PAY_UNTIL_DAYS}`),
};

export const boletoDetails = z.strictObject({
  ...dueTerms,
  instructions: nonEmpty(400)
    .refine((v) => v.split('\n').length <= 5, { error: 'must be at most 5 lines' })
    .optional()
    .describe('text printed on the slip for the cashier and the payer (at most 5 lines, 400 characters)'),
});

/** Card only: false authorises now and leaves the capture for POST /v1/charges/{id}/capture (or a void). */
const cardCapture = z
  .boolean({ error: 'must be true or false' })
  .optional()
  .describe(`false: authorise only; capture within ${AUTHORIZATION_VALID_DAYS} days with POST /v1/charges/{id}/capture, or void; default true`);
/** PIX and boletos are captured when the payer pays: they cannot be authorised only. */
const paidCapture = (what: string) =>
  z.literal(true, { error: `only credit_card charges can be authorised and captured later; ${what} is captured when it is paid (leave capture out)` }).optional();

export const pixPaymentDetails = z
  .strictObject({
    expires_in: z
      .int({ error: 'must be a whole number of seconds' })
      .min(PIX_MIN_EXPIRES_IN_S, { error: `must be at least ${PIX_MIN_EXPIRES_IN_S} seconds` })
      .max(PIX_MAX_EXPIRES_IN_S, { error: `must be at most ${PIX_MAX_EXPIRES_IN_S} seconds (30 days)` })
      .optional()
      .describe('seconds until the BR Code expires; default 3600 (without due_date)'),
    ...dueTerms,
    due_date: dueTerms.due_date.optional().describe(DUE_DATE_ABOUT),
  })
  .superRefine((d, ctx) => {
    if (d.due_date !== undefined && d.expires_in !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['expires_in'], message: 'cannot be given with due_date: a PIX with a due date is payable until due_date + pay_until_days' });
    }
    if (d.due_date === undefined) {
      for (const k of ['fine', 'interest', 'discount', 'pay_until_days'] as const) {
        if (d[k] !== undefined) ctx.addIssue({ code: 'custom', path: [k], message: 'applies to a PIX with a due date only: give due_date too' });
      }
    }
  });

export const chargeCreate = z.discriminatedUnion(
  'payment_method',
  [
    z.strictObject({ ...chargeCommon, payment_method: z.literal('credit_card'), payment_details: cardDetails, capture: cardCapture }),
    z.strictObject({ ...chargeCommon, payment_method: z.literal('pix'), payment_details: pixPaymentDetails.optional(), capture: paidCapture('a PIX charge') }),
    z.strictObject({ ...chargeCommon, customer: boletoCustomer, payment_method: z.literal('boleto'), payment_details: boletoDetails, capture: paidCapture('a boleto') }),
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
  liable: z.boolean().describe('this party gives back its part of a chargeback'),
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
  total_amount: money().describe('what the buyer pays: amount + interest_amount (installments × the installment value when the buyer pays interest)'),
  interest_amount: money().describe('the interest the buyer pays on top of amount (0 unless payment_details.interest is buyer above the free installments)'),
  pricing: chargePricing,
  shipping_amount: money(),
  customer: z.object({
    name: z.string(),
    email: z.string(),
    tax_id: z.string(),
    phone: z.string(),
    type: z.string(),
    address: z
      .object({
        street: z.string(),
        number: z.string(),
        complement: z.string().optional(),
        neighborhood: z.string(),
        city: z.string(),
        state: z.string(),
        zip_code: z.string(),
      })
      .optional()
      .describe('when given (always for a boleto)'),
  }),
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
    .describe('pix only; with a due date the code has a /cobv/ location and no amount, and expires_at is the end of its last payable day'),
  boleto: z
    .object({
      bank_code: z.string().describe('999, the sandbox bank (no real bank has it)'),
      our_number: z.string().describe('"nosso número": the charge\'s number at the bank, 12 digits'),
      barcode: hinted(z.string().describe('44 digits'), { copy: true }),
      digitable_line: hinted(z.string().describe('47 digits ("linha digitável")'), { copy: true }),
      formatted_line: z.string().describe('the digitable line as printed: 00000.00000 00000.000000 00000.000000 0 00000000000000'),
      due_date: z.string().describe('São Paulo day'),
      url: hinted(z.string().describe('the printable slip: {base_url}/boleto/{id}'), { copy: true }),
      expires_at: timestamp().describe('the end of its last payable day'),
    })
    .nullable()
    .describe('boleto only'),
  due: z
    .object({
      due_date: z.string(),
      fine: z.int().describe('basis points of the amount, once after the due date'),
      interest: z.int().describe('monthly basis points, pro rata per calendar day late'),
      discount: z.object({ amount: money(), until: z.string() }).nullable(),
      pay_until_days: z.int(),
      last_payable_day: z.string().describe('due_date + pay_until_days, moved to a business day'),
      instructions: z.string().nullable(),
      paid_on: z.string().nullable().describe('the São Paulo day it was paid'),
      discount_amount: money().nullable().describe('of the payment, once paid'),
      fine_amount: money().nullable().describe('of the payment, once paid'),
      interest_amount: money().nullable().describe('of the payment, once paid'),
    })
    .nullable()
    .describe('the terms of a boleto or a PIX with a due date; null for other charges'),
  paid_amount: money().nullable().describe('boleto and PIX with a due date: what the payer paid (the amount due on the day), once paid'),
  fee_amount: money().nullable().describe('MDR of the whole charge (of captured_amount), or a boleto\'s fixed fee (pricing.boleto_fee_amount), set on capture'),
  net_amount: money().nullable().describe('captured_amount − fee_amount, set on capture'),
  failure_code: z.string().nullable(),
  failure_reason: z.string().nullable(),
  captured_at: timestamp().nullable(),
  captured_amount: money().nullable().describe('cents captured, set on capture: total_amount (paid_amount for a boleto or a PIX with a due date), or less after a partial capture (the rest of the authorisation is released)'),
  authorized_at: timestamp().nullable().describe('when a charge created with capture false was authorised'),
  voided_at: timestamp().nullable().describe('when the authorisation was voided'),
  void_reason: z.enum(VOID_REASONS).nullable().describe(`requested (POST /v1/charges/{id}/void) or expired (not captured within ${AUTHORIZATION_VALID_DAYS} days)`),
  failed_at: timestamp().nullable(),
  refunded_at: timestamp().nullable().describe('when the charge became refunded (all of it)'),
  refunded_amount: money().describe('cents refunded so far (0 to captured_amount); status stays captured until it equals captured_amount'),
  disputed_amount: money().describe('cents under chargebacks not won (open, under review, accepted or lost); refunded_amount + disputed_amount ≤ captured_amount'),
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
    .describe('cents to capture, 1 to the authorised total_amount; default all of it (the rest of the authorisation is released)'),
});
export type ChargeCaptureRequest = z.infer<typeof chargeCaptureRequest>;

export const refund = z.object({
  id: uuid(),
  charge_id: uuid(),
  amount: money().describe('cents refunded by this refund'),
  return_id: z
    .string()
    .nullable()
    .describe('a PIX charge\'s refund is a devolução: its return id, D + ISPB + UTC yyyyMMddHHmm + 11 letters or digits (32 characters); null for card and boleto refunds'),
  created_at: timestamp(),
});
export type Refund = z.infer<typeof refund>;

export const refundListQuery = listQuery({});

export const sandboxPayRequest = z.strictObject({
  amount: positiveCents()
    .optional()
    .describe('what the payer pays: must be the amount due that day (a boleto or PIX with a due date: discount, fine and interest applied); default: that amount'),
  paid_on: isoDate()
    .optional()
    .describe('a boleto or PIX with a due date only: the São Paulo day it was paid, from the day it was created to today; default today'),
});
export type SandboxPayRequest = z.infer<typeof sandboxPayRequest>;

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
    charges: 'Charges: card, PIX and boleto payments, refunds',
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
    summary: 'Create a charge (credit_card with a token, pix with a BR Code, or boleto with its slip)',
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
      moreExamples: [
        'mpay charges create --amount 10000 --product-type digital --payment-method boleto --payment-details.due-date {today+7} --payment-details.fine 200 --payment-details.interest 100 --customer.name "Ana Souza" --customer.email ana@example.com --customer.tax-id 52998224725 --customer.phone +5511987654321 --customer.type individual --customer.address.street "Av. Paulista" --customer.address.number 1000 --customer.address.neighborhood "Bela Vista" --customer.address.city "São Paulo" --customer.address.state SP --customer.address.zip-code 01310100 --items \'[{"name":"Curso","quantity":1,"unit_price":10000,"tangible":false}]\'',
      ],
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
    cli: { command: ['charges', 'refunds'], example: 'mpay charges refunds 0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f', columns: ['id', 'amount', 'return_id', 'created_at'] },
  }),
  endpoint({
    id: 'charges.sandboxPay',
    method: 'POST',
    path: '/v1/sandbox/charges/{id}/pay',
    summary: 'Sandbox: pay a pending PIX charge or boleto as the payer would (with a due date: the amount due on the day it is paid)',
    auth: 'secret',
    body: sandboxPayRequest,
    response: charge,
    status: 200,
    sandbox: true,
    message: 'Charge paid',
    tag: 'Sandbox',
    cli: {
      command: ['sandbox', 'pay'],
      example: 'mpay sandbox pay 0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f --paid-on 2027-01-12 --amount 10250',
      columns: ['id', 'status', 'payment_method', 'amount', 'paid_amount', 'captured_at'],
    },
  }),
  endpoint({
    id: 'charges.sandboxExpire',
    method: 'POST',
    path: '/v1/sandbox/charges/{id}/expire',
    summary: 'Sandbox: expire a pending boleto or PIX with a due date now, as if its last payable day had passed (event charge.expired)',
    auth: 'secret',
    response: charge,
    status: 200,
    sandbox: true,
    message: 'Charge expired',
    tag: 'Sandbox',
    cli: { command: ['sandbox', 'expire'], example: 'mpay sandbox expire 0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f', columns: CHARGE_COLUMNS },
  }),
] as const;
