/**
 * `mpay sandbox values`: every value the sandbox treats specially and what it does. The rows
 * are computed from the modules the service itself decides with (test cards, payout magic
 * values, PIX limits, the clock and review request schemas), so this list cannot drift from
 * what the service does. Needs no target: it runs offline.
 */
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
import { detectBrand } from '../../../domain/brands.js';
import { AUTHORIZATION_VALID_DAYS } from '../../../domain/capture.js';
import { ANTICIPATION_MONTHLY_BPS, BOLETO_FEE_CENTS, BOLETO_SETTLEMENT_DAYS, SETTLEMENT_DAYS_PER_INSTALLMENT } from '../../../domain/fees.js';
import { CHARGEBACK_FEE_CENTS, CONTEST_DECISION_DAYS, EVIDENCE_WINDOW_DAYS, LOSING_EVIDENCE, WINNING_EVIDENCE } from '../../../domain/chargebacks.js';
import { addDays, holidays, localDate, nextBusinessDay, TIME_ZONE } from '../../../domain/calendar.js';
import { usage } from '../../errors.js';
import { clockAdvance } from '../../../contract/resources/clock.js';
import { reviewRequest } from '../../../contract/resources/submerchants.js';
import type { IO } from '../../io.js';
import { painter, printData, resolveFormat } from '../../output.js';
import type { Globals } from '../../target.js';
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

/** Every magic value of the sandbox, in the order a developer meets them. */
export function sandboxValueRows(): SandboxValue[] {
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

  rows.push(...dueRows());

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

  rows.push(...chargebackRows());

  rows.push({
    area: 'anticipation',
    value: 'POST /v1/anticipations',
    outcome: 'approved',
    code: null,
    detail: `the sandbox approves at once when pending card receivables are eligible (fee ${ANTICIPATION_MONTHLY_BPS / 100} % a month, pro rata per calendar day until the business-day settlement date); otherwise refused with a reason`,
  });
  rows.push({
    area: 'webhooks',
    value: 'http://localhost… / private addresses',
    outcome: 'allowed',
    code: null,
    detail: 'sandbox mode accepts loopback and LAN receivers (production refuses them); link-local and metadata addresses are refused everywhere',
  });
  return rows;
}

/** Boletos and PIX with a due date: the sandbox bank, how they are paid, the magic payers, expiry. */
function dueRows(): SandboxValue[] {
  const rows: SandboxValue[] = [
    {
      area: 'boleto',
      value: 'payment_method boleto',
      outcome: 'pending',
      code: null,
      detail: `slip of the sandbox bank ${bankCodeWithDigit()}; paid with \`mpay sandbox pay CHARGE_ID [--amount N] [--paid-on DAY]\` the amount due that day (discount, or fine and interest when late): then captured, settled D+${BOLETO_SETTLEMENT_DAYS} (next business day) net of the ${formatBRL(BOLETO_FEE_CENTS)} fee`,
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
function chargebackRows(): SandboxValue[] {
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
      detail: `the disputed amount stays with the cardholder; the chargeback fee (${formatBRL(CHARGEBACK_FEE_CENTS)}) is debited from the merchant wallet, below zero if need be`,
    },
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

export async function sandboxValues(g: Globals, io: IO): Promise<number> {
  const format = resolveFormat(g, io);
  const rows = sandboxValueRows();
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
  return sandboxValues(env.globals, env.io);
}
