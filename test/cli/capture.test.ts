/**
 * Authorise, then capture or void, from the command line: `charges create --no-capture` (the
 * negation every boolean field's flag has), `charges capture ID [--amount]`, `charges void ID`
 * (confirmed on a terminal, --yes elsewhere), the refund confirmation on what was captured, the
 * triggers of charge.authorized and charge.voided, and `sandbox values`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliHome } from '../helpers/cli.js';
import { hasTmux, tmuxMpay } from '../helpers/tmux.js';
import { tableTime } from '../../src/cli/output.js';

const home = cliHome();
afterAll(() => home.cleanup());
beforeAll(() => {
  expect(home.run(['merchant', 'get']).code).toBe(0);
});

const customer = ['--customer.name', 'Ana Souza', '--customer.email', 'ana@example.com', '--customer.tax-id', '52998224725', '--customer.phone', '+5511987654321', '--customer.type', 'individual'];
const items = (amount: number) => ['--items', JSON.stringify([{ name: 'Curso', quantity: 1, unit_price: amount, tangible: false }])];

function token(): string {
  const t = home.run(['tokens', 'create', '--card.number', '4111111111111111', '--card.holder-name', 'Ana Souza', '--card.expiration-month', '12', '--card.expiration-year', '2031', '--card.cvv', '123']);
  expect(t.code, t.stderr).toBe(0);
  return t.json().token;
}

/** A card charge created with these extra flags (e.g. --no-capture). */
function cardCharge(amount: number, ...flags: string[]) {
  const args = ['charges', 'create', '--amount', String(amount), '--product-type', 'digital', '--payment-method', 'credit_card', '--payment-details.token', token(), ...customer, ...items(amount), ...flags];
  const c = home.run(args);
  expect(c.code, c.stderr).toBe(0);
  return c.json();
}
const get = (id: string) => home.run(['charges', 'get', id]).json();

describe('charges create --no-capture, charges capture, charges void', () => {
  it('--no-capture (like --capture false) authorises only; --help shows it', () => {
    expect(cardCharge(1000, '--no-capture')).toMatchObject({ status: 'authorized', captured_amount: null });
    expect(cardCharge(1000, '--capture', 'false')).toMatchObject({ status: 'authorized' });
    expect(cardCharge(1000, '--capture')).toMatchObject({ status: 'captured', captured_amount: 1000 });
    const help = home.run(['charges', 'create', '--help']).stdout;
    expect(help).toMatch(/--no-capture\s+the same as --capture false/);
    // every boolean field's flag has it
    expect(home.run(['submerchants', 'addresses', 'add', '--help']).stdout).toContain('--no-is-primary');
  });

  it('capture --amount captures part of it, once; another capture is refused (exit 1)', () => {
    const c = cardCharge(10000, '--no-capture');
    const r = home.run(['charges', 'capture', c.id, '--amount', '6000']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ id: c.id, status: 'captured', captured_amount: 6000, fee_amount: 179, net_amount: 5821 });
    const again = home.run(['charges', 'capture', c.id]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('invalid_state');
    const bad = cardCharge(1000, '--no-capture');
    const over = home.run(['charges', 'capture', bad.id, '--amount', '1001']);
    expect(over.code).toBe(1);
    expect(over.stderr).toContain('amount');
    expect(get(bad.id).status).toBe('authorized');
    expect(home.run(['charges', 'capture', bad.id, '--amount', '0']).code).toBe(2); // the contract's range, checked before any request
  });

  it('void needs --yes off a terminal (exit 2, still authorized); with --yes the charge is voided', () => {
    const c = cardCharge(2500, '--no-capture');
    const r = home.run(['charges', 'void', c.id]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--yes/);
    expect(get(c.id).status).toBe('authorized');
    const y = home.run(['charges', 'void', c.id, '--yes']);
    expect(y.code, y.stderr).toBe(0);
    expect(y.json()).toMatchObject({ status: 'voided', void_reason: 'requested' });
    expect(home.run(['charges', 'list', '--status', 'voided']).json().map((x: { id: string }) => x.id)).toContain(c.id);
  });
});

describe('trigger charge.authorized and charge.voided touch only what they create', () => {
  it('an authorisation made before either trigger stays authorized', () => {
    const mine = cardCharge(3000, '--no-capture');
    const a = home.run(['trigger', 'charge.authorized', '-o', 'json']);
    expect(a.code, a.stderr).toBe(0);
    const made = a.json().created.find((x: { kind: string }) => x.kind === 'charge');
    expect(get(made.id).status).toBe('authorized');
    const v = home.run(['trigger', 'charge.voided', '-o', 'json']);
    expect(v.code, v.stderr).toBe(0);
    const voided = v.json().created.find((x: { kind: string }) => x.kind === 'void');
    expect(get(voided.id)).toMatchObject({ status: 'voided', void_reason: 'requested' });
    expect(get(mine.id).status).toBe('authorized');
    expect(get(made.id).status).toBe('authorized');
  });
});

describe('sandbox values', () => {
  it('lists capture false and the 7-day rule', () => {
    const rows = home.run(['sandbox', 'values', '-o', 'json']).json() as { area: string; value: string; outcome: string; code: string | null; detail: string }[];
    expect(rows).toContainEqual(expect.objectContaining({ area: 'card', outcome: 'authorized', value: expect.stringContaining('--no-capture') }));
    expect(rows).toContainEqual(expect.objectContaining({ area: 'card', outcome: 'voided', code: 'expired', value: expect.stringContaining('7 days') }));
  });
});

describe.runIf(hasTmux)('on a terminal', () => {
  it('void shows the amount, the card and the customer; yes voids', async () => {
    const c = cardCharge(4321, '--no-capture');
    const t = tmuxMpay(home.dir, home.env, ['charges', 'void', c.id], { name: 'void' });
    try {
      const s = await t.waitFor('?');
      expect(s).toMatch(/Void the authorisation of R\$\s?43,21 from Ana Souza\?/);
      expect(s).toContain('visa •••• 1111');
      // the authorisation time as tables print it: São Paulo, with the zone
      expect(s).toContain(`authorised ${tableTime(c.authorized_at)}`);
      t.type('y');
      t.keys('Enter');
      expect(await t.exitCode()).toBe(0);
    } finally {
      t.kill();
    }
    expect(get(c.id).status).toBe('voided');
  }, 40_000);

  it('a refund after a partial capture offers what was captured, not the amount', async () => {
    const c = cardCharge(10000, '--no-capture');
    expect(home.run(['charges', 'capture', c.id, '--amount', '6000']).code).toBe(0);
    const t = tmuxMpay(home.dir, home.env, ['charges', 'refund', c.id], { name: 'refund-captured' });
    try {
      const s = await t.waitFor('?');
      expect(s).toMatch(/Refund R\$\s?60,00 to Ana Souza\?/);
      expect(s).toMatch(/captured R\$\s?60,00 of it/);
      t.keys('Enter'); // no
      expect(await t.exitCode()).toBe(1);
    } finally {
      t.kill();
    }
    expect(get(c.id).status).toBe('captured');
  }, 40_000);
});
