/**
 * Confirmation where money or data goes: the one helper every irreversible verb uses (refund,
 * void, delete, revoke, withdrawal create, PIN disable, profile removal). On a terminal it shows what
 * the verb acts on — amount, name, URL, not only the id — and asks, "no" by default; elsewhere
 * it needs --yes (a usage error, exit 2, before anything changes). "No" is `Cancelled` (exit 1);
 * only yes or no answers it, as in the onboarding wizard (askYesNo). The question, the facts and
 * the line Ctrl-C leaves are in the locale's language, with the wizard's catalogue (its
 * `confirm` words): pt-BR or English.
 */
import { formatBRL } from '../domain/money.js';
import type { MpayClient } from '../sdk/client.js';
import { interruptionSaying, usage } from './errors.js';
import { canPrompt, type IO } from './io.js';
import type { Catalogue } from './onboard/locale.js';
import { tableTime } from './output.js';
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

/** The words of the locale's language (LC_ALL, LC_MESSAGES, LANG: pt-BR or English), loaded only when mpay asks. */
export async function localeWords(env: NodeJS.ProcessEnv): Promise<Catalogue> {
  const { catalogue, detectLang } = await import('./onboard/locale.js');
  return catalogue(detectLang(env));
}

/**
 * Asks for confirmation of `command` unless --yes: describes it first in the locale's words (a
 * failing look-up, e.g. a 404, ends there), shows the facts, asks; "no" throws Cancelled.
 */
export async function confirmOrCancel(io: IO, yes: boolean | undefined, command: string, describe: (t: Catalogue) => Promise<Confirmation>): Promise<void> {
  mayConfirm(io, yes, command);
  if (yes) return;
  const t = await localeWords(io.env);
  const c = await describe(t);
  for (const f of c.facts) io.err(`  ${f}\n`);
  if (!(await askYesNo(t, c.question, false))) throw new Cancelled(`mpay ${command}`, t.flow.notDone(`mpay ${command}`));
}

/**
 * A yes/no question on the terminal (stderr), by the onboarding wizard's rule and in the
 * catalogue's language: only yes or no — y/yes/n/no, in Portuguese s/sim/n/não — is an answer,
 * anything else is refused and asked again; Enter alone takes `dflt`. Ctrl-C rejects with the
 * prompt's interruption, carrying the line to print in that language (errors.ts describeError).
 */
export async function askYesNo(t: Catalogue, message: string, dflt: boolean): Promise<boolean> {
  const prompter = await import('./onboard/prompter.js');
  try {
    return (await prompter.askYesNo({ path: [], kind: 'confirm', message, required: true, default: dflt }, t, process.stderr)) === true;
  } catch (e) {
    throw interruptionSaying(e, t.flow.interrupted);
  }
}

type Rec = Record<string, any>;

/** A charge as a confirmation shows it: the line of the charge itself (what the buyer pays, card, installments). */
function chargeLine(t: Catalogue, c: Rec): string {
  const how = c.card ? `${c.card.brand} •••• ${c.card.last_four}` : String(c.payment_method);
  return t.confirm.charge(c.id, c.status, formatBRL(c.total_amount ?? c.amount), how, c.installments);
}

const customerLine = (t: Catalogue, c: Rec) => t.confirm.customer(c.customer?.name ?? '—', c.customer?.email ?? '—');

/** The irreversible operations of the contract, and how each is described before it runs, in the catalogue's words. */
export const IRREVERSIBLE: Record<string, (client: MpayClient, params: Record<string, string>, body: Rec | undefined, t: Catalogue) => Promise<Confirmation>> = {
  'charges.refund': async (client, { id }, body, t) => {
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
      question: t.confirm.refund(formatBRL(amount), c.customer?.name ?? t.confirm.theCustomer),
      facts: [
        chargeLine(t, c),
        ...(captured !== total ? [t.confirm.captured(formatBRL(captured))] : []),
        ...(already > 0 ? [t.confirm.refunded(formatBRL(already), formatBRL(captured - already))] : []),
        customerLine(t, c),
        t.confirm.created(tableTime(c.created_at)),
      ],
    };
  },
  'charges.void': async (client, { id }, _body, t) => {
    const c = (await client.call('charges.get', { params: { id: id! } })).data as Rec;
    return {
      question: t.confirm.void(formatBRL(c.total_amount ?? c.amount), c.customer?.name ?? t.confirm.theCustomer),
      facts: [chargeLine(t, c), ...(c.authorized_at ? [t.confirm.authorised(tableTime(c.authorized_at))] : []), customerLine(t, c)],
    };
  },
  'apiKeys.revoke': async (client, { id }, _body, t) => {
    let key: Rec | undefined;
    for (let page = 1; !key; page++) {
      const r = await client.call('apiKeys.list', { query: { page, per_page: 100 } });
      key = (r.data as Rec[]).find((k) => k.id === id);
      if (page >= (r.pagination?.totalPages ?? 1)) break;
    }
    if (!key) return { question: t.confirm.revokeUnknown(id!), facts: [t.confirm.unknownKey(id!)] };
    return {
      question: t.confirm.revoke(key.name),
      facts: [t.confirm.key(key.name, key.public_key, !!key.is_active, tableTime(key.created_at)), `id ${key.id}`],
    };
  },
  'webhookEndpoints.delete': async (client, { id }, _body, t) => {
    const e = (await client.call('webhookEndpoints.get', { params: { id: id! } })).data as Rec;
    return {
      question: t.confirm.deleteEndpoint(e.url),
      facts: [t.confirm.endpoint(e.id, e.url, e.status), t.confirm.events((e.events as string[]).join(', '))],
    };
  },
  'webhookEndpoints.rotateSecret': async (client, { id }, body, t) => {
    const e = (await client.call('webhookEndpoints.get', { params: { id: id! } })).data as Rec;
    const overlap = typeof body?.overlap_seconds === 'number' ? body.overlap_seconds : 86_400;
    return {
      question: t.confirm.rotateSecret(e.url, overlap),
      facts: [t.confirm.endpoint(e.id, e.url, e.status), t.confirm.secretOnce],
    };
  },
  'withdrawals.create': async (_client, _params, body, t) => {
    const b = body ?? {};
    const to =
      b.type === 'pix'
        ? t.confirm.toPixKey(b.pix_key, b.pix_key_type)
        : b.type === 'bank_transfer' || b.bank_code
          ? t.confirm.toBank(b.bank_code ?? '?', b.branch_number ?? '?', b.account_number ?? '?', b.holder_name)
          : b.wallet_address
            ? t.confirm.toWallet(b.asset ?? '', b.network ?? '', b.wallet_address)
            : b.recipient_id
              ? t.confirm.toRecipient(b.recipient_id)
              : t.confirm.toSavedRecipient(String(b.type));
    const amount = typeof b.amount === 'number' ? formatBRL(b.amount) : String(b.amount);
    return {
      question: t.confirm.withdraw(amount, to),
      facts: [t.confirm.fromWallet(amount, b.wallet_id, b.submerchant_id), t.confirm.to(to), t.confirm.idempotencyKey(b.idempotency_key)],
    };
  },
  'chargebacks.accept': async (client, { id }, _body, t) => {
    const cb = (await client.call('chargebacks.get', { params: { id: id! } })).data as Rec;
    return {
      question: cb.type === 'med' ? t.confirm.acceptMed(cb.id, formatBRL(cb.amount)) : t.confirm.acceptChargeback(cb.id, formatBRL(cb.amount)),
      facts: [t.confirm.chargeback(cb.id, cb.status, cb.reason, cb.charge_id), t.confirm.evidenceDue(formatBRL(cb.amount), tableTime(cb.evidence_due_at))],
    };
  },
  'chargebacks.contest': async (client, { id }, body, t) => {
    const cb = (await client.call('chargebacks.get', { params: { id: id! } })).data as Rec;
    const files = Array.isArray(body?.file_ids) ? body.file_ids.length : 0;
    return {
      question: t.confirm.contest(cb.id),
      facts: [`${t.confirm.chargeback(cb.id, cb.status, cb.reason, cb.charge_id)}: ${formatBRL(cb.amount)}`, t.confirm.evidence(String(body?.text ?? '').length, files)],
    };
  },
  'merchant.pin.disable': async (_client, _params, _body, t) => ({
    question: t.confirm.disablePin,
    facts: [t.confirm.pin],
  }),
};

/** A line on stderr for each secret in `data` that the service shows only once. */
export function noteSecretsShownOnce(io: IO, quiet: boolean | undefined, data: unknown): void {
  if (quiet || !data || typeof data !== 'object' || Array.isArray(data)) return;
  for (const [k, v] of Object.entries(data as Rec)) {
    if (typeof v === 'string' && /^(sk_|whsec_)/.test(v)) io.err(`The ${k} is shown only now: store it safely (it cannot be read again).\n`);
  }
}
