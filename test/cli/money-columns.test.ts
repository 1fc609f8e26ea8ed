/**
 * The CLI shows money as R$ for the fields the contract tags as money (`money()`, `cents()`,
 * `positiveCents()`, `centsString()` in src/contract/common.ts), read into each operation's
 * spec at build time — not from a list of names kept in the CLI.
 */
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { endpoints, type AnyEndpoint } from '../../src/contract/index.js';
import { isMoney } from '../../src/contract/common.js';
import { cell, type Painter } from '../../src/cli/output.js';
import { generateSpecs } from '../../src/cli/spec/generate.js';

const plain: Painter = { green: (s) => s, yellow: (s) => s, red: (s) => s, dim: (s) => s, bold: (s) => s };

/** Every field of a response record (every branch of a union). */
function fieldsOf(schema: z.ZodType): [string, z.ZodType][] {
  const s = schema as unknown as { shape?: Record<string, z.ZodType>; options?: z.ZodType[] };
  if (s.options) return s.options.flatMap(fieldsOf);
  return Object.entries(s.shape ?? {});
}

/** Names that say money: a guard that a new money field of the contract is tagged. */
const SAYS_MONEY = /amount|fee|balance|price|credits|debits|ticket|revenue/i;

describe('money columns come from the contract', () => {
  const specs = generateSpecs();
  const byId = new Map(specs.map((s) => [s.id, s]));

  it('every field whose name says money is tagged money in the contract, and only those', () => {
    const untagged: string[] = [];
    const odd: string[] = [];
    for (const e of endpoints as readonly AnyEndpoint[]) {
      for (const [k, v] of fieldsOf(e.response)) {
        if (SAYS_MONEY.test(k) && !isMoney(v)) untagged.push(`${e.id}: ${k}`);
        if (!SAYS_MONEY.test(k) && isMoney(v)) odd.push(`${e.id}: ${k}`);
      }
    }
    expect(untagged).toEqual([]);
    expect(odd).toEqual([]);
  });

  it("each operation's spec lists the money fields of its record", () => {
    expect(byId.get('charges.get')!.money).toEqual(expect.arrayContaining(['amount', 'shipping_amount', 'fee_amount', 'net_amount']));
    expect(byId.get('charges.get')!.money).not.toContain('installments');
    expect(byId.get('withdrawals.list')!.money).toEqual(expect.arrayContaining(['amount', 'fee', 'netAmount']));
    expect(byId.get('submerchants.get')!.money).toEqual(expect.arrayContaining(['average_ticket', 'monthly_revenue']));
    for (const s of specs) for (const m of s.money) expect(typeof m).toBe('string');
  });

  it('money inside nested records and arrays of records is listed by dotted path (a statement shows R$)', () => {
    expect(byId.get('wallets.statement')!.money).toEqual(
      expect.arrayContaining(['summary.opening_balance', 'summary.closing_balance', 'summary.total_credits', 'summary.total_debits', 'entries.amount', 'entries.balance_after']),
    );
    expect(byId.get('charges.get')!.money).toEqual(expect.arrayContaining(['items.unit_price', 'split_rules.amount']));
  });

  it('a table cell is R$ for a money field, the number itself otherwise', () => {
    const money = byId.get('wallets.statement')?.money ?? byId.get('charges.get')!.money;
    expect(cell('amount', 150000, plain, ['amount'])).toBe('R$ 1.500,00');
    expect(cell('average_ticket', '15000', plain, ['average_ticket'])).toBe('R$ 150,00');
    expect(cell('amount', 150000, plain, [])).toBe('150000');
    expect(cell('installments', 3, plain, money)).toBe('3');
  });
});
