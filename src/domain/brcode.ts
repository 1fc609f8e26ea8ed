/**
 * PIX BR Code ("copia e cola"): an EMV Merchant-Presented QR payload (BCB's "Manual de
 * Padrões para Iniciação do Pix"). Each field is ID (2 digits) + length (2 digits) + value;
 * field 63 closes the payload with a CRC16-CCITT (polynomial 0x1021, initial 0xFFFF) over
 * everything before it, "6304" included, as 4 uppercase hex digits.
 */

export function crc16ccitt(text: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

function tlv(id: string, value: string): string {
  const len = Buffer.byteLength(value, 'utf8');
  if (len > 99) throw new RangeError(`BR Code field ${id} is longer than 99 bytes`);
  return id + String(len).padStart(2, '0') + value;
}

/** Upper-case ASCII without accents, at most `max` characters (names and cities in a BR Code). */
export function brCodeText(s: string, max: number): string {
  const t = s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9 .-]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .toUpperCase()
    .slice(0, max)
    .trim();
  return t || 'MPAY';
}

export interface DynamicBrCode {
  /** URL of the payload location, without the scheme (field 26.25) */
  location: string;
  /**
   * Field 54. Omit it for a charge whose amount depends on the day it is paid (a `cobv`): the
   * BCB manual (1.6.2) says a dynamic code need not carry the amount, the payer's PSP takes it
   * from the location's payload.
   */
  amountCents?: number;
  merchantName: string;
  merchantCity: string;
}

/**
 * A dynamic, single-use BR Code (point of initiation 12), for an exact amount or (amountCents
 * omitted) for the amount the location's payload states on the day of payment. The txid travels
 * in the location's payload, so field 62.05 carries `***`, as the BCB manual requires of a
 * dynamic code.
 */
export function buildBrCode(p: DynamicBrCode): string {
  const amount = p.amountCents === undefined ? '' : tlv('54', `${Math.floor(p.amountCents / 100)}.${String(p.amountCents % 100).padStart(2, '0')}`);
  const body =
    tlv('00', '01') +
    tlv('01', '12') +
    tlv('26', tlv('00', 'br.gov.bcb.pix') + tlv('25', p.location)) +
    tlv('52', '0000') +
    tlv('53', '986') +
    amount +
    tlv('58', 'BR') +
    tlv('59', brCodeText(p.merchantName, 25)) +
    tlv('60', brCodeText(p.merchantCity, 15)) +
    tlv('62', tlv('05', '***')) +
    '6304';
  return body + crc16ccitt(body);
}

/** Parses the top-level fields of a BR Code (for tests and tools); checks the CRC. */
export function parseBrCode(code: string): { fields: Record<string, string>; crcValid: boolean } {
  const fields: Record<string, string> = {};
  let i = 0;
  while (i < code.length) {
    const id = code.slice(i, i + 2);
    const len = Number(code.slice(i + 2, i + 4));
    if (!/^\d{2}$/.test(id) || !Number.isInteger(len)) throw new Error(`malformed BR Code at ${i}`);
    fields[id] = code.slice(i + 4, i + 4 + len);
    i += 4 + len;
  }
  const crcValid = code.length > 8 && code.slice(-8, -4) === '6304' && crc16ccitt(code.slice(0, -4)) === code.slice(-4);
  return { fields, crcValid };
}
