import { describe, expect, it } from 'vitest';
import { taxIdProblem } from '../../src/domain/taxid.js';
import { birthDateProblem } from '../../src/domain/brazil.js';

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
  it('accepts a real past date and today', () => {
    expect(birthDateProblem('1985-04-12', today)).toBeNull();
    expect(birthDateProblem('2026-03-01', today)).toBeNull();
  });
  it('refuses an impossible date, a future one and one before 1900', () => {
    expect(birthDateProblem('2023-02-29', today)).toMatch(/real calendar date/);
    expect(birthDateProblem('12/04/1985', today)).toMatch(/YYYY-MM-DD/);
    expect(birthDateProblem('2026-03-02', today)).toBe('must not be in the future');
    expect(birthDateProblem('1899-12-31', today)).toBe('must be on or after 1900-01-01');
  });
});
