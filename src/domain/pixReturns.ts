/**
 * PIX returns ("devoluções"): the return's identifier and the window in which one may be made.
 * Pure.
 *
 * - An end-to-end id (EndToEndIdentification, pacs.008) and a return id (ReturnIdentification,
 *   pacs.004, the API Pix's `rtrId`) have one form, 32 letters and digits: `E` or `D`, the ISPB
 *   of the institution that makes it (8 digits), the date and minute it is made in UTC
 *   (yyyyMMddHHmm), and 11 letters or digits that the institution makes unique
 *   (BCB API Pix: `[a-zA-Z0-9]{32}`, e.g. D12345678202009091000abcde123456).
 * - A return may be asked for up to 90 days after the original payment settled (API Pix,
 *   `PixDevolucaoInvalida`; Regulamento Pix): the window's last day is the payment's São Paulo
 *   day + 90, whole.
 *
 * - MED, the special return mechanism (Mecanismo Especial de Devolução, Resolução BCB nº 103/2021
 *   and the Regulamento Pix; the DICT API's infraction reports and refund requests): the payer's
 *   institution may report a PIX as a fraud (`fraud`) or an operational flaw
 *   (`operational_flaw`) up to 80 days after it was paid; the receiving institution blocks the
 *   money at once and analyses the report within 7 calendar days, then either returns the
 *   money to the payer as a devolução (with its own return id) or releases it. In mpay a MED is a
 *   chargeback of `type: "med"` (src/domain/chargebacks.ts). The 80 and 7 days as participants
 *   publish them: https://starkinfra.zendesk.com/hc/pt-br/articles/40004948434587 ("a transação
 *   original deve ter ocorrido há no máximo 80 dias"; "até 7 dias corridos para aceitar ou
 *   rejeitar"), and Conta Azul's guide to Resolução BCB nº 103/2021 (7 calendar days to analyse).
 *
 * The sandbox's ISPB is 99999999. An ISPB is the first 8 digits of an institution's CNPJ, and
 * 00000000 is Banco do Brasil's; 99999999 belongs to no participant of the STR or of PIX (the
 * Banco Central's lists, as the BancosBrasileiros data set mirrors them, August 2026), so a
 * sandbox id cannot be mistaken for a real institution's.
 */
import { addDays, localDate } from './calendar.js';

export const SANDBOX_ISPB = '99999999';
export const PIX_RETURN_WINDOW_DAYS = 90;

/** Why a MED is opened: suspected fraud, or an operational flaw of the payer's institution (the DICT's refund request reasons FRAUD, OPERATIONAL_FLAW). */
export const MED_REASONS = ['fraud', 'operational_flaw'] as const;
/** Days after the payment (its São Paulo day + 80, whole) up to which a MED may be opened. */
export const MED_OPEN_WINDOW_DAYS = 80;
/** Calendar days the receiving institution has to analyse a MED: the sandbox decides it then, at the latest. */
export const MED_ANALYSIS_DAYS = 7;

export type PixIdKind = 'E' | 'D';

const ALPHANUMERIC = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SEQUENCE_RE = /^[A-Za-z0-9]{11}$/;
const PIX_ID_RE = /^([ED])(\d{8})(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})([A-Za-z0-9]{11})$/;

/**
 * The 11 characters that make an id unique, from at least 16 random bytes (the caller draws them,
 * e.g. crypto.randomBytes(16)): the bytes as one number, written in base 62 (the bias of the
 * reduction is below 10⁻¹⁸).
 */
export function pixIdSequence(random: Uint8Array): string {
  if (random.length < 16) throw new RangeError('pixIdSequence takes at least 16 random bytes');
  let n = 0n;
  for (const b of random) n = (n << 8n) | BigInt(b);
  let out = '';
  for (let i = 0; i < 11; i++) {
    out = ALPHANUMERIC[Number(n % 62n)]! + out;
    n /= 62n;
  }
  return out;
}

/** yyyyMMddHHmm of an instant, in UTC. */
function utcMinute(at: Date): string {
  if (!Number.isFinite(at.getTime())) throw new RangeError('not a valid instant');
  return at.toISOString().replace(/[-:T]/g, '').slice(0, 12);
}

/** An end-to-end (`E`) or return (`D`) id: kind + ISPB + UTC yyyyMMddHHmm + 11-character sequence. */
export function pixId(kind: PixIdKind, at: Date, sequence: string, ispb: string = SANDBOX_ISPB): string {
  if (!/^\d{8}$/.test(ispb)) throw new RangeError(`an ISPB is 8 digits, got ${JSON.stringify(ispb)}`);
  if (!SEQUENCE_RE.test(sequence)) throw new RangeError(`the sequence is 11 letters or digits, got ${JSON.stringify(sequence)}`);
  const stamp = utcMinute(at);
  if (stamp.length !== 12 || !/^\d{12}$/.test(stamp)) throw new RangeError('the instant must fall in the years 0000 to 9999');
  return kind + ispb + stamp + sequence;
}

/** A return's id (`D…`, the `return_id`), made at `at`. */
export function returnId(at: Date, sequence: string, ispb: string = SANDBOX_ISPB): string {
  return pixId('D', at, sequence, ispb);
}

export interface ParsedPixId {
  kind: PixIdKind;
  ispb: string;
  /** the minute it was made (UTC) */
  at: Date;
  sequence: string;
}

/** The parts of an end-to-end or return id, or null when it is not one (a date or minute that does not exist included). */
export function parsePixId(id: string): ParsedPixId | null {
  const m = PIX_ID_RE.exec(id);
  if (!m) return null;
  const [, kind, ispb, y, mo, d, h, mi, sequence] = m;
  const at = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi)));
  if (utcMinute(at) !== `${y}${mo}${d}${h}${mi}`) return null;
  return { kind: kind as PixIdKind, ispb: ispb!, at, sequence: sequence! };
}

/** A payment's São Paulo day: the day of an instant, or the day itself (yyyy-MM-dd). */
const dayOf = (paid: Date | string): string => (typeof paid === 'string' ? paid : localDate(paid));

/** The last São Paulo day on which a PIX paid at `paid` (an instant, or its São Paulo day) may be returned: its day + 90. */
export function lastReturnDay(paid: Date | string): string {
  return addDays(dayOf(paid), PIX_RETURN_WINDOW_DAYS);
}

/** Why a return asked for at `now` of a PIX paid at `paid` (an instant, or its São Paulo day) is refused, or null when it is in the window. */
export function returnWindowProblem(paid: Date | string, now: Date): string | null {
  const last = lastReturnDay(paid);
  return localDate(now) > last
    ? `a PIX may be returned up to ${PIX_RETURN_WINDOW_DAYS} days after it was paid (on ${dayOf(paid)}); the last day was ${last}`
    : null;
}

/** Why a MED opened at `now` of a PIX paid at `paid` (an instant, or its São Paulo day) is refused, or null when it is in the window. */
export function medWindowProblem(paid: Date | string, now: Date): string | null {
  const last = addDays(dayOf(paid), MED_OPEN_WINDOW_DAYS);
  return localDate(now) > last
    ? `a MED may be opened up to ${MED_OPEN_WINDOW_DAYS} days after the PIX was paid (on ${dayOf(paid)}); the last day was ${last}`
    : null;
}
