/**
 * PIX returns: the `D…` id (and the `E…` end-to-end id of the same form) and the 90-day window,
 * against the API Pix's examples of `rtrId` and `endToEndId` and its rule for returns
 * ("90 dias desde a data de liquidação original do pix"):
 * https://github.com/bacen/pix-api/blob/1f1b568f6adf5b55a6268efbaf62802a14b01941/openapi.yaml
 * The date and minute in an id are UTC (BCB's message catalogue, as
 * https://starkinfra.zendesk.com/hc/en-us/articles/42184580226587-EndToEndId-Validity-in-Pix-Understanding-How-It-Works
 * quotes it).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lastReturnDay, parsePixId, pixId, pixIdSequence, returnId, returnWindowProblem, SANDBOX_ISPB } from '../../src/domain/pixReturns.js';

describe('PIX end-to-end and return ids', () => {
  it('reads and writes the API Pix\'s examples', () => {
    const examples: Array<[string, string, string, string]> = [
      ['D12345678202009091000abcde123456', '12345678', '2020-09-09T10:00:00.000Z', 'abcde123456'],
      ['D12345678202009091221abcdf098765', '12345678', '2020-09-09T12:21:00.000Z', 'abcdf098765'],
      ['D1234567820200909122120200808006', '12345678', '2020-09-09T12:21:00.000Z', '20200808006'],
      ['E12345678202406201221abcdef12345', '12345678', '2024-06-20T12:21:00.000Z', 'abcdef12345'],
    ];
    for (const [id, ispb, at, sequence] of examples) {
      const p = parsePixId(id);
      expect(p, id).toEqual({ kind: id[0], ispb, at: new Date(at), sequence });
      expect(pixId(id[0] as 'E' | 'D', new Date(at), sequence, ispb)).toBe(id);
    }
    expect(returnId(new Date('2020-09-09T10:00:59.999Z'), 'abcde123456', '12345678')).toBe('D12345678202009091000abcde123456');
  });

  it('a return id: D, the sandbox ISPB, the UTC minute, 11 letters or digits — 32 characters', () => {
    // 23:59 on 10 March in São Paulo is 02:59 UTC on the 11th: the id carries UTC
    const id = returnId(new Date('2026-03-11T02:59:30Z'), 'Zz09AaBb1Cc');
    expect(id).toBe(`D${SANDBOX_ISPB}202603110259Zz09AaBb1Cc`);
    expect(id).toMatch(/^[a-zA-Z0-9]{32}$/); // the API Pix's pattern for rtrId
    expect(() => returnId(new Date('2026-03-11T02:59:30Z'), 'short')).toThrow('11 letters or digits');
    expect(() => returnId(new Date('2026-03-11T02:59:30Z'), 'abcde12345-')).toThrow(RangeError);
    expect(() => pixId('D', new Date(Number.NaN), 'abcde123456')).toThrow(RangeError);
    expect(() => pixId('D', new Date(), 'abcde123456', '1234567')).toThrow('ISPB');
  });

  it('refuses what is not an id: a day or minute that does not exist, a wrong kind or length', () => {
    for (const bad of ['D12345678202002301000abcde123456', 'D12345678202009092400abcde123456', 'D12345678202009091060abcde123456', 'X12345678202009091000abcde123456', 'D12345678202009091000abcde12345', 'D12345678202009091000abcde12345_']) {
      expect(parsePixId(bad), bad).toBeNull();
    }
  });

  it('the sequence is the random bytes in base 62, 11 characters', () => {
    expect(pixIdSequence(new Uint8Array(16))).toBe('00000000000');
    // reference: (2¹²⁸ − 1) mod 62¹¹ written in base 62, digits then upper then lower case
    const digits = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
    let n = (2n ** 128n - 1n) % 62n ** 11n;
    let ref = '';
    for (let i = 0; i < 11; i++, n /= 62n) ref = digits[Number(n % 62n)] + ref;
    expect(pixIdSequence(new Uint8Array(16).fill(255))).toBe(ref);
    expect(() => pixIdSequence(new Uint8Array(15))).toThrow('16 random bytes');
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 32 }), fc.date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true }), (bytes, at) => {
        const sequence = pixIdSequence(bytes);
        expect(sequence).toMatch(/^[A-Za-z0-9]{11}$/);
        const id = returnId(at, sequence);
        const p = parsePixId(id);
        expect(p).toEqual({ kind: 'D', ispb: SANDBOX_ISPB, at: new Date(Math.floor(at.getTime() / 60_000) * 60_000), sequence });
      }),
    );
  });
});

describe('the window for a PIX return', () => {
  it('up to 90 days after the payment\'s São Paulo day, that whole day included', () => {
    const paidAt = new Date('2026-03-10T15:00:00Z'); // 12:00 on 10 March in São Paulo
    expect(lastReturnDay(paidAt)).toBe('2026-06-08'); // 21 days of March, 30 of April, 31 of May, 8 of June
    expect(returnWindowProblem(paidAt, new Date('2026-03-10T15:00:01Z'))).toBeNull();
    expect(returnWindowProblem(paidAt, new Date('2026-06-09T02:59:59Z'))).toBeNull(); // 23:59:59 on 8 June in São Paulo
    expect(returnWindowProblem(paidAt, new Date('2026-06-09T03:00:00Z'))).toBe(
      'a PIX may be returned up to 90 days after it was paid (on 2026-03-10); the last day was 2026-06-08',
    );
    // paid at 23:30 on 10 March in São Paulo (02:30 UTC on the 11th): its day is the 10th
    expect(lastReturnDay(new Date('2026-03-11T02:30:00Z'))).toBe('2026-06-08');
  });
});
