import * as z from 'zod';
import { endpoint, type CliPresentation } from '../endpoint.js';
import { listQuery, money, qEnum, timestamp, uuid } from '../common.js';
import { qFrom, qTo } from '../filters.js';

export const WALLET_OWNER_TYPES = ['merchant', 'submerchant'] as const;
export const ENTRY_DIRECTIONS = ['credit', 'debit'] as const;

export const wallet = z.object({
  id: uuid(),
  owner_type: z.enum(WALLET_OWNER_TYPES),
  owner_id: uuid(),
  currency: z.string(),
  balance: money().describe('cents'),
  created_at: timestamp(),
  updated_at: timestamp(),
});
export type Wallet = z.infer<typeof wallet>;

export const walletEntry = z.object({
  id: uuid(),
  wallet_id: uuid(),
  direction: z.enum(ENTRY_DIRECTIONS),
  amount: money(),
  balance_after: money(),
  reference_type: z.string().describe('charge, receivable, anticipation, withdrawal…'),
  reference_id: z.string(),
  description: z.string(),
  created_at: timestamp(),
});
export type WalletEntry = z.infer<typeof walletEntry>;

export const statementSummary = z.object({
  opening_balance: money(),
  closing_balance: money(),
  total_credits: money(),
  total_debits: money(),
});

export const statement = z.object({
  wallet_id: uuid(),
  start_date: timestamp(),
  end_date: timestamp(),
  entries: z.array(walletEntry).describe("one page of the period's entries, oldest first (the envelope's pagination)"),
  summary: statementSummary,
});
export type Statement = z.infer<typeof statement>;

export const walletListQuery = listQuery({
  owner_type: qEnum(WALLET_OWNER_TYPES).optional(),
  owner_id: uuid().optional(),
});

export const entryListQuery = listQuery({
  reference_type: z.string().regex(/^[a-z_]{1,40}$/, { error: 'must be a reference type such as charge, receivable, anticipation, withdrawal' }).optional(),
  direction: qEnum(ENTRY_DIRECTIONS).optional(),
  start_date: qFrom().optional(),
  end_date: qTo().optional(),
});

export const statementQuery = listQuery({
  start_date: qFrom(),
  end_date: qTo(),
});

const WALLET_COLUMNS = ['id', 'owner_type', 'owner_id', 'currency', 'balance', 'updated_at'] as const;
const ENTRY_COLUMNS = ['created_at', 'direction', 'amount', 'balance_after', 'reference_type', 'reference_id', 'description'] as const;
const ENTRY_IMPORTANCE = ['created_at', 'direction', 'amount', 'description', 'balance_after', 'reference_type', 'reference_id'] as const;

/** How the CLI presents this resource (src/contract/presentation.ts). */
export const walletPresentation: CliPresentation = {
  groups: {
    wallets: 'Wallets: balances, ledger entries and statements',
  },
  fields: {
    owner_id: 'id of the wallet owner',
    reference_type: 'only entries caused by this kind of record',
  },
  nested: {
    entries: { columns: ENTRY_COLUMNS, importance: ENTRY_IMPORTANCE },
  },
};

export const walletEndpoints = [
  endpoint({
    id: 'wallets.list',
    method: 'GET',
    path: '/v1/wallets',
    summary: "The merchant's wallet and its submerchants' wallets",
    auth: 'secret',
    query: walletListQuery,
    response: wallet,
    list: true,
    message: 'Wallets retrieved',
    tag: 'Wallets',
    cli: {
      command: ['wallets', 'list'],
      example: 'mpay wallets list --owner-type submerchant',
      columns: WALLET_COLUMNS,
      importance: ['id', 'owner_type', 'balance', 'owner_id', 'updated_at', 'currency'],
    },
  }),
  endpoint({
    id: 'wallets.entries',
    method: 'GET',
    path: '/v1/wallets/{wallet_id}/entries',
    summary: 'List the entries of a wallet, newest first',
    auth: 'secret',
    query: entryListQuery,
    response: walletEntry,
    list: true,
    message: 'Wallet entries retrieved',
    tag: 'Wallets',
    cli: {
      command: ['wallets', 'entries'],
      example: 'mpay wallets entries 0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f --direction credit --reference-type receivable',
      columns: ENTRY_COLUMNS,
      importance: ENTRY_IMPORTANCE,
    },
  }),
  endpoint({
    id: 'wallets.statement',
    method: 'GET',
    path: '/v1/wallets/{wallet_id}/statement',
    summary: 'Statement of a wallet for a period: a page of its entries and the summary of the whole period',
    auth: 'secret',
    query: statementQuery,
    response: statement,
    pages: 'entries',
    message: 'Wallet statement retrieved',
    tag: 'Wallets',
    cli: {
      command: ['wallets', 'statement'],
      example: 'mpay wallets statement 0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f --start-date 2026-01-01 --end-date 2026-01-31',
      columns: ENTRY_COLUMNS,
    },
  }),
] as const;
