import { describe, expect, it } from 'vitest';
import { luhnValid } from '../../src/domain/luhn.js';
import { detectBrand } from '../../src/domain/brands.js';
import { cnpjCheckDigits, isValidCnpj, isValidCpf } from '../../src/domain/taxid.js';
import { formatBRL, parseBRL, percentOf, splitInstallments } from '../../src/domain/money.js';
import { assertTransition, canTransition, InvalidTransitionError } from '../../src/domain/lifecycle.js';
import { uuidv7 } from '../../src/domain/ids.js';

describe('Luhn', () => {
  it.each(['4111111111111111', '5555555555554444', '378282246310005', '6011111111111117', '4000000000000002'])('accepts %s', (n) =>
    expect(luhnValid(n)).toBe(true),
  );
  it.each(['4111111111111112', '1234567812345678', '', '41111111111a1111'])('refuses %s', (n) => expect(luhnValid(n)).toBe(false));
});

describe('BIN brands (longest prefix wins)', () => {
  it.each([
    ['4111111111111111', 'visa'],
    ['5555555555554444', 'mastercard'],
    ['2221000000000009', 'mastercard'],
    ['2720990000000000', 'mastercard'],
    ['378282246310005', 'amex'],
    ['341111111111111', 'amex'],
    ['30569309025904', 'diners'],
    ['38520000023237', 'diners'],
    ['3530111333300000', 'jcb'],
    ['6011111111111117', 'discover'],
    ['6221260000000000', 'discover'],
    ['6500000000000000', 'discover'],
    // Elo and Hipercard BINs inside Visa, Diners and Discover ranges
    ['6362970000457013', 'elo'],
    ['6363680000000000', 'elo'],
    ['4389350000000000', 'elo'],
    ['4514160000000000', 'elo'],
    ['5041750000000000', 'elo'],
    ['5090480000000000', 'elo'],
    ['5090750000000000', 'elo'],
    ['3629700000000000', 'elo'],
    ['6500310000000000', 'elo'],
    ['6062825624254001', 'hipercard'],
    ['6370950000000000', 'hipercard'],
    ['6376120000000000', 'hipercard'],
  ])('%s is %s', (n, brand) => expect(detectBrand(n)).toBe(brand));

  it('knows the edges of a range', () => {
    expect(detectBrand('5066980000000000')).toBeNull(); // just below Elo's 506699
    expect(detectBrand('5067780000000000')).toBe('elo');
    expect(detectBrand('5067790000000000')).toBeNull();
    expect(detectBrand('2220990000000000')).toBeNull();
    expect(detectBrand('9999999999999999')).toBeNull();
  });
});

describe('CPF and CNPJ', () => {
  it('accepts real CPFs and refuses wrong check digits and repeated digits', () => {
    expect(isValidCpf('52998224725')).toBe(true);
    expect(isValidCpf('11144477735')).toBe(true);
    expect(isValidCpf('52998224724')).toBe(false);
    expect(isValidCpf('11111111111')).toBe(false);
    expect(isValidCpf('5299822472')).toBe(false);
    expect(isValidCpf('529.982.247-25')).toBe(false);
  });

  it('accepts numeric CNPJs and refuses wrong ones', () => {
    expect(isValidCnpj('11222333000181')).toBe(true);
    expect(isValidCnpj('11222333000182')).toBe(false);
    expect(isValidCnpj('00000000000000')).toBe(false);
    expect(isValidCnpj('1122233300018')).toBe(false);
  });

  it('accepts the alphanumeric CNPJ (letters weigh ASCII - 48)', () => {
    // The Receita Federal example: 12.ABC.345/01DE-35
    expect(cnpjCheckDigits('12ABC34501DE')).toBe('35');
    expect(isValidCnpj('12ABC34501DE35')).toBe(true);
    expect(isValidCnpj('12ABC34501DE36')).toBe(false);
    expect(isValidCnpj('12abc34501de35')).toBe(false);
    expect(isValidCnpj('AAAAAAAAAAAA00')).toBe(false);
  });
});

describe('money in integer cents', () => {
  it('rounds fees half up to the cent', () => {
    expect(percentOf(10000, 299)).toBe(299); // R$ 100,00 × 2.99 %
    expect(percentOf(1050, 299)).toBe(31); // 31.395 → 31
    expect(percentOf(1500, 299)).toBe(45); // 44.85 → 45
    expect(percentOf(50, 100)).toBe(1); // 0.5 → 1 (half up)
    expect(percentOf(49, 100)).toBe(0);
  });
  it('puts the installment remainder on the first installment', () => {
    expect(splitInstallments(10000, 3)).toEqual([3334, 3333, 3333]);
    expect(splitInstallments(100, 7)).toEqual([16, 14, 14, 14, 14, 14, 14]);
    expect(splitInstallments(5, 1)).toEqual([5]);
  });
  it('refuses non-integer amounts', () => {
    expect(() => percentOf(10.5, 299)).toThrow(RangeError);
    expect(() => splitInstallments(100, 0)).toThrow(RangeError);
  });
  it('formats BRL for tables', () => {
    expect(formatBRL(123456)).toBe('R$ 1.234,56');
    expect(formatBRL(5)).toBe('R$ 0,05');
    expect(formatBRL(-100000000)).toBe('-R$ 1.000.000,00');
  });
  it('reads reais as people type them (the checkout page and the CLI prompts share it)', () => {
    expect(parseBRL('1.500,00')).toBe(150000);
    expect(parseBRL('R$ 1.234,5')).toBe(123450);
    expect(parseBRL('1234.56')).toBe(123456);
    expect(parseBRL('1.234')).toBe(123400);
    expect(parseBRL('79.9')).toBe(7990);
    expect(parseBRL(' R$ 50 ')).toBe(5000);
    for (const bad of ['', 'abc', '12,345', '1,2,3', '-5', '1.23.456', '1234567890123']) expect(parseBRL(bad), bad).toBeNull();
  });
});

describe('lifecycles', () => {
  it('allows only the moves of the table', () => {
    expect(canTransition('charge', 'pending', 'captured')).toBe(true);
    expect(canTransition('charge', 'failed', 'captured')).toBe(false);
    expect(() => assertTransition('withdrawal', 'completed', 'failed')).toThrow(InvalidTransitionError);
    expect(() => assertTransition('withdrawal', 'pending', 'completed')).toThrow(/can move to: processing, failed/);
  });
});

describe('ids', () => {
  it('uuidv7 is a version-7 UUID that sorts by time', () => {
    const a = uuidv7(1_700_000_000_000);
    const b = uuidv7(1_700_000_000_001);
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(a < b).toBe(true);
    // its first 48 bits are the milliseconds (1 700 000 000 000 = 0x018bcfe56800)
    expect(a.slice(0, 13)).toBe('018bcfe5-6800');
  });

  it('ids made in one millisecond sort in the order they were made', () => {
    const ids = Array.from({ length: 5000 }, () => uuidv7(1_800_000_000_000));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
