/**
 * Help that helps: what each command group is for, and a description for every flag of a
 * generated command — the contract's own words when it has them, else what the field is —
 * followed by what the contract says about its values: unit (cents…), range, allowed values,
 * default, whether it is required.
 */
import type { FlagSpec } from './spec/types.js';

/** What each group of generated commands is for (`mpay --help`, `mpay <group> --help`). */
export const GROUPS: Record<string, string> = {
  merchant: 'Merchant: your account, its clock and the withdrawal PIN',
  'merchant pin': 'Withdrawal PIN: set or disable the 4-digit PIN that protects payouts',
  keys: 'API keys: create, list and revoke key pairs (pk_/sk_)',
  tokens: 'Card tokens: tokenize a card with the public key (CVV checked, never stored)',
  withdrawals: 'Withdrawals: pay out a wallet by PIX, TED or crypto',
  recipients: 'Recipients: saved payout destinations (PIX key, bank account, wallet address)',
  links: 'Payment links: hosted checkout pages to share',
  charges: 'Charges: card and PIX payments, refunds',
  sandbox: 'Sandbox: magic values, clock, PIX payment, review, wallet adjustments',
  'sandbox wallet': 'Sandbox wallet: credit or debit a wallet by hand (sandbox only)',
  receivables: 'Receivables: what charges will settle into wallets, and when',
  anticipations: 'Anticipations: receive receivables before they settle, for a fee',
  wallets: 'Wallets: balances, ledger entries and statements',
  submerchants: 'Submerchants: onboarding (KYC), addresses, partners, documents, requirements',
  'submerchants addresses': 'Submerchant addresses: add and list',
  'submerchants partners': 'Submerchant partners (owners, administrators): add and list',
  'submerchants docs': 'Submerchant documents: register by URL and list (upload: `mpay submerchants upload`)',
  files: 'Files: download uploaded documents',
  webhooks: 'Webhooks: endpoints, delivery logs, retries and a local listener',
};

/** What a field is, by its last path segment, where the contract does not say. */
const FIELDS: Record<string, string> = {
  name: 'name',
  allowed_ips: 'IPs or CIDRs the key may be used from (empty: any)',
  is_active: 'only active (true) or revoked (false) keys',
  number: 'card number, digits only',
  holderName: 'name printed on the card',
  expirationMonth: 'expiration month, 1 to 12',
  expirationYear: 'expiration year, four digits',
  cvv: 'card security code (3 digits, 4 for Amex)',
  pin: 'the 4-digit withdrawal PIN',
  current_pin: 'the current 4-digit PIN',
  type: 'type',
  wallet_id: 'wallet id (see `mpay wallets list`)',
  amount: 'amount',
  idempotency_key: 'your key for this request: a retry with the same key does it once',
  metadata: 'your own key/value pairs (JSON object)',
  pix_key: 'PIX key of the destination',
  pix_key_type: 'kind of PIX key',
  holder_document_type: "kind of the holder's document",
  holder_document: "holder's document (CPF or CNPJ digits)",
  bank_code: 'bank code (3 digits, e.g. 341)',
  branch_number: 'branch (agência) number',
  account_number: 'account number with check digit',
  account_type: 'account type',
  holder_name: "account holder's name",
  holder_tax_id: "account holder's CPF or CNPJ (digits)",
  wallet_address: 'crypto wallet address',
  network: 'crypto network',
  asset: 'crypto asset',
  status: 'only records with this status',
  submerchant_id: 'submerchant id (see `mpay submerchants list`)',
  owner_type: 'whose wallets: the merchant or its submerchants',
  title: 'title shown on the checkout page',
  product_type: 'physical goods or digital',
  allowed_payment_methods: 'payment methods the page offers',
  description: 'description shown to the customer',
  currency: 'currency',
  expires_at: 'when the link stops accepting payments (ISO 8601 date-time)',
  max_uses: 'how many payments the link accepts',
  redirect_url: 'where the customer goes after paying',
  cover_image_url: 'cover image URL of the checkout page',
  primary_color: 'main color of the checkout page (#RRGGBB)',
  summary_color: 'color of the order summary (#RRGGBB)',
  logo_url: 'logo URL of the checkout page',
  max_installments: 'most installments a card payment may have',
  email: 'e-mail address',
  tax_id: 'CPF (11 digits) or CNPJ (14 digits)',
  phone: 'phone number, e.g. +5511987654321',
  items: 'JSON array of items: [{"name","quantity","unit_price" (cents),"tangible"}]',
  shipping_amount: 'shipping',
  split_rules: 'JSON array of splits: [{"submerchant_id","amount" (cents) or "percentage","charge_processing_fee"?,"charge_remainder_fee"?}]',
  payment_method: 'how the customer pays',
  token: 'card token from `mpay tokens create`',
  settlement_date_from: 'settling on or after this date (YYYY-MM-DD)',
  settlement_date_to: 'settling on or before this date (YYYY-MM-DD)',
  charge_id: 'charge id (see `mpay charges list`)',
  receivable_ids: 'receivable ids to anticipate (default: as many as the amount needs)',
  start_date: 'from this date (YYYY-MM-DD)',
  end_date: 'to this date (YYYY-MM-DD)',
  owner_id: 'id of the wallet owner',
  reference_type: 'only entries caused by this kind of record',
  direction: 'credit (add) or debit (take)',
  days: 'how far to move the sandbox clock',
  trade_name: 'trade name (nome fantasia)',
  legal_name: 'legal name (razão social)',
  entity_type: 'pf (person, CPF) or pj (company, CNPJ)',
  soft_descriptor: 'name on the customer card statement',
  birth_date: 'birth date (YYYY-MM-DD)',
  mother_name: "mother's full name",
  average_ticket: 'average sale',
  monthly_revenue: 'monthly revenue',
  mcc: 'merchant category code (4 digits)',
  cnaes: 'CNAE activity codes',
  website: 'website URL',
  business_type: 'kind of business',
  product_categories: 'what the business sells',
  street: 'street',
  complement: 'complement (apartment, suite…)',
  neighborhood: 'neighborhood (bairro)',
  city: 'city',
  state: 'state, two letters (e.g. SP)',
  zip_code: 'CEP, 8 digits',
  country: 'country, two letters',
  is_primary: 'the main address',
  document: 'CPF or CNPJ (digits)',
  role: 'role in the company',
  qualification: 'legal qualification',
  participation_percentage: 'share of the company, in percent',
  is_admin: 'whether the partner administers the company',
  file_url: 'URL of the file',
  file_name: 'file name',
  file_size: 'file size in bytes',
  mime_type: 'MIME type, e.g. image/png',
  notes: 'notes for the reviewer',
  legal_representative_id: 'partner id of the legal representative',
  decision: 'approve or reject the submerchant',
  url: 'HTTPS URL that receives the events',
  events: 'event types to receive (* for all; see `mpay trigger --list`)',
  event_name: 'only deliveries of this event type',
  webhook_endpoint_id: 'only deliveries to this endpoint',
  event_id: 'only deliveries of this event',
};

const humanize = (seg: string) => seg.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/_/g, ' ').toLowerCase();

/** `--flag <placeholder>`: what the value looks like. */
export function placeholder(f: FlagSpec): string {
  if (f.type === 'boolean') return '[bool]';
  if (f.type === 'json') return '<json>';
  if (f.type === 'string[]') return '<list>';
  if (f.unit) return `<${f.unit}>`;
  if (f.type === 'integer' || f.type === 'number') return '<n>';
  return '<value>';
}

/** One flag's description: what it is, then unit, range, allowed values, default, required. */
export function flagDescription(f: FlagSpec): string {
  const leaf = f.path[f.path.length - 1]!;
  const owner = f.path.length > 1 ? humanize(f.path[f.path.length - 2]!) : '';
  let what = f.description ?? FIELDS[leaf] ?? humanize(leaf);
  if (!f.description && owner && !FIELDS[leaf]?.includes(owner)) what = `${owner}: ${what}`;
  const facts: string[] = [];
  if (f.unit === 'cents') facts.push('in cents: 10000 = R$ 100,00');
  else if (f.unit) facts.push(`in ${f.unit}`);
  if (f.minimum !== undefined && f.maximum !== undefined) {
    if (!what.includes(`${f.minimum} to ${f.maximum}`)) facts.push(`${f.minimum} to ${f.maximum}`);
  }
  else if (f.minimum !== undefined) facts.push(`at least ${f.minimum}`);
  else if (f.maximum !== undefined) facts.push(`at most ${f.maximum}`);
  if (f.minLength !== undefined && f.maxLength !== undefined) facts.push(f.minLength === 1 ? `up to ${f.maxLength} characters` : `${f.minLength} to ${f.maxLength} characters`);
  else if (f.maxLength !== undefined) facts.push(`up to ${f.maxLength} characters`);
  if (f.choices) facts.push(`one of: ${f.choices.join(', ')}`);
  if (f.type === 'string[]') facts.push('repeatable or comma-separated');
  if (f.type === 'boolean') facts.push('true or false');
  if (f.nullable) facts.push('null clears it');
  if (f.default !== undefined && !/default/.test(what)) facts.push(`default ${typeof f.default === 'string' ? f.default : JSON.stringify(f.default)}`);
  if (f.required) facts.push('required');
  return facts.length ? `${what} (${facts.join('; ')})` : what;
}
