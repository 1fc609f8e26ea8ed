/**
 * PIX with a due date ("cobv") in the BR Code: the location and the code itself. Pure.
 *
 * BCB, Manual de Padrões para Iniciação do Pix, 1.6.2–1.6.3:
 * - A dynamic code's location is `{fqdn}/{pixEndpoint}/{pixUrlAccessToken}`, without the scheme,
 *   at most 77 characters; a `pixEndpoint` ending in `/cobv/` marks a charge with a due date
 *   (the API Pix's example: pix.example.com/qr/v2/cobv/2353c790eefb11eaadc10242ac120002).
 * - A dynamic code need not carry the amount (field 54) or the txid (62.05): the payer's PSP
 *   reads them from the payload at the location, which for a `cobv` states the amount due on the
 *   intended day of payment (src/domain/dueAmount.ts). So a `cobv` code leaves field 54 out: no
 *   single amount is right on every day.
 * - A txid is 26 to 35 letters and digits.
 *
 * The sandbox's locations are `{PIX_LOCATION_HOST}/v2/cob/{txid}` for an immediate charge (as
 * the server builds them today) and `{PIX_LOCATION_HOST}/v2/cobv/{txid}` for one with a due date.
 */
import { buildBrCode } from './brcode.js';
import { PIX_LOCATION_HOST } from './sandbox.js';

export type PixChargeKind = 'cob' | 'cobv';

/** A txid of a dynamic charge: 26 to 35 letters and digits (a UUID without its hyphens fits). */
export const PIX_TXID_RE = /^[A-Za-z0-9]{26,35}$/;
/** The longest location (without the scheme) a BR Code may carry. */
export const MAX_PIX_LOCATION_LENGTH = 77;

/** `{host}/v2/{kind}/{txid}`: where the charge's payload is served. */
export function pixLocation(kind: PixChargeKind, txid: string, host: string = PIX_LOCATION_HOST): string {
  if (!PIX_TXID_RE.test(txid)) throw new RangeError(`a txid is 26 to 35 letters and digits, got ${JSON.stringify(txid)}`);
  const location = `${host}/v2/${kind}/${txid}`;
  if (location.length > MAX_PIX_LOCATION_LENGTH) throw new RangeError(`a BR Code location is at most ${MAX_PIX_LOCATION_LENGTH} characters, got ${location.length}`);
  return location;
}

export interface DueBrCodeInput {
  txid: string;
  merchantName: string;
  merchantCity: string;
  /** default PIX_LOCATION_HOST */
  host?: string;
}

/** The BR Code ("copia e cola") of a PIX charge with a due date: a `/cobv/` location, no amount. */
export function buildDueBrCode(p: DueBrCodeInput): string {
  return buildBrCode({ location: pixLocation('cobv', p.txid, p.host), merchantName: p.merchantName, merchantCity: p.merchantCity });
}
