/**
 * The boleto's numbers against slips and worked examples published by banks, and against other
 * implementations' fixtures; every source is cited by URL beside its vectors. Where a value has
 * no published vector (the sandbox's bank code digit, the sandbox free field) the test computes
 * it with a reference written here from the rule's text, apart from src/domain/boleto.ts, and
 * says so.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bankCodeWithDigit,
  barcodeToDigitableLine,
  buildBarcode,
  buildFreeField,
  buildSandboxSlip,
  buildSlip,
  digitableLineToBarcode,
  dueDateFactor,
  factorDueDate,
  formatDigitableLine,
  generalCheckDigit,
  mod10,
  parseBoleto,
  parseFreeField,
  SANDBOX_BANK_CODE,
} from '../../src/domain/boleto.js';
import { addDays } from '../../src/domain/calendar.js';

// Banco do Brasil, "Especificações Técnicas para Confecção de Boleto de Pagamento do Banco do
// Brasil" (Doc5175Bloqueto.pdf), annexes III, V and VI, as kept at
const BB_DOC5175 =
  'https://github.com/fernandosavio/boleto-utils/blob/3ecfe06363c6a1819132c1de9643a25d77779a17/boleto-utils/documents/Doc5175Bloqueto.pdf';
// CAIXA, "Especificação do código de barras para boletos de cobrança no SIGCB" (67.119 v013),
// annexes I, II and V, as kept at
const CAIXA_67119 =
  'https://github.com/fernandosavio/boleto-utils/blob/3ecfe06363c6a1819132c1de9643a25d77779a17/boleto-utils/documents/ESP_COD_BARRAS_SIGCB_COBRANCA_CAIXA.pdf';
// Santander, "Cobrança – Código de Barras" (Julho 2022 v35), as kept at
const SANTANDER_V35 =
  'https://github.com/fernandosavio/boleto-utils/blob/3ecfe06363c6a1819132c1de9643a25d77779a17/boleto-utils/documents/Cobranca-Codigo-de-Barras-Julho-2022-v35-Santander.pdf';
void [BB_DOC5175, CAIXA_67119, SANTANDER_V35];

/** Slips whose barcode and printed line another source gives, each with where it comes from. */
const SLIPS: ReadonlyArray<{ source: string; barcode: string; line: string; bank: string; factor: number; firstEraDue: string | null; amountCents: number; remainder: number }> = [
  {
    // BB Doc5175, annex V (fields 1–3 check digits 5, 9, 4) and annex VI (sum 712, remainder 8, DV 3)
    source: BB_DOC5175,
    barcode: '00193373700000001000500940144816060680935031',
    line: '00190.50095 40144.816069 06809.350314 3 37370000000100',
    bank: '001',
    factor: 3737,
    firstEraDue: '2007-12-31',
    amountCents: 100,
    remainder: 8,
  },
  {
    // CAIXA 67.119, annex I (barcode built from its table: sum 788, remainder 7, DV 4) and annex V
    // (the printed line; field 1 "104900550" → 5); factor 3242 is 23/08/2006 in its table
    source: CAIXA_67119,
    barcode: '10494324200000321120055077222133347777777771',
    line: '10490.05505 77222.133348 77777.777713 4 32420000032112',
    bank: '104',
    factor: 3242,
    firstEraDue: '2006-08-23',
    amountCents: 32112,
    remainder: 7,
  },
  {
    // Santander v35, pp. 6–14: "IPTE COMPLETO: 033990282.7 0335666124.3 5780020101.4 8
    // 20460000027371"; barcode DV 8 (its worked sum); the barcode is its fields of p. 6
    source: SANTANDER_V35,
    barcode: '03398204600000273719028203356661245780020101',
    line: '03399.02827 03356.661243 57800.201014 8 20460000027371',
    bank: '033',
    factor: 2046,
    firstEraDue: '2003-05-15',
    amountCents: 27371,
    remainder: 3,
  },
  {
    // a CAIXA slip of R$ 214,03 due 2022-05-10, in the test suite of the boleto-utils npm package
    source: 'https://github.com/mrmgomes/boleto-utils/blob/350f6082f6dbdf7f149fd3b2987d157bd0c44152/test/test.js',
    barcode: '10499898100000214032006561000100040099726390',
    line: '10492006506100010004200997263900989810000021403',
    bank: '104',
    factor: 8981,
    firstEraDue: '2022-05-10',
    amountCents: 21403,
    remainder: 2,
  },
  {
    // remainder 0: 11 − 0 = 11, written 1 (brcobranca, Banco do Brasil, due 2016-07-05)
    source: 'https://github.com/kivanio/brcobranca/blob/325e0eae69ad298477b935a441a22c61c7556f31/spec/brcobranca/boleto/banco_brasil_spec.rb',
    barcode: '00191684600002246740000001474166000000032817',
    line: '00190.00009 01474.166004 00000.328179 1 68460000224674',
    bank: '001',
    factor: 6846,
    firstEraDue: '2016-07-05',
    amountCents: 224674,
    remainder: 0,
  },
  {
    // remainder 1: 11 − 1 = 10, written 1 (brcobranca, Banco do Brasil)
    source: 'https://github.com/kivanio/brcobranca/blob/325e0eae69ad298477b935a441a22c61c7556f31/spec/brcobranca/boleto/banco_brasil_spec.rb',
    barcode: '00191376900000135001238012345640420006190018',
    line: '00191.23801 12345.640424 00061.900189 1 37690000013500',
    bank: '001',
    factor: 3769,
    firstEraDue: '2008-02-01',
    amountCents: 13500,
    remainder: 1,
  },
  {
    // remainder 1 again, Itaú (brcobranca)
    source: 'https://github.com/kivanio/brcobranca/blob/325e0eae69ad298477b935a441a22c61c7556f31/spec/brcobranca/boleto/itau_spec.rb',
    barcode: '34191252500000135001960025828112345671234550',
    line: '34191.96005 25828.112349 56712.345505 1 25250000013500',
    bank: '341',
    factor: 2525,
    firstEraDue: '2004-09-05',
    amountCents: 13500,
    remainder: 1,
  },
  {
    // remainder 0 with a zero amount, Itaú (brcobranca)
    source: 'https://github.com/kivanio/brcobranca/blob/325e0eae69ad298477b935a441a22c61c7556f31/spec/brcobranca/boleto/itau_spec.rb',
    barcode: '34191432900000000001751234567840810536789000',
    line: '34191.75124 34567.840813 05367.890000 1 43290000000000',
    bank: '341',
    factor: 4329,
    firstEraDue: '2009-08-14',
    amountCents: 0,
    remainder: 0,
  },
];

/** Reference weighted sum, weights 2…9 from the right, written from the manuals' text (independent of the module). */
function refMod11Remainder(digits: string): number {
  const ds = [...digits].reverse().map(Number);
  const weights = [2, 3, 4, 5, 6, 7, 8, 9];
  return ds.reduce((s, d, i) => s + d * weights[i % 8]!, 0) % 11;
}

describe('the due-date factor', () => {
  it('first era, from the banks\' tables: 1000 is 2000-07-03 … 9999 is 2025-02-21', () => {
    // BB Doc5175 annex III and CAIXA 67.119 annex II (table "Fator / Vencimento")
    const table: Array<[string, number]> = [
      ['2000-07-03', 1000],
      ['2000-07-04', 1001],
      ['2000-07-05', 1002],
      ['2002-05-01', 1667],
      ['2010-11-17', 4789],
      ['2025-02-20', 9998], // the FEBRABAN "Manual Operacional do Fator de Vencimento" table
      ['2025-02-21', 9999],
      // Santander v35, p. 5: "1º 06/12/2000 = 1156, 2º 15/12/2000 = 1165, 3º 30/12/2000 = 1180"
      ['2000-12-06', 1156],
      ['2000-12-15', 1165],
      ['2000-12-30', 1180],
      ['2006-08-23', 3242], // CAIXA 67.119 annex I
    ];
    for (const [day, factor] of table) {
      expect(dueDateFactor(day), day).toBe(factor);
      expect(factorDueDate(factor, 1), String(factor)).toBe(day);
    }
  });

  it('second era: the count restarts at 1000 on 2025-02-22, and 9999 is 2049-10-13', () => {
    // CAIXA 67.119 annex II ("A partir do dia 22/02/2025 …"), BB Doc5175 annex III, Santander v35 p. 5
    const table: Array<[string, number]> = [
      ['2025-02-22', 1000],
      ['2025-02-23', 1001],
      ['2025-02-24', 1002],
      ['2026-12-21', 1667],
      ['2035-07-09', 4789],
      ['2049-10-13', 9999],
    ];
    for (const [day, factor] of table) {
      expect(dueDateFactor(day), day).toBe(factor);
      expect(factorDueDate(factor), String(factor)).toBe(day);
      expect(factorDueDate(factor, 2)).toBe(day);
    }
  });

  it('refuses days no factor expresses: the base date, before 2000-07-03, after 2049-10-13, not a date', () => {
    // the base date 1997-10-07 counts as day 0 (CAIXA: "03/07/2000 retrocedidos 1000 dias")
    expect(factorDueDate(1000, 1)).toBe(addDays('1997-10-07', 1000));
    for (const bad of ['1997-10-07', '2000-07-02', '2049-10-14', '2099-01-01', '2025-02-30', '22/02/2025']) {
      expect(() => dueDateFactor(bad), bad).toThrow(RangeError);
    }
    for (const bad of [0, 999, 10000, 1000.5, Number.NaN]) expect(() => factorDueDate(bad), String(bad)).toThrow(RangeError);
  });

  it('every day of both eras round-trips, and consecutive days have consecutive factors', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 * 9000 - 1 }), (n) => {
        const era = n < 9000 ? 1 : 2;
        const factor = 1000 + (n % 9000);
        const day = factorDueDate(factor, era);
        expect(dueDateFactor(day)).toBe(factor);
        if (factor < 9999) expect(dueDateFactor(addDays(day, 1))).toBe(factor + 1);
      }),
    );
  });
});

describe('check digits', () => {
  it('mod 10 of the line\'s fields, as the manuals work them', () => {
    expect(mod10('001905009')).toBe(5); // BB Doc5175 annex V: field 1, sum 25
    expect(mod10('4014481606')).toBe(9); // field 2, sum 31
    expect(mod10('0680935031')).toBe(4); // field 3, sum 36
    expect(mod10('104900550')).toBe(5); // CAIXA 67.119 annex V: "NÚMERO EXEMPLO: 104900550", DV 5
    expect(mod10('033990282')).toBe(7); // Santander v35 p. 11: sum 43, remainder 3
    expect(mod10('0335666124')).toBe(3); // p. 12: sum 37
    expect(mod10('5780020101')).toBe(4); // p. 13: sum 26
    expect(mod10('0')).toBe(0); // a sum that is a multiple of 10 gives 0, not 10
  });

  it('the general digit (mod 11) of every published slip, including the results 10 and 11 written 1', () => {
    for (const s of SLIPS) {
      const rest = s.barcode.slice(0, 4) + s.barcode.slice(5);
      expect(refMod11Remainder(rest), s.barcode).toBe(s.remainder);
      expect(generalCheckDigit(rest), s.barcode).toBe(Number(s.barcode[4]));
    }
    expect(SLIPS.some((s) => s.remainder === 0) && SLIPS.some((s) => s.remainder === 1)).toBe(true);
    expect(() => generalCheckDigit('123')).toThrow(RangeError);
  });

  it('the general digit is never 0 (property)', () => {
    fc.assert(fc.property(fc.stringMatching(/^\d{43}$/), (d) => generalCheckDigit(d) >= 1 && generalCheckDigit(d) <= 9));
  });

  it('the printed bank code digit: 104-0 (CAIXA 67.119), 033-7 (Santander v35 p. 8), and the sandbox\'s 999-7', () => {
    expect(bankCodeWithDigit('104')).toBe('104-0');
    expect(bankCodeWithDigit('033')).toBe('033-7');
    // no published vector for 999: the reference rule here (11 − remainder, 10 and 11 → 0)
    const ref = (code: string) => {
      const d = 11 - refMod11Remainder(code);
      return d >= 10 ? 0 : d;
    };
    expect(ref('999')).toBe(7);
    expect(bankCodeWithDigit()).toBe(`${SANDBOX_BANK_CODE}-7`);
  });
});

describe('barcode and digitable line', () => {
  it('every published slip: barcode ↔ line, both forms, and its fields read back', () => {
    for (const s of SLIPS) {
      const plain = s.line.replace(/[.\s]/g, '');
      expect(barcodeToDigitableLine(s.barcode), s.source).toBe(plain);
      expect(digitableLineToBarcode(s.line), s.source).toBe(s.barcode);
      expect(digitableLineToBarcode(plain), s.source).toBe(s.barcode);
      if (s.line.includes(' ')) expect(formatDigitableLine(plain)).toBe(s.line);
      const r = parseBoleto(s.line);
      expect(r.ok, s.source).toBe(true);
      if (!r.ok) continue;
      expect(r.boleto).toMatchObject({ barcode: s.barcode, digitableLine: plain, bankCode: s.bank, currency: '9', factor: s.factor, amountCents: s.amountCents });
      expect(r.boleto.freeField).toBe(s.barcode.slice(19));
      // a parsed factor is read in the current era; the slip's own due date is its first-era day
      expect(r.boleto.dueDate).toBe(factorDueDate(s.factor));
      expect(factorDueDate(s.factor, 1)).toBe(s.firstEraDue);
    }
  });

  it('builds the published slips from their parts', () => {
    // CAIXA 67.119 annex I: 104, 9, 23/08/2006, R$ 321,12, free field 0055077 222 1 333 4 777777777 1
    // (buildBarcode writes the factor of the era the day falls in: here the first)
    expect(buildSlip({ bankCode: '104', dueDate: '2006-08-23', amountCents: 32112, freeField: '0055077222133347777777771' })).toEqual({
      barcode: '10494324200000321120055077222133347777777771',
      digitableLine: '10490055057722213334877777777713432420000032112',
      formattedLine: '10490.05505 77222.133348 77777.777713 4 32420000032112',
    });
    // Santander v35 p. 6: 033, 9, factor 2046, R$ 273,71, 9 0282033 5666124578002 0 101 → DV 8
    expect(buildBarcode({ bankCode: '033', dueDate: '2003-05-15', amountCents: 27371, freeField: '9028203356661245780020101' })).toBe(
      '03398204600000273719028203356661245780020101',
    );
  });

  it('names the check digit that is wrong', () => {
    const line = '10490.05505 77222.133348 77777.777713 4 32420000032112';
    const flip = (s: string, at: number) => s.slice(0, at) + String((Number(s[at]) + 1) % 10) + s.slice(at + 1);
    const plain = line.replace(/[.\s]/g, '');
    expect(parseBoleto(flip(plain, 9))).toEqual({ ok: false, message: 'field 1 of the digitable line ends in 6, but its check digit is 5' });
    expect(parseBoleto(flip(plain, 20))).toEqual({ ok: false, message: 'field 2 of the digitable line ends in 9, but its check digit is 8' });
    expect(parseBoleto(flip(plain, 31))).toEqual({ ok: false, message: 'field 3 of the digitable line ends in 4, but its check digit is 3' });
    expect(parseBoleto(flip(plain, 32))).toEqual({ ok: false, message: 'the general check digit is 5, but the digits give 4' });
    // a changed amount keeps the fields' digits but not the general one
    expect(parseBoleto(flip(plain, 46))).toMatchObject({ ok: false, message: expect.stringContaining('general check digit') });
    expect(() => digitableLineToBarcode(flip(plain, 9))).toThrow('field 1');
    expect(() => barcodeToDigitableLine(flip('10494324200000321120055077222133347777777771', 4))).toThrow('general check digit');
    expect(parseBoleto('1049')).toEqual({ ok: false, message: 'must be a barcode of 44 digits or a digitable line of 47, got 4 digits' });
    expect(parseBoleto('10490-05505')).toMatchObject({ ok: false });
    // a utility bill's barcode (segment 8; the boleto-utils suite's energy bill) is not a boleto
    expect(parseBoleto('83860000005096000190000008017823000034306271')).toMatchObject({ ok: false, message: expect.stringContaining('arrecadação') });
    // a factor of 1 to 999 names no day; 0000 is a slip without a due date
    const noDue = buildBarcode({ bankCode: '999', dueDate: '2026-01-01', amountCents: 1, freeField: '0'.repeat(25) });
    const withFactor = (f: string) => {
      const rest = noDue.slice(0, 4) + f + noDue.slice(9);
      return rest.slice(0, 4) + generalCheckDigit(rest) + rest.slice(4);
    };
    expect(parseBoleto(withFactor('0999'))).toMatchObject({ ok: false, message: expect.stringContaining('names no day') });
    expect(parseBoleto(withFactor('0000'))).toMatchObject({ ok: true, boleto: { factor: 0, dueDate: null } });
  });

  it('refuses what a barcode cannot hold', () => {
    const ok = { bankCode: '999', dueDate: '2026-03-10', amountCents: 1000, freeField: '0'.repeat(25) };
    expect(() => buildBarcode({ ...ok, amountCents: 10_000_000_000 })).toThrow('0 to 9999999999 cents');
    expect(() => buildBarcode({ ...ok, amountCents: -1 })).toThrow(RangeError);
    expect(() => buildBarcode({ ...ok, amountCents: 10.5 })).toThrow(RangeError);
    expect(() => buildBarcode({ ...ok, bankCode: '99' })).toThrow('bank code');
    expect(() => buildBarcode({ ...ok, freeField: '1'.repeat(24) })).toThrow('free field');
    expect(() => buildBarcode({ ...ok, dueDate: '2050-01-01' })).toThrow('2049-10-13');
  });
});

describe('the sandbox slip', () => {
  it('bank 999, agency, account, nosso número and the free field\'s mod-11 digit', () => {
    // no published vector: the digit is recomputed here by the reference rule (11 − remainder, 10 and 11 → 0)
    const free = buildFreeField({ agency: '0001', account: '12345678', ourNumber: 42 });
    expect(free.slice(0, 24)).toBe('000112345678000000000042');
    const d = 11 - refMod11Remainder(free.slice(0, 24));
    expect(Number(free[24])).toBe(d >= 10 ? 0 : d);
    expect(parseFreeField(free)).toEqual({ agency: '0001', account: '12345678', ourNumber: 42 });
    expect(parseFreeField(free.slice(0, 24) + String((Number(free[24]) + 1) % 10))).toBeNull();

    const slip = buildSandboxSlip({ dueDate: '2026-03-10', amountCents: 15_000, account: '12345678', ourNumber: 42 });
    expect(slip.barcode.slice(0, 4)).toBe('9999');
    expect(slip.barcode.slice(5, 19)).toBe('13810000015000'); // 2026-03-10 is 381 days after 2025-02-22: factor 1381
    expect(slip.barcode.slice(19)).toBe(free);
    expect(slip.formattedLine).toMatch(/^\d{5}\.\d{5} \d{5}\.\d{6} \d{5}\.\d{6} \d \d{14}$/);
    expect(() => buildFreeField({ agency: '0001', account: '12345678', ourNumber: 0 })).toThrow(RangeError);
    expect(() => buildFreeField({ agency: '0001', account: '1234567', ourNumber: 1 })).toThrow('account');
  });

  it('round trips: any slip reads back to what built it, from either form (property)', () => {
    const day = fc.integer({ min: 0, max: 8999 }).map((n) => factorDueDate(1000 + n));
    fc.assert(
      fc.property(
        day,
        fc.integer({ min: 0, max: 9_999_999_999 }),
        fc.stringMatching(/^\d{4}$/),
        fc.stringMatching(/^\d{8}$/),
        fc.integer({ min: 1, max: 999_999_999_999 }),
        (dueDate, amountCents, agency, account, ourNumber) => {
          const slip = buildSandboxSlip({ dueDate, amountCents, agency, account, ourNumber });
          for (const form of [slip.barcode, slip.digitableLine, slip.formattedLine]) {
            const r = parseBoleto(form);
            if (!r.ok) throw new Error(r.message);
            expect(r.boleto).toMatchObject({ barcode: slip.barcode, digitableLine: slip.digitableLine, bankCode: '999', dueDate, amountCents });
            expect(parseFreeField(r.boleto.freeField)).toEqual({ agency, account, ourNumber });
          }
          expect(digitableLineToBarcode(barcodeToDigitableLine(slip.barcode))).toBe(slip.barcode);
        },
      ),
    );
  });

  it('any single changed digit of a line is caught (property)', () => {
    const slip = buildSandboxSlip({ dueDate: '2026-03-10', amountCents: 15_000, account: '12345678', ourNumber: 42 });
    // remainders 0, 1 and 10 all give the digit 1, so a change between them would pass: this
    // slip's remainder is none of them, and any change of field 5 moves it
    expect([0, 1, 10]).not.toContain(refMod11Remainder(slip.barcode.slice(0, 4) + slip.barcode.slice(5)));
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 46 }), fc.integer({ min: 1, max: 9 }), (at, plus) => {
        const line = slip.digitableLine;
        const changed = line.slice(0, at) + String((Number(line[at]) + plus) % 10) + line.slice(at + 1);
        expect(parseBoleto(changed).ok).toBe(false);
      }),
    );
  });
});
