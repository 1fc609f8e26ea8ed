import * as z from 'zod';
import { endpoint, type CliPresentation } from '../endpoint.js';
import { listQuery, metadata, money, positiveCents, qEnum, timestamp, uuid } from '../common.js';
import { isValidCnpj, isValidCpf } from '../../domain/taxid.js';
import { PIX_KEY_TYPES, PIX_KEY_TYPES_NEEDING_HOLDER } from '../../domain/pix.js';
import { WITHDRAWAL_TYPES } from '../../domain/payouts.js';
import { statusesOf, type StatusOf } from '../../domain/lifecycle.js';
import { pinInput } from './pin.js';
import { BANK_ACCOUNT_TYPES, bankFields, canonicalPixKey, checkCrypto, cryptoFields, DESTINATION_FIELDS, pixFields } from './recipients.js';
import { CRYPTO_ASSETS, CRYPTO_NETWORKS } from '../../domain/crypto.js';

export const WITHDRAWAL_STATUSES = statusesOf('withdrawal') as [StatusOf<'withdrawal'>, ...StatusOf<'withdrawal'>[]];
export const HOLDER_DOCUMENT_TYPES = ['cpf', 'cnpj'] as const;

const common = {
  wallet_id: uuid(),
  amount: positiveCents(),
  idempotency_key: z
    .string({ error: 'is required: a unique string per withdrawal, e.g. payout-2026-01-31-001' })
    .regex(/^[\x21-\x7e]{1,255}$/, { error: 'must be 1 to 255 printable ASCII characters without spaces' }),
  submerchant_id: uuid().optional().describe('withdraw from a submerchant wallet on its behalf'),
  pin: pinInput().optional().describe('the 4-digit transaction PIN; required when the merchant has one'),
  metadata: metadata().optional(),
  recipient_id: uuid().optional().describe('a saved recipient of the matching type, instead of inline details'),
};

const opt = <T extends Record<string, z.ZodType>>(shape: T) =>
  Object.fromEntries(Object.entries(shape).map(([k, v]) => [k, v.optional()])) as { [K in keyof T]: z.ZodOptional<T[K]> };

const pixBody = z.strictObject({
  type: z.literal('pix'),
  ...common,
  ...opt(pixFields),
  holder_document_type: z.enum(HOLDER_DOCUMENT_TYPES, { error: 'must be cpf or cnpj' }).optional(),
  holder_document: z.string({ error: 'must be a string of digits' }).optional(),
});
const tedBody = z.strictObject({ type: z.literal('ted'), ...common, ...opt(bankFields) });
const cryptoBody = z.strictObject({ type: z.literal('cryptocurrency'), ...common, ...opt(cryptoFields) });

/** Where the money goes, as snapshotted on the withdrawal. */
export const pixDestination = z.object({
  type: z.literal('pix'),
  pix_key: z.string(),
  pix_key_type: z.enum(PIX_KEY_TYPES),
  holder_name: z.string().optional(),
  holder_document_type: z.enum(HOLDER_DOCUMENT_TYPES).optional(),
  holder_document: z.string().optional(),
});
export const bankDestination = z.object({
  type: z.literal('bank_account'),
  bank_code: z.string(),
  branch_number: z.string(),
  account_number: z.string(),
  account_type: z.enum(BANK_ACCOUNT_TYPES),
  holder_name: z.string(),
  holder_tax_id: z.string(),
});
export const cryptoDestination = z.object({
  type: z.literal('crypto'),
  wallet_address: z.string(),
  network: z.enum(CRYPTO_NETWORKS),
  asset: z.enum(CRYPTO_ASSETS),
});
export const destination = z.discriminatedUnion('type', [pixDestination, bankDestination, cryptoDestination]);
export type Destination = z.infer<typeof destination>;

type Ctx = { addIssue(i: { code: 'custom'; path: PropertyKey[]; message: string }): void };

function requireAll(b: Record<string, unknown>, fields: string[], ctx: Ctx, how: string): boolean {
  let ok = true;
  for (const f of fields) {
    if (b[f] === undefined) {
      ctx.addIssue({ code: 'custom', path: [f], message: `is required ${how}` });
      ok = false;
    }
  }
  return ok;
}

function forbidWithRecipient(b: Record<string, unknown>, fields: string[], ctx: Ctx): boolean {
  let ok = true;
  for (const f of fields) {
    if (b[f] !== undefined) {
      ctx.addIssue({ code: 'custom', path: [f], message: 'must not be given with recipient_id (the recipient supplies it)' });
      ok = false;
    }
  }
  return ok;
}

/**
 * POST /v1/withdrawals. The destination is either inline (pix key, bank fields, crypto wallet)
 * or a saved recipient (`recipient_id`). The parsed body carries `destination` (inline,
 * canonical) or `recipient_id`, never both.
 */
export const withdrawalCreate = z
  .discriminatedUnion('type', [pixBody, tedBody, cryptoBody], { error: `must be one of: ${WITHDRAWAL_TYPES.join(', ')}` })
  .transform((b, ctx) => {
    const base = {
      type: b.type,
      wallet_id: b.wallet_id,
      amount: b.amount,
      idempotency_key: b.idempotency_key,
      submerchant_id: b.submerchant_id,
      pin: b.pin,
      metadata: b.metadata,
    };
    const raw = b as Record<string, unknown>;
    if (b.type === 'pix') {
      const holder = ['holder_document_type', 'holder_document'];
      if (b.recipient_id) {
        return forbidWithRecipient(raw, ['pix_key', 'pix_key_type', ...holder], ctx) ? { ...base, recipient_id: b.recipient_id, destination: undefined } : z.NEVER;
      }
      if (!requireAll(raw, ['pix_key', 'pix_key_type'], ctx, 'for a pix withdrawal (or give recipient_id)')) return z.NEVER;
      const key = canonicalPixKey(b.pix_key_type!, b.pix_key!, ctx);
      if (key === undefined) return z.NEVER;
      const needsHolder = PIX_KEY_TYPES_NEEDING_HOLDER.includes(b.pix_key_type!);
      if (needsHolder && !requireAll(raw, holder, ctx, `when pix_key_type is ${b.pix_key_type}`)) return z.NEVER;
      if ((b.holder_document === undefined) !== (b.holder_document_type === undefined)) {
        const missing = b.holder_document === undefined ? 'holder_document' : 'holder_document_type';
        ctx.addIssue({ code: 'custom', path: [missing], message: 'is required together with the other holder_document field' });
        return z.NEVER;
      }
      let doc: string | undefined;
      if (b.holder_document !== undefined) {
        doc = b.holder_document.toUpperCase();
        const valid = b.holder_document_type === 'cpf' ? isValidCpf(doc) : isValidCnpj(doc);
        if (!valid) {
          ctx.addIssue({
            code: 'custom',
            path: ['holder_document'],
            message:
              b.holder_document_type === 'cpf'
                ? 'must be a valid CPF: 11 digits, no punctuation, with correct check digits'
                : 'must be a valid CNPJ: 14 characters (digits, or the alphanumeric form), no punctuation, with correct check digits',
          });
          return z.NEVER;
        }
      }
      const dest: Destination = { type: 'pix', pix_key: key, pix_key_type: b.pix_key_type! };
      if (doc !== undefined) Object.assign(dest, { holder_document_type: b.holder_document_type, holder_document: doc });
      return { ...base, recipient_id: undefined, destination: dest };
    }
    if (b.type === 'ted') {
      const fields = Object.keys(bankFields);
      if (b.recipient_id) return forbidWithRecipient(raw, fields, ctx) ? { ...base, recipient_id: b.recipient_id, destination: undefined } : z.NEVER;
      if (!requireAll(raw, fields, ctx, 'for a ted withdrawal (or give recipient_id)')) return z.NEVER;
      const dest: Destination = {
        type: 'bank_account',
        bank_code: b.bank_code!,
        branch_number: b.branch_number!,
        account_number: b.account_number!,
        account_type: b.account_type!,
        holder_name: b.holder_name!,
        holder_tax_id: b.holder_tax_id!,
      };
      return { ...base, recipient_id: undefined, destination: dest };
    }
    const fields = Object.keys(cryptoFields);
    if (b.recipient_id) return forbidWithRecipient(raw, fields, ctx) ? { ...base, recipient_id: b.recipient_id, destination: undefined } : z.NEVER;
    if (!requireAll(raw, fields, ctx, 'for a cryptocurrency withdrawal (or give recipient_id)')) return z.NEVER;
    const d = { wallet_address: b.wallet_address!, network: b.network!, asset: b.asset! };
    if (!checkCrypto(d, ctx)) return z.NEVER;
    const dest: Destination = { type: 'crypto', ...d };
    return { ...base, recipient_id: undefined, destination: dest };
  });
export type WithdrawalCreate = z.output<typeof withdrawalCreate>;

export const withdrawal = z.object({
  id: uuid(),
  merchant_id: uuid(),
  submerchant_id: uuid().nullable(),
  wallet_id: uuid(),
  type: z.enum(WITHDRAWAL_TYPES),
  acquirer_name: z.string(),
  external_id: z.string().nullable().describe('the rail reference (PIX end-to-end id, TED control number, transaction hash) once processing'),
  amount: money(),
  fee: money(),
  netAmount: money().describe('amount − fee: what the destination receives'),
  status: z.enum(WITHDRAWAL_STATUSES),
  recipient_id: z.string().nullable(),
  recipient_snapshot: destination.describe('the destination as it was when the withdrawal was requested'),
  failure_reason: z.string().nullable(),
  processed_at: timestamp().nullable(),
  completed_at: timestamp().nullable(),
  failed_at: timestamp().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  idempotency_key: z.string(),
  created_at: timestamp(),
  updated_at: timestamp(),
});
export type Withdrawal = z.infer<typeof withdrawal>;

/** How the CLI presents this resource (src/contract/presentation.ts). */
export const withdrawalPresentation: CliPresentation = {
  groups: {
    withdrawals: 'Withdrawals: pay out a wallet by PIX, TED or crypto',
  },
  fields: {
    ...DESTINATION_FIELDS,
    wallet_id: 'wallet id (see `mpay wallets list`)',
    idempotency_key: 'your key for this request: a retry with the same key does it once',
    holder_document_type: "kind of the holder's document",
    holder_document: "holder's document (CPF or CNPJ digits)",
  },
};

export const withdrawalEndpoints = [
  endpoint({
    id: 'withdrawals.create',
    method: 'POST',
    path: '/v1/withdrawals',
    summary: 'Request a withdrawal (pix, ted or cryptocurrency) from a wallet',
    auth: 'secret',
    body: withdrawalCreate,
    response: withdrawal,
    status: 201,
    message: 'Withdrawal requested',
    tag: 'Withdrawals',
    cli: {
      command: ['withdrawals', 'create'],
      example:
        'mpay withdrawals create --type pix --wallet-id 0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f --amount 15000 --pix-key ana@example.com --pix-key-type email --holder-document-type cpf --holder-document 52998224725 --idempotency-key payout-0001 --pin 4829',
      columns: ['id', 'type', 'status', 'amount', 'fee', 'netAmount', 'failure_reason', 'created_at'],
    },
  }),
  endpoint({
    id: 'withdrawals.list',
    method: 'GET',
    path: '/v1/withdrawals',
    summary: "List the merchant's withdrawals",
    auth: 'secret',
    query: listQuery({ status: qEnum(WITHDRAWAL_STATUSES).optional(), submerchant_id: uuid().optional() }),
    response: withdrawal,
    list: true,
    message: 'Withdrawals retrieved',
    tag: 'Withdrawals',
    cli: {
      command: ['withdrawals', 'list'],
      example: 'mpay withdrawals list --status failed -o json',
      columns: ['id', 'type', 'status', 'amount', 'fee', 'netAmount', 'submerchant_id', 'created_at'],
      importance: ['id', 'status', 'amount', 'type', 'created_at', 'netAmount', 'fee', 'submerchant_id'],
    },
  }),
  endpoint({
    id: 'withdrawals.get',
    method: 'GET',
    path: '/v1/withdrawals/{id}',
    summary: 'One withdrawal',
    auth: 'secret',
    response: withdrawal,
    message: 'Withdrawal retrieved',
    tag: 'Withdrawals',
    cli: {
      command: ['withdrawals', 'get'],
      example: 'mpay withdrawals get 0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f',
      columns: ['id', 'type', 'status', 'amount', 'fee', 'netAmount', 'external_id', 'failure_reason', 'processed_at', 'completed_at', 'failed_at'],
    },
  }),
] as const;
