import * as z from 'zod';
import { endpoint, type CliPresentation } from '../endpoint.js';
import { listQuery, nonEmpty, qEnum, timestamp, uuid } from '../common.js';
import { checkPixKey, PIX_KEY_TYPES } from '../../domain/pix.js';
import { taxIdKind } from '../../domain/taxid.js';
import { checkCryptoDestination, CRYPTO_ASSETS, CRYPTO_NETWORKS } from '../../domain/crypto.js';

/**
 * Payout destinations: a bank account (TED), a PIX key, a crypto wallet. The field schemas
 * here are shared by recipients and by inline withdrawal destinations.
 */
export const RECIPIENT_TYPES = ['bank_account', 'pix', 'crypto'] as const;
export const BANK_ACCOUNT_TYPES = ['checking', 'savings', 'payment'] as const;
export const RECIPIENT_OWNER_TYPES = ['merchant', 'submerchant'] as const;

const oneOf = (values: readonly string[]) => ({ error: `must be one of: ${values.join(', ')}` });

/** CPF or CNPJ (numeric or alphanumeric) with valid check digits; punctuation removed. */
export const taxIdField = () =>
  z
    .string({ error: 'must be a CPF (11 digits) or CNPJ (14 characters)' })
    .transform((v) => v.replace(/[.\-/\s]/g, '').toUpperCase())
    .refine((v) => taxIdKind(v) !== null, { error: 'must be a valid CPF (11 digits) or CNPJ (14 characters) with correct check digits' });

export const bankFields = {
  bank_code: z.string({ error: 'must be the 3-digit bank code (COMPE), e.g. 001' }).regex(/^\d{3}$/, { error: 'must be the 3-digit bank code (COMPE), e.g. 001' }),
  branch_number: z
    .string({ error: 'must be the branch number, e.g. 1234 or 1234-5' })
    .regex(/^\d{1,4}(-[0-9Xx])?$/, { error: 'must be the branch number of up to 4 digits with an optional check digit, e.g. 1234 or 1234-5' }),
  account_number: z
    .string({ error: 'must be the account number, e.g. 123456-7' })
    .regex(/^\d{1,13}(-[0-9Xx])?$/, { error: 'must be up to 13 digits with an optional check digit, e.g. 123456-7' }),
  account_type: z.enum(BANK_ACCOUNT_TYPES, oneOf(BANK_ACCOUNT_TYPES)),
  holder_name: nonEmpty(100),
  holder_tax_id: taxIdField(),
};

export const pixFields = {
  pix_key: z.string({ error: 'must be a string' }).trim().min(1, { error: 'must not be empty' }).max(100, { error: 'must be at most 100 characters' }),
  pix_key_type: z.enum(PIX_KEY_TYPES, oneOf(PIX_KEY_TYPES)),
};

export const cryptoFields = {
  wallet_address: z.string({ error: 'must be a string' }).trim().min(1, { error: 'must not be empty' }).max(100, { error: 'must be at most 100 characters' }),
  network: z.enum(CRYPTO_NETWORKS, oneOf(CRYPTO_NETWORKS)),
  asset: z.enum(CRYPTO_ASSETS, oneOf(CRYPTO_ASSETS)),
};

type Issues = { addIssue(i: { code: 'custom'; path: PropertyKey[]; message: string }): void };

/** Checks a PIX key against its type; returns the canonical key or adds an issue. */
export function canonicalPixKey(type: (typeof PIX_KEY_TYPES)[number], key: string, ctx: Issues): string | undefined {
  const c = checkPixKey(type, key);
  if (!c.ok) {
    ctx.addIssue({ code: 'custom', path: ['pix_key'], message: c.message });
    return undefined;
  }
  return c.key;
}

export function checkCrypto(d: { network: (typeof CRYPTO_NETWORKS)[number]; asset: (typeof CRYPTO_ASSETS)[number]; wallet_address: string }, ctx: Issues): boolean {
  const bad = checkCryptoDestination(d.network, d.asset, d.wallet_address);
  if (bad) ctx.addIssue({ code: 'custom', path: [bad.field], message: bad.message });
  return !bad;
}

const owner = { submerchant_id: uuid().optional().describe("set the submerchant's recipient instead of the merchant's") };

export const recipientPut = z
  .discriminatedUnion(
    'type',
    [
      z.strictObject({ type: z.literal('bank_account'), ...bankFields, ...owner }),
      z.strictObject({ type: z.literal('pix'), ...pixFields, holder_name: nonEmpty(100), holder_tax_id: taxIdField(), ...owner }),
      z.strictObject({ type: z.literal('crypto'), ...cryptoFields, ...owner }),
    ],
    oneOf(RECIPIENT_TYPES),
  )
  .transform((b, ctx) => {
    if (b.type === 'pix') {
      const key = canonicalPixKey(b.pix_key_type, b.pix_key, ctx);
      return key === undefined ? z.NEVER : { ...b, pix_key: key };
    }
    if (b.type === 'crypto' && !checkCrypto(b, ctx)) return z.NEVER;
    return b;
  });

export const bankAccountDetails = z.object({
  bank_code: z.string(),
  branch_number: z.string(),
  account_number: z.string(),
  account_type: z.enum(BANK_ACCOUNT_TYPES),
  holder_name: z.string(),
  holder_tax_id: z.string(),
});
export const pixDetails = z.object({
  pix_key: z.string(),
  pix_key_type: z.enum(PIX_KEY_TYPES),
  holder_name: z.string(),
  holder_tax_id: z.string(),
});
export const cryptoDetails = z.object({
  wallet_address: z.string(),
  network: z.enum(CRYPTO_NETWORKS),
  asset: z.enum(CRYPTO_ASSETS),
});

export const recipient = z.object({
  id: uuid(),
  owner_type: z.enum(RECIPIENT_OWNER_TYPES),
  owner_id: uuid(),
  type: z.enum(RECIPIENT_TYPES),
  is_primary: z.boolean(),
  details: z.union([bankAccountDetails, pixDetails, cryptoDetails]).describe("the type's fields"),
  created_at: timestamp(),
  updated_at: timestamp(),
});
export type Recipient = z.infer<typeof recipient>;

/** What a payout destination's fields are (recipients and withdrawals share them). */
export const DESTINATION_FIELDS = {
  pix_key: 'PIX key of the destination',
  pix_key_type: 'kind of PIX key',
  bank_code: 'bank code (3 digits, e.g. 341)',
  branch_number: 'branch (agência) number',
  account_number: 'account number with check digit',
  account_type: 'account type',
  holder_name: "account holder's name",
  holder_tax_id: "account holder's CPF or CNPJ (digits)",
  wallet_address: 'crypto wallet address',
  network: 'crypto network',
  asset: 'crypto asset',
};

/** How the CLI presents this resource (src/contract/presentation.ts). */
export const recipientPresentation: CliPresentation = {
  groups: {
    recipients: 'Recipients: saved payout destinations (PIX key, bank account, wallet address)',
  },
  fields: DESTINATION_FIELDS,
};

export const recipientEndpoints = [
  endpoint({
    id: 'recipients.put',
    method: 'PUT',
    path: '/v1/recipients',
    summary: "Create or update the primary recipient of a type (the merchant's, or a submerchant's)",
    auth: 'secret',
    body: recipientPut,
    response: recipient,
    status: 200,
    message: 'Recipient saved',
    tag: 'Recipients',
    cli: {
      command: ['recipients', 'set'],
      example:
        'mpay recipients set --type bank_account --bank-code 341 --branch-number 1234 --account-number 56789-0 --account-type checking --holder-name "Loja da Ana LTDA" --holder-tax-id 11222333000181',
      columns: ['id', 'owner_type', 'owner_id', 'type', 'is_primary', 'updated_at'],
    },
  }),
  endpoint({
    id: 'recipients.list',
    method: 'GET',
    path: '/v1/recipients',
    summary: "List the merchant's and its submerchants' recipients",
    auth: 'secret',
    query: listQuery({
      type: qEnum(RECIPIENT_TYPES).optional(),
      submerchant_id: uuid().optional(),
      owner_type: qEnum(RECIPIENT_OWNER_TYPES).optional(),
    }),
    response: recipient,
    list: true,
    message: 'Recipients retrieved',
    tag: 'Recipients',
    cli: {
      command: ['recipients', 'list'],
      example: 'mpay recipients list --type pix -o json',
      columns: ['id', 'owner_type', 'owner_id', 'type', 'is_primary', 'updated_at'],
    },
  }),
] as const;
