// A trigger touches only what it created: the anticipation triggers pick the receivables of
// their own charge, never an older charge's installments.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliHome } from '../helpers/cli.js';

const home = cliHome();
afterAll(() => home.cleanup());

interface Receivable {
  id: string;
  charge_id: string;
  status: string;
}
const receivablesOf = (chargeId: string): Receivable[] => home.run(['receivables', 'list', '--charge-id', chargeId, '--all', '-o', 'json']).json();
const anticipation = (id: string) => (home.run(['anticipations', 'list', '--all', '-o', 'json']).json() as { id: string; status: string; receivable_ids: string[] }[]).find((a) => a.id === id)!;

let older: string;
beforeAll(() => {
  // a charge of the merchant's own, made before the trigger, with receivables the trigger must leave alone
  const token = home.run(['tokens', 'create', '--card.number', '4111111111111111', '--card.holder-name', 'Ana Souza', '--card.expiration-month', '12', '--card.expiration-year', '2040', '--card.cvv', '123', '--jq', '.token']);
  expect(token.code, token.stderr).toBe(0);
  const c = home.run([
    'charges', 'create', '--amount', '30000', '--product-type', 'digital', '--payment-method', 'credit_card',
    '--payment-details.token', token.stdout.trim(), '--payment-details.installments', '3',
    '--customer.name', 'Ana Souza', '--customer.email', 'ana@example.com', '--customer.tax-id', '52998224725',
    '--customer.phone', '+5511987654321', '--customer.type', 'individual',
    '--items', '[{"name":"Curso","quantity":1,"unit_price":30000,"tangible":false}]', '--wait', '-o', 'json',
  ]);
  expect(c.code, c.stderr).toBe(0);
  older = c.json().id;
  expect(receivablesOf(older).map((r) => r.status)).toEqual(['pending', 'pending', 'pending']);
}, 60_000);

describe('anticipation triggers', () => {
  it('anticipation.approved anticipates its own charge’s receivables only', () => {
    const r = home.run(['trigger', 'anticipation.approved', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const { created } = r.json() as { created: { kind: string; id: string }[] };
    const charge = created.find((c) => c.kind === 'charge')!.id;
    const a = anticipation(created.find((c) => c.kind === 'anticipation')!.id);
    expect(a.status).toBe('approved');
    const own = receivablesOf(charge);
    expect([...a.receivable_ids].sort()).toEqual(own.map((x) => x.id).sort());
    expect(own.every((x) => x.status === 'anticipated')).toBe(true);
    expect(receivablesOf(older).map((x) => x.status)).toEqual(['pending', 'pending', 'pending']);
  }, 60_000);

  it('anticipation.refused refuses a receivable of its own, and anticipates nothing', () => {
    const r = home.run(['trigger', 'anticipation.refused', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const { created } = r.json() as { created: { kind: string; id: string }[] };
    const a = anticipation(created.find((c) => c.kind === 'anticipation')!.id);
    expect(a.status).toBe('refused');
    expect(a.receivable_ids).toEqual([]);
    expect(receivablesOf(older).map((x) => x.status)).toEqual(['pending', 'pending', 'pending']);
  }, 60_000);
});
