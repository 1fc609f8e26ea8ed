/**
 * PIX with a due date: its BR Code and `/cobv/` location, against the Banco Central's examples:
 * - Manual de Padrões para Iniciação do Pix v2.6.2, 1.6.2–1.6.3 and its dynamic BR Code example:
 *   https://www.bcb.gov.br/content/estabilidadefinanceira/pix/Regulamento_Pix/II_ManualdePadroesparaIniciacaodoPix.pdf
 * - API Pix (OpenAPI), its `cobv` location example:
 *   https://github.com/bacen/pix-api/blob/1f1b568f6adf5b55a6268efbaf62802a14b01941/openapi.yaml
 */
import { describe, expect, it } from 'vitest';
import { buildBrCode, crc16ccitt, parseBrCode } from '../../src/domain/brcode.js';
import { buildDueBrCode, pixLocation } from '../../src/domain/pixCobv.js';
import { PIX_LOCATION_HOST } from '../../src/domain/sandbox.js';

describe('the BR Code of a PIX charge with a due date', () => {
  it('a dynamic code without an amount is laid out as the manual\'s example', () => {
    // Manual 1.6.x: "00020101021226700014br.gov.bcb.pix2548pix.example.com/8b3da2f39a4140d1a91abd93113bd441
    // 5204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***630464E4" (no field 54)
    const manual =
      '00020101021226700014br.gov.bcb.pix2548pix.example.com/8b3da2f39a4140d1a91abd93113bd4415204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***630464E4';
    expect(crc16ccitt(manual.slice(0, -4))).toBe('64E4');
    const ours = buildBrCode({ location: 'pix.example.com/8b3da2f39a4140d1a91abd93113bd441', merchantName: 'Fulano de Tal', merchantCity: 'BRASILIA' });
    // names are written upper-case without accents (brcode.ts), the rest byte for byte
    expect(ours.slice(0, -4)).toBe(manual.slice(0, -4).replace('Fulano de Tal', 'FULANO DE TAL'));
    expect(parseBrCode(ours).crcValid).toBe(true);
  });

  it('its location ends in /cobv/{txid}, as the API Pix\'s example', () => {
    expect(pixLocation('cobv', '2353c790eefb11eaadc10242ac120002', 'pix.example.com/qr')).toBe('pix.example.com/qr/v2/cobv/2353c790eefb11eaadc10242ac120002');
    // the immediate charge's location is the one the server builds today
    const txid = '0190c1f4-2b3a-7c00-8a5e-123456789abc'.replace(/-/g, '');
    expect(pixLocation('cob', txid)).toBe(`${PIX_LOCATION_HOST}/v2/cob/${txid}`);
    const code = buildDueBrCode({ txid, merchantName: 'Loja Ótima', merchantCity: 'São Paulo' });
    const { fields, crcValid } = parseBrCode(code);
    expect(crcValid).toBe(true);
    expect(fields['26']).toBe(`0014br.gov.bcb.pix25${String(PIX_LOCATION_HOST.length + 9 + 32).padStart(2, '0')}${PIX_LOCATION_HOST}/v2/cobv/${txid}`);
    expect(fields['54']).toBeUndefined();
    expect(fields['01']).toBe('12');
    expect(fields['59']).toBe('LOJA OTIMA');
    // an immediate charge still carries its amount
    expect(parseBrCode(buildBrCode({ location: pixLocation('cob', txid), amountCents: 1050, merchantName: 'x', merchantCity: 'y' })).fields['54']).toBe('10.50');
  });

  it('refuses a txid that is not 26 to 35 letters and digits, and a location longer than 77', () => {
    expect(() => pixLocation('cobv', 'a'.repeat(25))).toThrow('26 to 35');
    expect(() => pixLocation('cobv', 'a'.repeat(36))).toThrow('26 to 35');
    expect(() => pixLocation('cobv', `${'a'.repeat(25)}-`)).toThrow(RangeError);
    expect(() => pixLocation('cobv', 'a'.repeat(35), 'x'.repeat(35))).toThrow('at most 77');
  });
});
