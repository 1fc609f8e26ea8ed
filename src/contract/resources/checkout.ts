import * as z from 'zod';
import { endpoint, type CliPresentation } from '../endpoint.js';
import { money, positiveCents, timestamp, uuid } from '../common.js';
import { CARD_BRANDS } from '../../domain/brands.js';
import { anyTaxId, CHARGE_STATUSES, customerInput, MAX_CHARGE_AMOUNT, PAYMENT_METHODS, payerAddress } from './charges.js';
import { LINK_MAX_INSTALLMENTS } from './paymentLinks.js';

/**
 * The hosted checkout's public operations (no credentials): the page served at
 * GET /checkout/{id} (a raw route, not in this table) pays a payment link through them.
 * Their answers carry only what the buyer needs; never merchant internals.
 */

/** The buyer, as the page collects it; the charge's customer.type follows the tax id (CPF → individual, CNPJ → company). */
export const checkoutCustomer = z.strictObject({
  name: customerInput.shape.name,
  email: customerInput.shape.email,
  tax_id: anyTaxId(),
  phone: customerInput.shape.phone,
});

const attemptId = () =>
  z
    .string({ error: 'must be the attempt id the page generated (8 to 64 characters of A-Z, a-z, 0-9, -)' })
    .regex(/^[A-Za-z0-9-]{8,64}$/, { error: 'must be 8 to 64 characters of A-Z, a-z, 0-9 and -' })
    .describe('one per payment attempt; retrying the same attempt replays its answer');

const buyerAmount = () =>
  positiveCents()
    .max(MAX_CHARGE_AMOUNT, { error: `must be at most ${MAX_CHARGE_AMOUNT} cents (R$ 10.000.000,00)` })
    .optional()
    .describe('cents; required when the link has no amount, else omitted (or equal to it)');

export const checkoutPayRequest = z.discriminatedUnion(
  'payment_method',
  [
    z.strictObject({
      attempt_id: attemptId(),
      payment_method: z.literal('credit_card'),
      amount: buyerAmount(),
      token: z.string({ error: 'must be the card token from POST /v1/tokens' }).min(1, { error: 'must not be empty' }).max(100),
      installments: z
        .int({ error: 'must be a whole number' })
        .min(1, { error: 'must be at least 1' })
        .max(LINK_MAX_INSTALLMENTS, { error: `must be at most ${LINK_MAX_INSTALLMENTS}` })
        .optional()
        .describe("1 up to the link's max_installments; default 1"),
      customer: checkoutCustomer,
    }),
    z.strictObject({
      attempt_id: attemptId(),
      payment_method: z.literal('pix'),
      amount: buyerAmount(),
      customer: checkoutCustomer,
    }),
    z.strictObject({
      attempt_id: attemptId(),
      payment_method: z.literal('boleto'),
      amount: buyerAmount(),
      customer: checkoutCustomer.extend({ address: payerAddress }).describe("a boleto's payer registration: the address with CEP too"),
    }),
  ],
  { error: `payment_method must be one of: ${PAYMENT_METHODS.join(', ')}` },
);
export type CheckoutPayRequest = z.infer<typeof checkoutPayRequest>;

/** What the buyer's page learns about its payment. */
export const checkoutPayment = z.object({
  receipt_id: uuid().describe('the charge id: the buyer quotes it, the merchant finds it with GET /v1/charges/{id}'),
  status: z.enum(CHARGE_STATUSES),
  payment_method: z.enum(PAYMENT_METHODS),
  amount: money(),
  installments: z.int(),
  total_amount: money().describe('what the buyer pays: amount plus any installment interest'),
  card: z.object({ brand: z.enum(CARD_BRANDS), last_four: z.string() }).nullable(),
  pix: z
    .object({
      qr_code: z.string().describe('BR Code "copia e cola"'),
      qr_code_image: z.string().describe('the BR Code as a QR code: a PNG data: URL'),
      expires_at: timestamp(),
    })
    .nullable(),
  boleto: z
    .object({
      digitable_line: z.string(),
      formatted_line: z.string(),
      due_date: z.string(),
      url: z.string().describe('the printable slip'),
      expires_at: timestamp(),
    })
    .nullable(),
  failure_code: z.string().nullable().describe('card_declined, insufficient_funds, expired_card, processing_error, pix_expired…'),
  paid_at: timestamp().nullable(),
  redirect_url: z.string().nullable().describe("the link's redirect_url, once the payment is confirmed"),
});
export type CheckoutPayment = z.infer<typeof checkoutPayment>;

export const checkoutChargeStatus = z.object({
  receipt_id: uuid(),
  status: z.enum(CHARGE_STATUSES),
  failure_code: z.string().nullable(),
  paid_at: timestamp().nullable(),
  redirect_url: z.string().nullable().describe("the link's redirect_url, once the payment is confirmed"),
});
export type CheckoutChargeStatus = z.infer<typeof checkoutChargeStatus>;

/** How the CLI presents this resource (src/contract/presentation.ts): no commands of its own (the hosted checkout page calls it). */
export const checkoutPresentation: CliPresentation = {};

export const checkoutEndpoints = [
  endpoint({
    id: 'checkout.pay',
    method: 'POST',
    path: '/checkout/{id}/pay',
    summary: 'Pay a payment link from its hosted checkout page (no credentials; rate-limited per IP and per link)',
    auth: 'none',
    body: checkoutPayRequest,
    response: checkoutPayment,
    status: 201,
    message: 'Payment received',
    idempotency: { prefix: 'checkout', bodyField: 'attempt_id' },
    tag: 'Checkout',
  }),
  endpoint({
    id: 'checkout.chargeStatus',
    method: 'GET',
    path: '/checkout/{id}/charges/{charge_id}',
    summary: "Status of a payment made through a payment link's checkout (the page polls it while a PIX is pending)",
    auth: 'none',
    response: checkoutChargeStatus,
    message: 'Payment status',
    tag: 'Checkout',
  }),
] as const;
