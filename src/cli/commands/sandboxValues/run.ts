/**
 * `mpay sandbox values`: every value the sandbox treats specially and what it does, and the
 * prices it charges. The rows are computed from the modules the service itself decides with
 * (test cards, payout magic values, PIX limits, the clock and review request schemas, the
 * pricing document and the Price table), so this list cannot drift from what the service does.
 * Needs no target: without a profile it runs offline and shows the default pricing; with one it
 * asks the profile's merchant for its effective pricing (GET /v1/merchant).
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  APPROVED_TEST_CARDS,
  DUE_PAYERS,
  PIX_DEFAULT_EXPIRES_IN_S,
  PIX_EXPIRED,
  PIX_MAX_EXPIRES_IN_S,
  PIX_MIN_EXPIRES_IN_S,
  SANDBOX_LATE_DAYS,
  SANDBOX_LATE_PAY_HOUR,
  TEST_CARDS,
  decideCard,
} from '../../../domain/sandbox.js';
import { bankCodeWithDigit } from '../../../domain/boleto.js';
import { DEFAULT_PAY_UNTIL_DAYS, MAX_PAY_UNTIL_DAYS } from '../../../domain/dueAmount.js';
import { formatBRL } from '../../../domain/money.js';
import { COMPLETE_AFTER_MS, PROCESS_AFTER_MS, SANDBOX_PAYOUT_VALUES } from '../../../domain/sandboxPayouts.js';
import { CARD_BRANDS, detectBrand } from '../../../domain/brands.js';
import { AUTHORIZATION_VALID_DAYS } from '../../../domain/capture.js';
import { BOLETO_SETTLEMENT_DAYS, SETTLEMENT_DAYS_PER_INSTALLMENT, type MdrBands } from '../../../domain/fees.js';
import { WITHDRAWAL_TYPES, type WithdrawalFeeRule } from '../../../domain/payouts.js';
import { DEFAULT_PRICING, installmentTerms, type Pricing } from '../../../domain/pricing.js';
import { CONTEST_DECISION_DAYS, EVIDENCE_WINDOW_DAYS, LOSING_EVIDENCE, WINNING_EVIDENCE } from '../../../domain/chargebacks.js';
import { MED_ANALYSIS_DAYS, MED_OPEN_WINDOW_DAYS, MED_REASONS, PIX_RETURN_WINDOW_DAYS } from '../../../domain/pixReturns.js';
import { addDays, holidays, localDate, nextBusinessDay, TIME_ZONE } from '../../../domain/calendar.js';
import { usage } from '../../errors.js';
import { clockAdvance } from '../../../contract/resources/clock.js';
import { reviewRequest } from '../../../contract/resources/submerchants.js';
import { painter, printData, resolveFormat } from '../../output.js';
import type { RunEnv } from '../shape.js';
import type { SandboxValuesOptions } from './index.js';

export interface SandboxValue {
  /** what the value belongs to: card, pix, withdrawal (pix|ted|cryptocurrency|any), clock, review… */
  area: string;
  /** the value to send (or the condition) */
  value: string;
  /** the resulting status or effect */
  outcome: string;
  /** failure_code / failure_reason the record gets when it fails (void_reason when it is voided) */
  code: string | null;
  detail: string;
}

function cardOutcome(number: string, expired = false): Pick<SandboxValue, 'outcome' | 'code'> {
  const d = decideCard(number, expired);
  return d.approved ? { outcome: 'captured', code: null } : { outcome: 'failed', code: d.failure_code };
}

const seconds = (ms: number) => `${ms / 1000} s`;

/** Whose pricing the rows show without a profile. */
const NO_PROFILE: PricingSource = { whose: 'the defaults (no profile)' };

/** Whose pricing the rows show: a short name for the outcome column, and the merchant's id (which goes to the detail, so that the outcome column stays narrow). */
export interface PricingSource {
  whose: string;
  merchantId?: string;
}

const pct = (bps: number) => `${bps / 100} %`;

const BANDS: Array<[keyof MdrBands, string]> = [
  ['installments_1', '1x'],
  ['installments_2_6', '2x–6x'],
  ['installments_7_12', '7x–12x'],
];

function feeText(rule: WithdrawalFeeRule): string {
  const parts = [rule.fixed_amount || !rule.bps ? formatBRL(rule.fixed_amount) : '', rule.bps ? pct(rule.bps) : ''].filter(Boolean).join(' + ');
  return rule.min_amount ? `${parts}, at least ${formatBRL(rule.min_amount)}` : parts;
}

/** The prices of `pricing` (`source` says whose), one row per rate, with a worked example of buyer interest. */
export function pricingRows(pricing: Pricing, source: PricingSource): SandboxValue[] {
  const row = (value: string, outcome: string, detail: string): SandboxValue => ({ area: 'pricing', value, outcome, code: null, detail });
  const rows: SandboxValue[] = [
    row(
      'effective pricing',
      source.whose,
      `${source.merchantId ? `merchant ${source.merchantId}: ` : ''}the server's pricing (mpay server start --pricing FILE, MPAY_PRICING) with the merchant's override laid over it (mpay admin merchants pricing set); GET /v1/merchant shows it; each charge keeps the rates it was created with`,
    ),
  ];
  for (const [band, label] of BANDS) {
    const byRate = new Map<number, string[]>();
    for (const b of CARD_BRANDS) byRate.set(pricing.card_mdr_bps[b][band], [...(byRate.get(pricing.card_mdr_bps[b][band]) ?? []), b]);
    for (const [bps, brands] of byRate) {
      rows.push(row(`card MDR ${label}`, pct(bps), brands.length === CARD_BRANDS.length ? 'every brand' : brands.join(', ')));
    }
  }
  rows.push(row('PIX MDR', pct(pricing.pix_mdr_bps), 'of the amount, rounded half up to the cent'));
  rows.push(row('boleto fee', formatBRL(pricing.boleto_fee_amount), 'a fixed fee per paid boleto, whatever its amount; an unpaid one costs nothing'));
  rows.push(row('anticipation', `${pct(pricing.anticipation_monthly_bps)} a month`, 'pro rata per calendar day until the business-day settlement date'));
  for (const t of WITHDRAWAL_TYPES) rows.push(row(`withdrawal fee ${t}`, feeText(pricing.withdrawal_fees[t]), 'debited with the amount; netAmount = amount − fee'));
  rows.push(row('chargeback fee', formatBRL(pricing.chargeback_fee_amount), 'debited from the merchant for a chargeback lost or accepted'));
  const bi = pricing.buyer_interest;
  const terms = { interest: 'buyer' as const, buyer_monthly_interest_bps: bi.monthly_bps, free_installments: bi.free_installments };
  const example = installmentTerms(10_000, 12, terms);
  rows.push(
    row(
      'buyer interest',
      `${pct(bi.monthly_bps)} a month above ${bi.free_installments}x`,
      `card charges and links with interest "buyer": up to ${bi.free_installments}x interest-free, above that the Price table (compound); e.g. R$ 100,00 in 12x: ${
        example.with_interest ? `12x de ${formatBRL(example.installment_amount)} (total ${formatBRL(example.total_amount)})` : 'interest-free'
      }`,
    ),
  );
  return rows;
}

/** Every magic value of the sandbox, in the order a developer meets them, and the prices of `pricing`. */
export function sandboxValueRows(pricing: Pricing = DEFAULT_PRICING, source: PricingSource = NO_PROFILE): SandboxValue[] {
  const rows: SandboxValue[] = [];
  for (const n of APPROVED_TEST_CARDS) {
    rows.push({ area: 'card', value: n, ...cardOutcome(n), detail: `${detectBrand(n) ?? 'card'}: approved; installment n settles ${SETTLEMENT_DAYS_PER_INSTALLMENT} × n days after capture, on a business day (see settlement)` });
  }
  for (const c of TEST_CARDS) {
    if (c.outcome === 'declined') {
      rows.push({ area: 'card', value: c.number, ...cardOutcome(c.number), detail: `${detectBrand(c.number) ?? 'card'}: ${decideFailureReason(c.number)}; a failed charge is a record (201), not an error` });
    } else {
      rows.push({
        area: 'card',
        value: c.number,
        ...cardOutcome(c.number),
        detail: `${detectBrand(c.number) ?? 'card'}: approved, then disputed ${c.dispute_after_days} day(s) after capture (merchant clock): a chargeback (reason ${c.reason}) of all that is left of the charge`,
      });
    }
  }
  const sample = APPROVED_TEST_CARDS[0]!;
  rows.push({ area: 'card', value: 'any other Luhn-valid number', ...cardOutcome(sample), detail: 'approved by the sandbox acquirer' });
  rows.push({
    area: 'card',
    value: 'a token whose card expired (merchant clock)',
    ...cardOutcome(sample, true),
    detail: `${decideFailureReason(sample, true)}; moving the sandbox clock past the expiry month makes a saved token fail`,
  });

  rows.push({
    area: 'card',
    value: 'capture: false (mpay charges create --no-capture)',
    outcome: 'authorized',
    code: null,
    detail: `an approved card is authorised only (declining cards fail as above): capture it once within ${AUTHORIZATION_VALID_DAYS} days, all or part of it (\`mpay charges capture ID [--amount N]\`), or void it (\`mpay charges void ID\`); card only`,
  });
  rows.push({
    area: 'card',
    value: `an authorisation not captured within ${AUTHORIZATION_VALID_DAYS} days (merchant clock)`,
    outcome: 'voided',
    code: 'expired',
    detail: `voided by the sandbox ${AUTHORIZATION_VALID_DAYS} × 24 h after authorized_at, with void_reason expired; \`mpay sandbox advance --days ${AUTHORIZATION_VALID_DAYS}\` gets there at once`,
  });

  rows.push({
    area: 'pix',
    value: 'a PIX charge',
    outcome: 'pending',
    code: null,
    detail: 'until paid with `mpay sandbox pay CHARGE_ID` (POST /v1/sandbox/charges/{id}/pay): then captured, net credited to the wallet at once',
  });
  rows.push({
    area: 'pix',
    value: `payment_details.expires_in ${PIX_MIN_EXPIRES_IN_S}–${PIX_MAX_EXPIRES_IN_S} s (default ${PIX_DEFAULT_EXPIRES_IN_S})`,
    outcome: 'failed',
    code: PIX_EXPIRED.failure_code,
    detail: `not paid by expires_at on the merchant clock: ${PIX_EXPIRED.failure_reason}`,
  });
  rows.push({
    area: 'pix',
    value: 'mpay charges refund CHARGE_ID [--amount N]',
    outcome: 'refunded',
    code: null,
    detail: `a devolução, in full or in part, up to ${PIX_RETURN_WINDOW_DAYS} days after the payment (its São Paulo day + ${PIX_RETURN_WINDOW_DAYS}, whole): each refund record has a return_id (D…, 32 characters)`,
  });
  rows.push({
    area: 'pix',
    value: `a refund after day ${PIX_RETURN_WINDOW_DAYS}`,
    outcome: 'refused',
    code: 'refund_window_closed',
    detail: '422; nothing changes (a card or boleto refund has no such window, and no return_id)',
  });

  rows.push(...dueRows(pricing));

  for (const v of SANDBOX_PAYOUT_VALUES) {
    rows.push({
      area: `withdrawal (${v.type})`,
      value: v.field === 'amount' ? `amount ending in ${String(v.cents_ending).padStart(2, '0')} cents` : `${v.field} ${v.equals}`,
      outcome: 'failed',
      code: v.failure_reason,
      detail: `fails from ${v.fails_at}. ${v.description}`,
    });
  }
  rows.push({
    area: 'withdrawal (any)',
    value: 'any other destination and amount',
    outcome: 'completed',
    code: null,
    detail: `processing ${seconds(PROCESS_AFTER_MS)} after creation, completed ${seconds(COMPLETE_AFTER_MS)} later (merchant clock)`,
  });

  const days = clockAdvance.shape.days;
  rows.push({
    area: 'clock',
    value: `mpay sandbox advance --days ${days.minValue ?? 1}–${days.maxValue ?? ''}`,
    outcome: "merchant's clock moved forward",
    code: null,
    detail: 'settlements, PIX expirations, payout steps and webhook retries that come due run at once; other merchants are not affected',
  });

  for (const decision of reviewRequest.shape.decision.options) {
    const needsNotes = !reviewRequest.safeParse({ decision }).success;
    rows.push({
      area: 'review',
      value: `mpay sandbox review ID --${decision}${needsNotes ? ' --notes TEXT' : ''}`,
      outcome: decision === 'approve' ? 'approved' : 'rejected',
      code: null,
      detail: `an under_review submerchant (every required document in) becomes ${decision === 'approve' ? 'approved' : 'rejected'}${needsNotes ? '; notes are required' : ''}`,
    });
  }

  rows.push(...settlementRows(localDate(new Date()).slice(0, 4)));

  rows.push(...chargebackRows(pricing));
  rows.push(...medRows());

  rows.push({
    area: 'anticipation',
    value: 'POST /v1/anticipations',
    outcome: 'approved',
    code: null,
    detail: `the sandbox approves at once when pending card receivables are eligible (fee ${pct(pricing.anticipation_monthly_bps)} a month, or the rate each charge recorded, pro rata per calendar day until the business-day settlement date); otherwise refused with a reason`,
  });
  rows.push({
    area: 'webhooks',
    value: 'http://localhost… / private addresses',
    outcome: 'allowed',
    code: null,
    detail: 'sandbox mode accepts loopback and LAN receivers (production refuses them); link-local and metadata addresses are refused everywhere',
  });
  rows.push(...pricingRows(pricing, source));
  return rows;
}

/** Boletos and PIX with a due date: the sandbox bank, how they are paid, the magic payers, expiry. */
function dueRows(pricing: Pricing): SandboxValue[] {
  const rows: SandboxValue[] = [
    {
      area: 'boleto',
      value: 'payment_method boleto',
      outcome: 'pending',
      code: null,
      detail: `slip of the sandbox bank ${bankCodeWithDigit()}; paid with \`mpay sandbox pay CHARGE_ID [--amount N] [--paid-on DAY]\` the amount due that day (discount, or fine and interest when late): then captured, settled D+${BOLETO_SETTLEMENT_DAYS} (next business day) net of the ${formatBRL(pricing.boleto_fee_amount)} fee (the one recorded when it was issued)`,
    },
    {
      area: 'pix (due date)',
      value: 'payment_method pix with payment_details.due_date',
      outcome: 'pending',
      code: null,
      detail: 'a /cobv/ BR Code; paid like a boleto the amount due that day, credited at once net of the PIX MDR',
    },
  ];
  for (const p of DUE_PAYERS) {
    rows.push({
      area: 'boleto, pix (due date)',
      value: `customer.email ending in ${p.suffix}@`,
      outcome: p.outcome,
      code: null,
      detail:
        p.suffix === 'pays_late'
          ? `${p.detail}: ${SANDBOX_LATE_DAYS} days after the due date (moved to a business day) at ${SANDBOX_LATE_PAY_HOUR}:00, or on its last payable day if sooner`
          : p.detail,
    });
  }
  rows.push({
    area: 'boleto, pix (due date)',
    value: `not paid by due_date + pay_until_days (0–${MAX_PAY_UNTIL_DAYS}, default ${DEFAULT_PAY_UNTIL_DAYS}), moved to a business day`,
    outcome: 'expired',
    code: null,
    detail: 'event charge.expired; `mpay sandbox expire CHARGE_ID` expires one pending charge at once',
  });
  return rows;
}

/** How the sandbox opens, answers and decides chargebacks (src/domain/chargebacks.ts). */
function chargebackRows(pricing: Pricing): SandboxValue[] {
  return [
    {
      area: 'chargeback',
      value: 'mpay sandbox chargeback CHARGE_ID [--amount N] [--reason R]',
      outcome: 'open',
      code: null,
      detail: `a captured card charge disputed (all that is left of it by default); the amount is taken from the liable parties at once, from their pending receivables of the charge first, then their wallets (which may go below zero); evidence due ${EVIDENCE_WINDOW_DAYS} days later (merchant clock), past it the chargeback is lost`,
    },
    {
      area: 'chargeback',
      value: `contest text containing ${WINNING_EVIDENCE}`,
      outcome: 'won',
      code: null,
      detail: `decided ${CONTEST_DECISION_DAYS} days after the contest (or at once with \`mpay sandbox decide ID\`): each party's part credited back`,
    },
    {
      area: 'chargeback',
      value: `contest text without it (e.g. ${LOSING_EVIDENCE})`,
      outcome: 'lost',
      code: null,
      detail: `decided ${CONTEST_DECISION_DAYS} days after the contest (or at once with \`mpay sandbox decide ID\`): the chargeback fee is debited from the merchant wallet`,
    },
    {
      area: 'chargeback',
      value: 'mpay chargebacks accept ID',
      outcome: 'accepted',
      code: null,
      detail: `the disputed amount stays with the cardholder; the chargeback fee (${formatBRL(pricing.chargeback_fee_amount)}, the one its charge recorded) is debited from the merchant wallet, below zero if need be`,
    },
  ];
}

/** How the sandbox opens and decides a MED of a PIX charge (src/domain/pixReturns.ts): a chargeback of type med. */
function medRows(): SandboxValue[] {
  const decided = `decided ${MED_ANALYSIS_DAYS} days after the MED opened (or at once with \`mpay sandbox decide ID\`)`;
  return [
    {
      area: 'med',
      value: `mpay sandbox med CHARGE_ID [--reason ${MED_REASONS.join('|')}]`,
      outcome: 'open',
      code: null,
      detail: `a captured PIX charge disputed by its payer's institution, up to ${MED_OPEN_WINDOW_DAYS} days after it was paid: a chargeback of type med of all that is left of it, taken from the liable parties at once (wallets may go below zero); evidence due ${MED_ANALYSIS_DAYS} days later (merchant clock), past it the MED is lost`,
    },
    { area: 'med', value: `contest text containing ${WINNING_EVIDENCE}`, outcome: 'won', code: null, detail: `${decided}: each party's part credited back` },
    {
      area: 'med',
      value: `contest text without it (e.g. ${LOSING_EVIDENCE})`,
      outcome: 'lost',
      code: null,
      detail: `${decided}: the money is returned to the payer (a devolução; the MED gets its return_id); no fee`,
    },
    { area: 'med', value: 'mpay chargebacks accept ID', outcome: 'accepted', code: null, detail: 'the money is returned to the payer (a devolução; the MED gets its return_id); no fee' },
  ];
}

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const weekdayOf = (ymd: string) => WEEKDAYS[new Date(`${ymd}T12:00:00Z`).getUTCDay()]!;

/**
 * The settlement rule and the holidays of a year it moves receivables past, each with a capture
 * day whose D+30 falls on it (computed by the same calendar the server settles with).
 */
function settlementRows(year: string): SandboxValue[] {
  const rows: SandboxValue[] = [
    {
      area: 'settlement',
      value: `card installment n: capture day + ${SETTLEMENT_DAYS_PER_INSTALLMENT} × n days`,
      outcome: 'next business day',
      code: null,
      detail: `days are ${TIME_ZONE} calendar days; a date that is a Saturday, a Sunday or a national holiday moves forward to the next business day; the receivable settles at 00:00 that day (São Paulo time). \`mpay sandbox calendar YEAR\` lists any year`,
    },
  ];
  for (const h of holidays(Number(year))) {
    const capture = addDays(h.date, -SETTLEMENT_DAYS_PER_INSTALLMENT);
    rows.push({
      area: `holiday ${year}`,
      value: `${h.date} (${weekdayOf(h.date)})`,
      outcome: `settles ${nextBusinessDay(h.date)}`,
      code: null,
      detail: `${h.name}; e.g. a card capture on ${capture}: its 1st installment (D+${SETTLEMENT_DAYS_PER_INSTALLMENT} = ${h.date}) settles on ${nextBusinessDay(h.date)}`,
    });
  }
  return rows;
}

export interface CalendarRow {
  date: string;
  weekday: string;
  name: string;
  /** fixed: same day every year; easter: moves with Easter */
  kind: 'fixed' | 'easter';
  /** the business day a receivable due on this date settles on */
  settles_on: string;
}

/** The holidays of a year as `mpay sandbox calendar` prints them. */
export function calendarRows(year: number): CalendarRow[] {
  return holidays(year).map((h) => ({ date: h.date, weekday: weekdayOf(h.date), name: h.name, kind: h.kind, settles_on: nextBusinessDay(h.date) }));
}

/** `mpay sandbox calendar [YEAR]`: offline, like `sandbox values`. */
export async function runCalendar(year: string | undefined, env: RunEnv): Promise<number> {
  const y = year ?? localDate(new Date()).slice(0, 4);
  if (!/^\d{4}$/.test(y) || Number(y) < 1583) throw usage(`year must be a year from 1583 to 9999 (got "${y}"), e.g. mpay sandbox calendar 2027`);
  const g = env.globals;
  await printData(env.io, calendarRows(Number(y)), { format: resolveFormat(g, env.io), paint: await painter(g, env.io), columns: ['date', 'weekday', 'name', 'kind', 'settles_on'] });
  return 0;
}

function decideFailureReason(number: string, expired = false): string {
  const d = decideCard(number, expired);
  return d.approved ? 'approved' : d.failure_reason;
}

/**
 * Whose prices to show: with no profile (nor base URL or keys in the environment, nor a data
 * directory named by --data-dir or MPAY_DATA_DIR that holds a store) the defaults, offline and
 * without creating anything; otherwise the effective pricing of the profile's
 * merchant (GET /v1/merchant, the embedded data directory or the remote server), or the
 * defaults with a warning when it cannot be read.
 */
async function pricingToShow(env: RunEnv): Promise<{ pricing: Pricing; source: PricingSource }> {
  const { globals: g, io } = env;
  const { readConfig } = await import('../../config.js');
  const cfg = readConfig(io.env);
  const profile = cfg.profiles[g.profile ?? io.env.MPAY_PROFILE ?? cfg.current ?? 'default'];
  const keysInEnv = !!(io.env.MPAY_PUBLIC_KEY && io.env.MPAY_SECRET_KEY);
  // a data directory named by --data-dir or MPAY_DATA_DIR that holds a store: its merchant
  const dataDir = g.dataDir ?? io.env.MPAY_DATA_DIR;
  const storeNamed = dataDir !== undefined && existsSync(join(resolve(io.cwd, dataDir), 'mpay.db'));
  if (!g.baseUrl && !io.env.MPAY_BASE_URL && !profile?.base_url && !profile?.public_key && !keysInEnv && !storeNamed) {
    return { pricing: DEFAULT_PRICING, source: NO_PROFILE };
  }
  try {
    const target = await env.openTarget(g, io);
    try {
      const m = (await target.client.call('merchant.get', {})).data;
      if (m.pricing) return { pricing: m.pricing, source: { whose: `merchant ${m.name}`, merchantId: m.id } };
      throw new Error('the server does not say its pricing');
    } finally {
      await target.close();
    }
  } catch (e) {
    if (!g.quiet) io.err(`warning: the merchant's pricing could not be read (${(e as Error).message}); showing the defaults\n`);
    return { pricing: DEFAULT_PRICING, source: { whose: 'the defaults' } };
  }
}

export async function sandboxValues(env: RunEnv): Promise<number> {
  const { globals: g, io } = env;
  const format = resolveFormat(g, io);
  const { pricing, source } = await pricingToShow(env);
  const rows = sandboxValueRows(pricing, source);
  const paint = await painter(g, io);
  if (format !== 'table') {
    await printData(io, rows, { format, paint });
    return 0;
  }
  // a table that fits the terminal: values and codes never cut (the code joins the outcome;
  // the detail wraps, or is hidden on a narrow terminal)
  const cells = rows.map((r) => ({ area: r.area, value: r.value, outcome: r.code ? `${r.outcome} (${r.code})` : r.outcome, detail: r.detail }));
  await printData(io, cells, { format, paint, columns: ['area', 'value', 'outcome', 'detail'], importance: ['value', 'outcome', 'detail', 'area'] });
  return 0;
}

/** The command's entry (it needs no target: the values are computed offline). */
export async function run(_opts: SandboxValuesOptions, env: RunEnv): Promise<number> {
  return sandboxValues(env);
}
