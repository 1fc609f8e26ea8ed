import { describe, expect, it } from 'vitest';
import { taxIdProblem } from '../../src/domain/taxid.js';
import { ageOn, anniversary, birthDateProblem, checkBirthDate } from '../../src/domain/onboarding.js';

describe('taxIdProblem: the messages the server answers and the onboarding wizard shows', () => {
  it('accepts a CPF for pf and a CNPJ (numeric or alphanumeric) for pj', () => {
    expect(taxIdProblem('52998224725', 'pf')).toBeNull();
    expect(taxIdProblem('11222333000181', 'pj')).toBeNull();
    expect(taxIdProblem('12ABC34501DE35', 'pj')).toBeNull();
  });
  it('names the wrong kind, the wrong length, repeated digits and bad check digits', () => {
    expect(taxIdProblem('11222333000181', 'pf')).toMatch(/is a CNPJ, but entity_type is pf/);
    expect(taxIdProblem('52998224725', 'pj')).toMatch(/is a CPF, but entity_type is pj/);
    expect(taxIdProblem('5299822472', 'pf')).toBe('must be a CPF of 11 digits for entity_type pf');
    expect(taxIdProblem('11111111111', 'pf')).toBe('is not a valid CPF (all digits are the same)');
    expect(taxIdProblem('52998224726', 'pf')).toBe('is not a valid CPF (the check digits do not match)');
    expect(taxIdProblem('1122233300018', 'pj')).toMatch(/must be a CNPJ of 14 characters/);
    expect(taxIdProblem('AAAAAAAAAAAAAA', 'pj')).toMatch(/must be a CNPJ of 14 characters/);
    expect(taxIdProblem('00000000000000', 'pj')).toBe('is not a valid CNPJ (all characters are the same)');
    expect(taxIdProblem('12ABC34501DE36', 'pj')).toBe('is not a valid CNPJ (the check digits do not match)');
  });
});

describe('birthDateProblem', () => {
  const today = new Date('2026-03-01T12:00:00Z');
  it('accepts a real past date, and today when age does not matter', () => {
    expect(birthDateProblem('1985-04-12', today)).toBeNull();
    expect(birthDateProblem('2026-03-01', today, { adult: false })).toBeNull();
  });
  it('a person must be 18 on the São Paulo date; 29 February turns a year older on 1 March', () => {
    expect(ageOn('2008-03-01', '2026-03-01')).toBe(18);
    expect(ageOn('2008-03-02', '2026-03-01')).toBe(17);
    expect(ageOn('2008-02-29', '2026-02-28')).toBe(17);
    expect(ageOn('2008-02-29', '2026-03-01')).toBe(18);
    expect(ageOn('2008-02-29', '2028-02-29')).toBe(20);
    expect(anniversary('2008-02-29', 18)).toBe('2026-03-01');
    expect(birthDateProblem('2008-03-01', today)).toBeNull();
    expect(checkBirthDate('2008-03-02', today)).toEqual({ kind: 'under_age', age: 17, today: '2026-03-01', adultOn: '2026-03-02' });
    // 01:00 UTC on 2 March is still 1 March in São Paulo (UTC−3)
    expect(checkBirthDate('2008-03-02', new Date('2026-03-02T01:00:00Z'))).toMatchObject({ kind: 'under_age', today: '2026-03-01' });
    expect(checkBirthDate('2008-03-02', new Date('2026-03-02T03:00:00Z'))).toBeNull();
    expect(birthDateProblem('2010-05-03', today)).toBe(
      'must be at least 18 years ago: a person born on 2010-05-03 is 15 on 2026-03-01 (today in São Paulo) and turns 18 on 2028-05-03',
    );
  });
  it('refuses an impossible date, a future one and one before 1900', () => {
    expect(birthDateProblem('2023-02-29', today)).toMatch(/real calendar date/);
    expect(birthDateProblem('12/04/1985', today)).toMatch(/YYYY-MM-DD/);
    expect(birthDateProblem('2026-03-02', today)).toBe('must not be in the future');
    expect(birthDateProblem('1899-12-31', today)).toBe('must be on or after 1900-01-01');
  });
});
