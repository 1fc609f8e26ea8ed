import * as z from 'zod';
import { endpoint, type CliPresentation } from '../endpoint.js';
import { listQuery, money, positiveCents, qEnum, timestamp, uuid } from '../common.js';
import { qFrom, qTo } from '../filters.js';
import { statusesOf, type StatusOf } from '../../domain/lifecycle.js';
import { CHARGEBACK_REASONS, CHARGEBACK_TYPES, DISPUTE_REASONS, MAX_EVIDENCE_FILES, MAX_EVIDENCE_TEXT } from '../../domain/chargebacks.js';
import { MED_REASONS } from '../../domain/pixReturns.js';
import { FILE_KEY_RE } from '../../domain/files.js';

export const CHARGEBACK_STATUSES = statusesOf('chargeback') as [StatusOf<'chargeback'>, ...StatusOf<'chargeback'>[]];

/** What one party of the charge gave back when the chargeback opened. */
export const chargebackLiability = z.object({
  submerchant_id: uuid().nullable().describe("null: the merchant's own part"),
  wallet_id: uuid(),
  amount: money().describe('cents this party gave back (credited back if the chargeback is won)'),
  from_receivables: money().describe('of which taken from its pending receivables of the charge, last installment first'),
  from_wallet: money().describe('of which debited from its wallet (reference_type chargeback; may take the balance below zero)'),
});

export const chargebackEvidence = z.object({
  text: z.string(),
  file_ids: z.array(z.string()).describe('keys of the merchant\'s uploads (POST /v1/files or POST /v1/submerchants/{id}/upload), kept as attached'),
  submitted_at: timestamp(),
});

export const chargeback = z.object({
  id: uuid(),
  merchant_id: uuid(),
  charge_id: uuid(),
  type: z.enum(CHARGEBACK_TYPES).describe('chargeback: a card charge\'s dispute; med: a PIX charge\'s MED (Mecanismo Especial de Devolução)'),
  amount: money().describe('cents disputed, taken from the liable parties when it opened'),
  currency: z.string(),
  reason: z.enum(DISPUTE_REASONS).describe(`a chargeback: ${CHARGEBACK_REASONS.join(', ')}; a MED: ${MED_REASONS.join(', ')}`),
  status: z.enum(CHARGEBACK_STATUSES),
  evidence_due_at: timestamp().describe('10 days after it opened (a MED: 7; merchant clock): accept or contest before it; an open one past it is lost'),
  evidence: chargebackEvidence.nullable().describe('what the contest submitted; null until contested'),
  decision_due_at: timestamp().nullable().describe('when the issuer decides a contest (under_review; a MED: 7 days after it opened); null otherwise'),
  fee_amount: money().describe('the chargeback fee debited from the merchant wallet when lost or accepted; 0 otherwise (a MED: always 0)'),
  return_id: z
    .string()
    .nullable()
    .describe('a MED lost or accepted: the return id (D…, 32 characters) of the devolução that gave the money back to the payer; null otherwise'),
  liabilities: z.array(chargebackLiability).describe('who gave back what: the liable parties of the charge'),
  created_at: timestamp(),
  closed_at: timestamp().nullable().describe('when it became accepted, won or lost'),
  updated_at: timestamp(),
});
export type Chargeback = z.infer<typeof chargeback>;

export const chargebackListQuery = listQuery({
  status: qEnum(CHARGEBACK_STATUSES).optional(),
  type: qEnum(CHARGEBACK_TYPES).optional().describe('chargeback (card) or med (PIX)'),
  charge_id: uuid().optional(),
  start_date: qFrom().optional().describe('opened at or after (date or date-time)'),
  end_date: qTo().optional().describe('opened at or before (date: the whole day)'),
});

const fileKey = () =>
  z
    .string({ error: 'must be the key of an upload (POST /v1/files)' })
    .regex(FILE_KEY_RE, { error: 'must be the key of an upload, e.g. 0190f0c4-1c2b-4d3e-8f40-5a6b7c8d9e0f.pdf (POST /v1/files)' });

export const chargebackContest = z.strictObject({
  text: z
    .string({ error: 'must be a string' })
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(MAX_EVIDENCE_TEXT, { error: `must be at most ${MAX_EVIDENCE_TEXT} characters` })
    .describe('the merchant\'s case; in the sandbox, text containing winning_evidence wins, anything else loses'),
  file_ids: z
    .array(fileKey(), { error: 'must be an array of upload keys' })
    .max(MAX_EVIDENCE_FILES, { error: `must list at most ${MAX_EVIDENCE_FILES} files` })
    .optional()
    .describe('keys of uploads of this merchant (receipts, delivery proof…), at most 10'),
});
export type ChargebackContest = z.infer<typeof chargebackContest>;

export const sandboxChargebackCreate = z.strictObject({
  amount: positiveCents().optional().describe('cents disputed: 1 to amount − refunded_amount − disputed_amount of the charge; default all of it'),
  reason: z.enum(CHARGEBACK_REASONS, { error: `must be one of: ${CHARGEBACK_REASONS.join(', ')}` }).optional().describe('default fraud'),
});
export type SandboxChargebackCreate = z.infer<typeof sandboxChargebackCreate>;

export const sandboxMedCreate = z.strictObject({
  reason: z.enum(MED_REASONS, { error: `must be one of: ${MED_REASONS.join(', ')}` }).optional().describe('default fraud'),
});
export type SandboxMedCreate = z.infer<typeof sandboxMedCreate>;

const CHARGEBACK_COLUMNS = ['id', 'charge_id', 'type', 'status', 'reason', 'amount', 'evidence_due_at', 'created_at'] as const;
const EXAMPLE_ID = '0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f';

export const chargebackPresentation: CliPresentation = {
  groups: {
    chargebacks: 'Chargebacks: disputed card charges and PIX MEDs, accepted or contested with evidence',
  },
};

export const chargebackEndpoints = [
  endpoint({
    id: 'chargebacks.list',
    method: 'GET',
    path: '/v1/chargebacks',
    summary: 'List chargebacks, newest first',
    auth: 'secret',
    query: chargebackListQuery,
    response: chargeback,
    list: true,
    message: 'Chargebacks retrieved',
    tag: 'Chargebacks',
    cli: { command: ['chargebacks', 'list'], example: 'mpay chargebacks list --status open', columns: CHARGEBACK_COLUMNS },
  }),
  endpoint({
    id: 'chargebacks.get',
    method: 'GET',
    path: '/v1/chargebacks/{id}',
    summary: 'Retrieve a chargeback',
    auth: 'secret',
    response: chargeback,
    message: 'Chargeback retrieved',
    tag: 'Chargebacks',
    cli: { command: ['chargebacks', 'get'], example: `mpay chargebacks get ${EXAMPLE_ID}`, columns: CHARGEBACK_COLUMNS },
  }),
  endpoint({
    id: 'chargebacks.accept',
    method: 'POST',
    path: '/v1/chargebacks/{id}/accept',
    summary: 'Accept an open chargeback: it is lost without a contest and the chargeback fee is debited',
    auth: 'secret',
    response: chargeback,
    status: 200,
    message: 'Chargeback accepted',
    tag: 'Chargebacks',
    cli: { command: ['chargebacks', 'accept'], example: `mpay chargebacks accept ${EXAMPLE_ID} --yes`, columns: CHARGEBACK_COLUMNS },
  }),
  endpoint({
    id: 'chargebacks.contest',
    method: 'POST',
    path: '/v1/chargebacks/{id}/contest',
    summary: 'Contest an open chargeback with evidence (text and uploaded files) before evidence_due_at; the issuer decides later',
    auth: 'secret',
    body: chargebackContest,
    response: chargeback,
    status: 200,
    message: 'Chargeback contested; under review',
    tag: 'Chargebacks',
    cli: {
      command: ['chargebacks', 'contest'],
      example: `mpay chargebacks contest ${EXAMPLE_ID} --text "Entregue em 12/03, assinado pelo comprador" --file-id 0190f0c4-1c2b-4d3e-8f40-5a6b7c8d9e0f.pdf --yes`,
      columns: CHARGEBACK_COLUMNS,
      flagNames: { file_ids: 'file-id' },
    },
  }),
  endpoint({
    id: 'sandbox.chargebacks.create',
    method: 'POST',
    path: '/v1/sandbox/charges/{id}/chargeback',
    summary: 'Sandbox: the cardholder disputes a captured card charge (all that is left of it, or amount)',
    auth: 'secret',
    body: sandboxChargebackCreate,
    response: chargeback,
    status: 201,
    sandbox: true,
    message: 'Chargeback opened',
    tag: 'Sandbox',
    cli: { command: ['sandbox', 'chargeback'], example: `mpay sandbox chargeback ${EXAMPLE_ID} --amount 2500 --reason not_received`, columns: CHARGEBACK_COLUMNS },
  }),
  endpoint({
    id: 'sandbox.chargebacks.med',
    method: 'POST',
    path: '/v1/sandbox/charges/{id}/med',
    summary: 'Sandbox: the payer\'s institution opens a MED against a captured PIX charge (all that is left of it); a chargeback of type med',
    auth: 'secret',
    body: sandboxMedCreate,
    response: chargeback,
    status: 201,
    sandbox: true,
    message: 'MED opened',
    tag: 'Sandbox',
    cli: { command: ['sandbox', 'med'], example: `mpay sandbox med ${EXAMPLE_ID} --reason fraud`, columns: CHARGEBACK_COLUMNS },
  }),
  endpoint({
    id: 'sandbox.chargebacks.decide',
    method: 'POST',
    path: '/v1/sandbox/chargebacks/{id}/decide',
    summary: 'Sandbox: the issuer decides a contested chargeback now, by its evidence, instead of at decision_due_at',
    auth: 'secret',
    response: chargeback,
    status: 200,
    sandbox: true,
    message: 'Chargeback decided',
    tag: 'Sandbox',
    cli: { command: ['sandbox', 'decide'], example: `mpay sandbox decide ${EXAMPLE_ID}`, columns: CHARGEBACK_COLUMNS },
  }),
] as const;
