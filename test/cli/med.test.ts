import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CUSTOMER_FLAGS, cliCardCharge, cliHome, itemFlags } from '../helpers/cli.js';
import { parsePixId } from '../../src/domain/pixReturns.js';

/**
 * PIX returns through the built binary, on the embedded sandbox: `sandbox med` opens a MED (a
 * chargeback of type med), `chargebacks list --type med` finds it, `chargebacks accept` returns
 * it with a return id and no fee; `charges refund` of a PIX charge answers a devolução whose
 * record (`charges refunds`) has its return id.
 */
const home = cliHome();
afterAll(() => home.cleanup());

/** A PIX charge of `amount` cents, paid by the sandbox; its id. */
function paidPix(amount: number): string {
  const c = home.run(['charges', 'create', '--amount', String(amount), '--product-type', 'digital', '--payment-method', 'pix', ...CUSTOMER_FLAGS, ...itemFlags(amount)]);
  expect(c.code, c.stderr).toBe(0);
  const id = c.json().id as string;
  const paid = home.run(['sandbox', 'pay', id]);
  expect(paid.code, paid.stderr).toBe(0);
  expect(paid.json().status).toBe('captured');
  return id;
}

beforeAll(() => {
  expect(home.run(['merchant', 'get']).code).toBe(0);
});

describe('mpay sandbox med and PIX refunds', () => {
  it('sandbox med opens a MED; list --type med finds it; accept returns it with a return id and no fee', () => {
    const charge = paidPix(10000);
    const r = home.run(['sandbox', 'med', charge, '--reason', 'operational_flaw']);
    expect(r.code, r.stderr).toBe(0);
    const med = r.json();
    expect(med).toMatchObject({ charge_id: charge, type: 'med', reason: 'operational_flaw', amount: 10000, status: 'open', fee_amount: 0, return_id: null });
    expect(home.run(['chargebacks', 'list', '--type', 'med']).json().map((x: { id: string }) => x.id)).toEqual([med.id]);
    const no = home.run(['chargebacks', 'accept', med.id]);
    expect(no.code).toBe(2);
    const yes = home.run(['chargebacks', 'accept', med.id, '--yes']);
    expect(yes.code, yes.stderr).toBe(0);
    expect(yes.json()).toMatchObject({ status: 'accepted', fee_amount: 0 });
    expect(parsePixId(yes.json().return_id)).toMatchObject({ kind: 'D', ispb: '99999999' });
    const bad = home.run(['sandbox', 'med', charge, '--reason', 'not_received']);
    expect(bad.code).toBe(2); // the contract's choices are checked before any request
    expect(bad.stderr).toContain('--reason');
  });

  it('a MED of a card charge is refused naming the chargeback; a PIX refund lists its return id', () => {
    const card = cliCardCharge(home, 5000);
    const refused = home.run(['sandbox', 'med', card, '--json']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('business_rule');
    expect(refused.stderr).toContain('a MED disputes a PIX payment');
    const pix = paidPix(3000);
    const refunded = home.run(['charges', 'refund', pix, '--amount', '1000', '--yes']);
    expect(refunded.code, refunded.stderr).toBe(0);
    const list = home.run(['charges', 'refunds', pix]);
    expect(list.code, list.stderr).toBe(0);
    const [refund] = list.json();
    expect(refund).toMatchObject({ amount: 1000 });
    expect(refund.return_id).toMatch(/^D99999999\d{12}[A-Za-z0-9]{11}$/);
  });
});
