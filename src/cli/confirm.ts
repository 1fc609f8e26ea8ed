/**
 * Confirmation where money or data goes: the one helper every irreversible verb uses (refund,
 * void, delete, revoke, withdrawal create, PIN disable, profile removal). On a terminal it shows what
 * the verb acts on — amount, name, URL, not only the id — and asks, "no" by default; elsewhere
 * it needs --yes (a usage error, exit 2, before anything changes). "No" is `Cancelled` (exit 1);
 * only yes or no answers it, as in the onboarding wizard (askYesNo).
 */
import { formatBRL } from '../domain/money.js';
import type { MpayClient } from '../sdk/client.js';
import { usage } from './errors.js';
import { tableTime } from './output.js';
import { canPrompt, type IO } from './io.js';
import { Cancelled } from './signals.js';

export interface Confirmation {
  /** the question, e.g. `Refund R$ 23,45 to Ana Souza?` */
  question: string;
  /** what it acts on, one fact a line (printed on stderr above the question) */
  facts: string[];
}

/** Throws unless the verb may go ahead without asking: --yes, or a terminal to ask on. */
export function mayConfirm(io: IO, yes: boolean | undefined, command: string): void {
  if (yes || canPrompt(io)) return;
  throw usage(`\`mpay ${command}\` cannot be undone and needs --yes when mpay cannot ask for confirmation`);
}

/**
 * Asks for confirmation of `command` unless --yes: describes it first (a failing look-up, e.g. a
 * 404, ends there), shows the facts, asks; "no" throws Cancelled.
 */
export async function confirmOrCancel(io: IO, yes: boolean | undefined, command: string, describe: () => Promise<Confirmation>): Promise<void> {
  mayConfirm(io, yes, command);
  if (yes) return;
  const c = await describe();
  for (const f of c.facts) io.err(`  ${f}\n`);
  if (!(await askYesNo(io, c.question, false))) throw new Cancelled(`mpay ${command}`);
}

/**
 * A yes/no question on the terminal (stderr), by the onboarding wizard's rule and in its
 * language (the locale's): only yes or no — y/yes/n/no, in Portuguese s/sim/n/não — is an
 * answer, anything else is refused and asked again; Enter alone takes `dflt`.
 */
export async function askYesNo(io: IO, message: string, dflt: boolean): Promise<boolean> {
  const [{ catalogue, detectLang }, prompter] = await Promise.all([import('./onboard/locale.js'), import('./onboard/prompter.js')]);
  const t = catalogue(detectLang(io.env));
  return (await prompter.askYesNo({ path: [], kind: 'confirm', message, required: true, default: dflt }, t, process.stderr)) === true;
}

type Rec = Record<string, any>;

/** A charge as a confirmation shows it: the line of the charge itself (what the buyer pays, card, installments). */
function chargeLine(c: Rec): string {
  const how = c.card ? `${c.card.brand} •••• ${c.card.last_four}` : String(c.payment_method);
  return `charge ${c.id} (${c.status}), ${formatBRL(c.total_amount ?? c.amount)} by ${how}${c.installments > 1 ? ` in ${c.installments} installments` : ''}`;
}

const customerLine = (c: Rec) => `customer ${c.customer?.name ?? '—'} <${c.customer?.email ?? '—'}>`;

/** The irreversible operations of the contract, and how each is described before it runs. */
export const IRREVERSIBLE: Record<string, (client: MpayClient, params: Record<string, string>, body: Rec | undefined) => Promise<Confirmation>> = {
  'charges.refund': async (client, { id }, body) => {
    const c = (await client.call('charges.get', { params: { id: id! } })).data as Rec;
    const already = Number(c.refunded_amount ?? 0);
    // what the buyer pays, installment interest included (a server without total_amount: the amount)
    const total = Number(c.total_amount ?? c.amount);
    // what can be refunded is what was captured: the total, or less after a partial capture
    // (a server that has no captured_amount captures whole)
    const captured = Number(c.captured_amount ?? total);
    // --amount N refunds N cents; without it, all that is left
    const amount = typeof body?.amount === 'number' ? body.amount : captured - already;
    return {
      question: `Refund ${formatBRL(amount)} to ${c.customer?.name ?? 'the customer'}?`,
      facts: [
        chargeLine(c),
        ...(captured !== total ? [`captured ${formatBRL(captured)} of it`] : []),
        ...(already > 0 ? [`already refunded ${formatBRL(already)}; left ${formatBRL(captured - already)}`] : []),
        customerLine(c),
        `created ${tableTime(c.created_at)}`,
      ],
    };
  },
  'charges.void': async (client, { id }) => {
    const c = (await client.call('charges.get', { params: { id: id! } })).data as Rec;
    return {
      question: `Void the authorisation of ${formatBRL(c.total_amount ?? c.amount)} from ${c.customer?.name ?? 'the customer'}? It can no longer be captured.`,
      facts: [chargeLine(c), ...(c.authorized_at ? [`authorised ${tableTime(c.authorized_at)}`] : []), customerLine(c)],
    };
  },
  'apiKeys.revoke': async (client, { id }) => {
    let key: Rec | undefined;
    for (let page = 1; !key; page++) {
      const r = await client.call('apiKeys.list', { query: { page, per_page: 100 } });
      key = (r.data as Rec[]).find((k) => k.id === id);
      if (page >= (r.pagination?.totalPages ?? 1)) break;
    }
    if (!key) return { question: `Revoke API key ${id}?`, facts: [`API key ${id} (not among this merchant's keys: the service will say why)`] };
    return {
      question: `Revoke API key "${key.name}"? Anything using it stops working.`,
      facts: [`API key "${key.name}" ${key.public_key} (${key.is_active ? 'active' : 'revoked'}), created ${tableTime(key.created_at)}`, `id ${key.id}`],
    };
  },
  'webhookEndpoints.delete': async (client, { id }) => {
    const e = (await client.call('webhookEndpoints.get', { params: { id: id! } })).data as Rec;
    return {
      question: `Delete the webhook endpoint ${e.url}? It stops receiving events.`,
      facts: [`endpoint ${e.id} → ${e.url} (${e.status})`, `events: ${(e.events as string[]).join(', ')}`],
    };
  },
  'webhookEndpoints.rotateSecret': async (client, { id }, body) => {
    const e = (await client.call('webhookEndpoints.get', { params: { id: id! } })).data as Rec;
    const overlap = typeof body?.overlap_seconds === 'number' ? body.overlap_seconds : 86_400;
    return {
      question: `Replace the signing secret of ${e.url}? The old one stops being sent after ${overlap} s.`,
      facts: [`endpoint ${e.id} → ${e.url} (${e.status})`, 'the new secret is shown once: store it before the overlap ends'],
    };
  },
  'withdrawals.create': async (_client, _params, body) => {
    const b = body ?? {};
    const to =
      b.type === 'pix'
        ? `PIX key ${b.pix_key ?? '(the saved recipient)'}${b.pix_key_type ? ` (${b.pix_key_type})` : ''}`
        : b.type === 'bank_transfer' || b.bank_code
          ? `bank ${b.bank_code ?? '?'} branch ${b.branch_number ?? '?'} account ${b.account_number ?? '?'}${b.holder_name ? ` (${b.holder_name})` : ''}`
          : b.wallet_address
            ? `${b.asset ?? ''} ${b.network ?? ''} address ${b.wallet_address}`.trim()
            : b.recipient_id
              ? `recipient ${b.recipient_id}`
              : `the saved recipient (${String(b.type)})`;
    const amount = typeof b.amount === 'number' ? formatBRL(b.amount) : String(b.amount);
    return {
      question: `Withdraw ${amount} to ${to}?`,
      facts: [`${amount} from wallet ${b.wallet_id}${b.submerchant_id ? ` of submerchant ${b.submerchant_id}` : ''}`, `to ${to}`, `idempotency key ${b.idempotency_key}`],
    };
  },
  'chargebacks.accept': async (client, { id }) => {
    const cb = (await client.call('chargebacks.get', { params: { id: id! } })).data as Rec;
    return {
      question:
        cb.type === 'med'
          ? `Accept MED ${cb.id}? ${formatBRL(cb.amount)} is returned to the payer (a devolução); a MED has no fee.`
          : `Accept chargeback ${cb.id}? ${formatBRL(cb.amount)} stays with the cardholder and the chargeback fee is debited.`,
      facts: [`chargeback ${cb.id} (${cb.status}, ${cb.reason}) of charge ${cb.charge_id}`, `${formatBRL(cb.amount)}, evidence due ${tableTime(cb.evidence_due_at)}`],
    };
  },
  'chargebacks.contest': async (client, { id }, body) => {
    const cb = (await client.call('chargebacks.get', { params: { id: id! } })).data as Rec;
    const files = Array.isArray(body?.file_ids) ? body.file_ids.length : 0;
    return {
      question: `Submit this evidence for chargeback ${cb.id}? It cannot be changed afterwards.`,
      facts: [`chargeback ${cb.id} (${cb.status}, ${cb.reason}) of charge ${cb.charge_id}: ${formatBRL(cb.amount)}`, `evidence: ${String(body?.text ?? '').length} characters of text, ${files} file(s)`],
    };
  },
  'merchant.pin.disable': async () => ({
    question: 'Disable the withdrawal PIN? Withdrawals then need no PIN.',
    facts: ['the merchant PIN that protects withdrawals'],
  }),
};

/** A line on stderr for each secret in `data` that the service shows only once. */
export function noteSecretsShownOnce(io: IO, quiet: boolean | undefined, data: unknown): void {
  if (quiet || !data || typeof data !== 'object' || Array.isArray(data)) return;
  for (const [k, v] of Object.entries(data as Rec)) {
    if (typeof v === 'string' && /^(sk_|whsec_)/.test(v)) io.err(`The ${k} is shown only now: store it safely (it cannot be read again).\n`);
  }
}
