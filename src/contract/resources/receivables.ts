import * as z from 'zod';
import { endpoint, type CliPresentation } from '../endpoint.js';
import { listQuery, money, positiveCents, qEnum, timestamp, uuid } from '../common.js';
import { qFrom, qTo } from '../filters.js';
import { statusesOf, type StatusOf } from '../../domain/lifecycle.js';
import { PAYMENT_METHODS } from './charges.js';

export const RECEIVABLE_STATUSES = statusesOf('receivable') as [StatusOf<'receivable'>, ...StatusOf<'receivable'>[]];
export const ANTICIPATION_STATUSES = statusesOf('anticipation') as [StatusOf<'anticipation'>, ...StatusOf<'anticipation'>[]];
export const ANTICIPATION_TYPES = ['spot'] as const;

export const receivable = z.object({
  id: uuid(),
  charge_id: uuid(),
  merchant_id: uuid(),
  submerchant_id: uuid().nullable().describe("null: the merchant's own receivable"),
  wallet_id: uuid().describe('the wallet credited on settlement'),
  gross_amount: money(),
  net_amount: money(),
  fee_amount: money(),
  status: z.enum(RECEIVABLE_STATUSES),
  payment_method: z.enum(PAYMENT_METHODS),
  installment: z.int(),
  installments: z.int().describe('installments of the charge'),
  settlement_date: timestamp(),
  paid_at: timestamp().nullable(),
  anticipation_id: uuid().nullable(),
  anticipation_fee_amount: money().nullable(),
  created_at: timestamp(),
  updated_at: timestamp(),
});
export type Receivable = z.infer<typeof receivable>;

export const receivableListQuery = listQuery({
  status: qEnum(RECEIVABLE_STATUSES).optional(),
  payment_method: qEnum(PAYMENT_METHODS).optional(),
  settlement_date_from: qFrom().optional(),
  settlement_date_to: qTo().optional(),
  charge_id: uuid().optional(),
  submerchant_id: uuid().optional(),
});

export const anticipation = z.object({
  id: uuid(),
  merchant_id: uuid(),
  submerchant_id: uuid().nullable(),
  wallet_id: uuid(),
  status: z.enum(ANTICIPATION_STATUSES),
  anticipation_type: z.enum(ANTICIPATION_TYPES),
  requested_amount: money().nullable(),
  receivable_ids: z.array(uuid()),
  total_gross_amount: money().describe('sum of the net amounts of the anticipated receivables'),
  total_fee_amount: money(),
  total_net_amount: money().describe('credited to the wallet'),
  refusal_reason: z.string().nullable(),
  created_at: timestamp(),
  updated_at: timestamp(),
});
export type Anticipation = z.infer<typeof anticipation>;

export const anticipationCreate = z
  .strictObject({
    receivable_ids: z
      .array(uuid(), { error: 'must be an array of receivable ids' })
      .min(1, { error: 'must have at least one id' })
      .max(500, { error: 'must have at most 500 ids' })
      .optional(),
    amount: positiveCents().optional().describe('anticipate receivables (soonest first) whose net adds up to at most this'),
    submerchant_id: uuid().optional().describe("whose receivables; default the merchant's own"),
  })
  .superRefine((b, ctx) => {
    if ((b.receivable_ids === undefined) === (b.amount === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['receivable_ids'], message: 'give exactly one of receivable_ids or amount' });
    }
    if (b.receivable_ids && new Set(b.receivable_ids).size !== b.receivable_ids.length) {
      ctx.addIssue({ code: 'custom', path: ['receivable_ids'], message: 'must not repeat an id' });
    }
  });

export const anticipationListQuery = listQuery({
  status: qEnum(ANTICIPATION_STATUSES).optional(),
  type: qEnum(ANTICIPATION_TYPES).optional(),
  start_date: qFrom().optional(),
  end_date: qTo().optional(),
});

const RECEIVABLE_COLUMNS = ['id', 'charge_id', 'installment', 'gross_amount', 'fee_amount', 'net_amount', 'status', 'settlement_date'] as const;
const ANTICIPATION_COLUMNS = ['id', 'status', 'total_gross_amount', 'total_fee_amount', 'total_net_amount', 'created_at'] as const;

/** How the CLI presents this resource (src/contract/presentation.ts). */
export const receivablePresentation: CliPresentation = {
  groups: {
    receivables: 'Receivables: what charges will settle into wallets, and when',
    anticipations: 'Anticipations: receive receivables before they settle, for a fee',
  },
  fields: {
    settlement_date_from: 'settling on or after this date (YYYY-MM-DD)',
    settlement_date_to: 'settling on or before this date (YYYY-MM-DD)',
    receivable_ids: 'receivable ids to anticipate (default: as many as the amount needs)',
  },
};

export const receivableEndpoints = [
  endpoint({
    id: 'receivables.list',
    method: 'GET',
    path: '/v1/receivables',
    summary: 'List receivables, newest first',
    auth: 'secret',
    query: receivableListQuery,
    response: receivable,
    list: true,
    message: 'Receivables retrieved',
    tag: 'Receivables',
    cli: {
      command: ['receivables', 'list'],
      example: 'mpay receivables list --status pending --settlement-date-from 2026-02-01 --settlement-date-to 2026-02-28',
      columns: RECEIVABLE_COLUMNS,
      importance: ['id', 'net_amount', 'status', 'settlement_date', 'charge_id', 'installment', 'gross_amount', 'fee_amount'],
    },
  }),
  endpoint({
    id: 'anticipations.create',
    method: 'POST',
    path: '/v1/anticipations',
    summary: 'Anticipate pending card receivables (spot)',
    auth: 'secret',
    body: anticipationCreate,
    response: anticipation,
    status: 201,
    message: 'Anticipation created',
    tag: 'Anticipations',
    cli: { command: ['anticipations', 'create'], example: 'mpay anticipations create --amount 50000', columns: ANTICIPATION_COLUMNS },
  }),
  endpoint({
    id: 'anticipations.list',
    method: 'GET',
    path: '/v1/anticipations',
    summary: 'List anticipations, newest first',
    auth: 'secret',
    query: anticipationListQuery,
    response: anticipation,
    list: true,
    message: 'Anticipations retrieved',
    tag: 'Anticipations',
    cli: {
      command: ['anticipations', 'list'],
      example: 'mpay anticipations list --status approved --start-date 2026-01-01',
      columns: ANTICIPATION_COLUMNS,
      importance: ['id', 'status', 'total_net_amount', 'created_at', 'total_gross_amount', 'total_fee_amount'],
    },
  }),
] as const;
