import * as z from 'zod';
import { endpoint, type CliPresentation } from '../endpoint.js';
import { hinted } from '../hints.js';
import { currency, isoDateTime, listQuery, metadata, money, nonEmpty, qEnum, timestamp, uuid } from '../common.js';
import { chargeCents } from './charges.js';
import { statusesOf, type StatusOf } from '../../domain/lifecycle.js';
import { HTTPS_IMAGE_RULE, httpsImageUrlProblem } from '../../domain/urls.js';
import { INTEREST_MODES } from '../../domain/pricing.js';

export const PAYMENT_LINK_STATUSES = statusesOf('payment_link') as [StatusOf<'payment_link'>, ...StatusOf<'payment_link'>[]];
export const LINK_PAYMENT_METHODS = ['credit_card', 'pix', 'boleto'] as const;
const LINK_PRODUCT_TYPES = ['physical', 'digital'] as const;
export const LINK_MAX_INSTALLMENTS = 12;

const httpUrl = () =>
  z
    .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
    .max(2048, { error: 'must be at most 2048 characters' });
/** A logo or cover image: https with a real host (its origin goes into the checkout's CSP). */
const imageUrl = () =>
  z
    .string({ error: HTTPS_IMAGE_RULE })
    .max(2048, { error: 'must be at most 2048 characters' })
    .superRefine((v, ctx) => {
      const problem = httpsImageUrlProblem(v);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .meta({ format: 'uri' });
const hexColor = () =>
  z
    .string({ error: 'must be a color in the form #RRGGBB' })
    .regex(/^#[0-9a-fA-F]{6}$/, { error: 'must be a color in the form #RRGGBB, e.g. #1A73E8' })
    .transform((v) => v.toUpperCase());
const methods = () =>
  z
    .array(z.enum(LINK_PAYMENT_METHODS, { error: `must be one of: ${LINK_PAYMENT_METHODS.join(', ')}` }), {
      error: `must be an array of: ${LINK_PAYMENT_METHODS.join(', ')}`,
    })
    .min(1, { error: 'must name at least one payment method' })
    .refine((a) => new Set(a).size === a.length, { error: 'must not repeat a payment method' });
const installments = () =>
  z
    .int({ error: `must be a whole number from 1 to ${LINK_MAX_INSTALLMENTS}` })
    .min(1, { error: 'must be at least 1' })
    .max(LINK_MAX_INSTALLMENTS, { error: `must be at most ${LINK_MAX_INSTALLMENTS}` });
const interest = () =>
  z
    .enum(INTEREST_MODES, { error: `must be one of: ${INTEREST_MODES.join(', ')}` })
    .describe("who pays the card installments' interest: merchant (every option interest-free) or buyer (Price table above the pricing's free installments); buyer needs credit_card");
const maxUses = () => z.int({ error: 'must be a whole number' }).min(1, { error: 'must be at least 1' }).max(1_000_000_000);
const productType = () => z.enum(LINK_PRODUCT_TYPES, { error: `must be one of: ${LINK_PRODUCT_TYPES.join(', ')}` });

export const paymentLinkCreate = z.strictObject({
  title: nonEmpty(120),
  product_type: productType(),
  allowed_payment_methods: methods(),
  submerchant_id: uuid().optional(),
  description: z.string({ error: 'must be a string' }).max(1000, { error: 'must be at most 1000 characters' }).optional(),
  amount: chargeCents().optional().describe('cents; omit to let the buyer enter the value'),
  currency: currency().optional(),
  max_installments: installments().optional().describe('1 to 12; default 1'),
  interest: interest().optional().describe('merchant (default) or buyer: who pays the interest of card installments above the free installments'),
  expires_at: isoDateTime().optional(),
  max_uses: maxUses().optional(),
  metadata: metadata().optional(),
  redirect_url: httpUrl().optional(),
  cover_image_url: imageUrl().optional(),
  primary_color: hexColor().optional(),
  summary_color: hexColor().optional(),
  logo_url: imageUrl().optional(),
});

/** Only the fields to change; null clears an optional field. */
export const paymentLinkUpdate = z
  .strictObject({
    title: nonEmpty(120).optional(),
    product_type: productType().optional(),
    allowed_payment_methods: methods().optional(),
    status: z.enum(['active', 'inactive'], { error: 'must be active or inactive' }).optional(),
    submerchant_id: uuid().nullable().optional(),
    description: z.string({ error: 'must be a string' }).max(1000, { error: 'must be at most 1000 characters' }).nullable().optional(),
    amount: chargeCents().nullable().optional(),
    currency: currency().optional(),
    max_installments: installments().optional(),
    interest: interest().optional(),
    expires_at: isoDateTime().nullable().optional(),
    max_uses: maxUses().nullable().optional(),
    metadata: metadata().optional(),
    redirect_url: httpUrl().nullable().optional(),
    cover_image_url: imageUrl().nullable().optional(),
    primary_color: hexColor().nullable().optional(),
    summary_color: hexColor().nullable().optional(),
    logo_url: imageUrl().nullable().optional(),
  })
  .refine((b) => Object.keys(b).length > 0, { error: 'send at least one field to change' });
export type PaymentLinkUpdate = z.output<typeof paymentLinkUpdate>;

export const paymentLink = z.object({
  id: uuid(),
  merchant_id: uuid(),
  submerchant_id: uuid().nullable(),
  title: z.string(),
  description: z.string().nullable(),
  amount: money().nullable().describe('cents; null when the buyer enters the value'),
  checkout_url: hinted(z.url(), { copy: true }),
  currency: z.string(),
  product_type: z.string(),
  allowed_payment_methods: z.array(z.enum(LINK_PAYMENT_METHODS)),
  max_installments: z.int(),
  interest: z.enum(INTEREST_MODES).describe("who pays the card installments' interest"),
  expires_at: timestamp().nullable(),
  max_uses: z.int().nullable(),
  current_uses: z.int(),
  status: z.enum(PAYMENT_LINK_STATUSES),
  redirect_url: z.string().nullable(),
  cover_image_url: z.string().nullable(),
  primary_color: z.string().nullable(),
  summary_color: z.string().nullable(),
  logo_url: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  created_by: uuid().describe('the API key that created the link'),
  created_at: timestamp(),
  updated_at: timestamp(),
});
export type PaymentLink = z.infer<typeof paymentLink>;

const COLUMNS = ['id', 'title', 'status', 'amount', 'current_uses', 'max_uses', 'expires_at', 'checkout_url'] as const;

/** How the CLI presents this resource (src/contract/presentation.ts). */
export const paymentLinkPresentation: CliPresentation = {
  groups: {
    links: 'Payment links: hosted checkout pages to share',
  },
  fields: {
    title: 'title shown on the checkout page',
    allowed_payment_methods: 'payment methods the page offers',
    max_uses: 'how many payments the link accepts',
    redirect_url: 'where the customer goes after paying',
    cover_image_url: 'cover image URL of the checkout page',
    primary_color: 'main color of the checkout page (#RRGGBB)',
    summary_color: 'color of the order summary (#RRGGBB)',
    logo_url: 'logo URL of the checkout page',
    max_installments: 'most installments a card payment may have',
  },
};

export const paymentLinkEndpoints = [
  endpoint({
    id: 'paymentLinks.create',
    method: 'POST',
    path: '/v1/payment-links',
    summary: 'Create a payment link with a hosted checkout address',
    auth: 'secret',
    body: paymentLinkCreate,
    response: paymentLink,
    status: 201,
    message: 'Payment link created',
    tag: 'Payment links',
    cli: {
      command: ['links', 'create'],
      example:
        'mpay links create --title "Camiseta azul" --product-type physical --allowed-payment-methods credit_card,pix --amount 7990 --max-installments 3 --primary-color "#1A73E8"',
      columns: COLUMNS,
    },
  }),
  endpoint({
    id: 'paymentLinks.get',
    method: 'GET',
    path: '/v1/payment-links/{id}',
    summary: 'One payment link',
    auth: 'secret',
    response: paymentLink,
    message: 'Payment link retrieved',
    tag: 'Payment links',
    cli: {
      command: ['links', 'get'],
      example: 'mpay links get 0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f',
      columns: COLUMNS,
    },
  }),
  endpoint({
    id: 'paymentLinks.update',
    method: 'PATCH',
    path: '/v1/payment-links/{id}',
    summary: 'Change a payment link (only the fields sent; status toggles active/inactive)',
    auth: 'secret',
    body: paymentLinkUpdate,
    response: paymentLink,
    status: 200,
    message: 'Payment link updated',
    tag: 'Payment links',
    cli: {
      command: ['links', 'update'],
      example: 'mpay links update 0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f --status inactive',
      columns: COLUMNS,
    },
  }),
  endpoint({
    id: 'paymentLinks.list',
    method: 'GET',
    path: '/v1/payment-links',
    summary: "List the merchant's payment links",
    auth: 'secret',
    query: listQuery({ status: qEnum(PAYMENT_LINK_STATUSES).optional(), submerchant_id: uuid().optional() }),
    response: paymentLink,
    list: true,
    message: 'Payment links retrieved',
    tag: 'Payment links',
    cli: {
      command: ['links', 'list'],
      example: 'mpay links list --status active --all -o jsonl',
      columns: COLUMNS,
      importance: ['id', 'title', 'status', 'amount', 'checkout_url', 'expires_at', 'current_uses', 'max_uses'],
    },
  }),
] as const;
