/**
 * Pricing from the command line: `mpay server start --pricing FILE` / MPAY_PRICING (refused at
 * start, exit 2, naming the field), `mpay admin merchants pricing set|get` on the store, the
 * embedded sandbox pricing by a merchant override, `sandbox values` printing the effective
 * pricing, and the generated `--payment-details.interest` flag.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { serverPricingOf } from '../../src/cli/commands/serverStart/pricing.js';
import { DEFAULT_PRICING } from '../../src/contract/resources/pricing.js';
import { priceInstallment } from '../../src/domain/pricing.js';
import { cliHome } from '../helpers/cli.js';

const files = mkdtempSync(join(tmpdir(), 'mpay-pricing-'));
afterAll(() => rmSync(files, { recursive: true, force: true }));
const file = (name: string, content: unknown) => {
  const p = join(files, name);
  writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content));
  return p;
};

describe('the server pricing setting', () => {
  it('--pricing FILE, else MPAY_PRICING as a path or inline JSON, else the defaults; the flag wins', () => {
    expect(serverPricingOf(undefined, {}, files)).toEqual({ pricing: DEFAULT_PRICING });
    const f = file('server.json', { pix_mdr_bps: 79 });
    expect(serverPricingOf(f, {}, files)).toMatchObject({ pricing: { pix_mdr_bps: 79, anticipation_monthly_bps: 250 }, from: `--pricing ${f}` });
    expect(serverPricingOf('server.json', {}, files).pricing.pix_mdr_bps).toBe(79);
    expect(serverPricingOf(undefined, { MPAY_PRICING: ' {"pix_mdr_bps": 89}' }, files)).toMatchObject({ pricing: { pix_mdr_bps: 89 }, from: 'MPAY_PRICING' });
    expect(serverPricingOf(undefined, { MPAY_PRICING: f }, files).pricing.pix_mdr_bps).toBe(79);
    expect(serverPricingOf(f, { MPAY_PRICING: '{"pix_mdr_bps": 89}' }, files).pricing.pix_mdr_bps).toBe(79);
  });

  it('a file that cannot be read, is not JSON or has a bad field is a usage error naming it', () => {
    expect(() => serverPricingOf(join(files, 'none.json'), {}, files)).toThrow(/--pricing .*none\.json: cannot read .*ENOENT/);
    expect(() => serverPricingOf(file('broken.json', '{"pix_mdr_bps": '), {}, files)).toThrow(/--pricing .*broken\.json is not JSON/);
    expect(() => serverPricingOf(undefined, { MPAY_PRICING: '{"buyer_interest": {"free_installments": 0}}' }, files)).toThrow(
      /^MPAY_PRICING: buyer_interest\.free_installments: must be from 1 to 12$/,
    );
    try {
      serverPricingOf(file('bad.json', { card_mdr_bps: { visa: { installments_1: 2.99 } }, chargeback_fee: 1500 }), {}, files);
      throw new Error('accepted');
    } catch (e) {
      expect((e as { exitCode?: number }).exitCode ?? 2).toBe(2);
      expect((e as Error).message).toMatch(/card_mdr_bps\.visa\.installments_1: must be a whole number of basis points .*; chargeback_fee: is not a known field/);
    }
  });
});

describe('mpay server start --pricing', () => {
  it('refuses a bad document at start (exit 2, the field named), and serves a good one', async () => {
    const home = cliHome();
    try {
      const bad = home.run(['server', 'start', '--port', '0', '--pricing', file('start-bad.json', { pix_mdr_bps: -1 })]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/--pricing .*start-bad\.json: pix_mdr_bps: must be from 0 to 2000 basis points/);
      const badEnv = home.run(['server', 'start', '--port', '0'], { env: { MPAY_PRICING: '{"withdrawal_fees": {"boleto": {}}}' } });
      expect(badEnv.code).toBe(2);
      expect(badEnv.stderr).toContain('MPAY_PRICING: withdrawal_fees.boleto: is not a known field');

      const creds = home.run(['admin', 'merchants', 'create', '--name', 'Loja', '--json']).json();
      const s = await home.startServer([], { env: { MPAY_PRICING: '{"pix_mdr_bps": 79, "buyer_interest": {"monthly_bps": 249}}' } });
      try {
        await expect.poll(() => s.stderr()).toContain('pricing: MPAY_PRICING');
        const authorization = 'Basic ' + Buffer.from(`${creds.public_key}:${creds.secret_key}`).toString('base64');
        const m = (await (await fetch(`${s.url}/v1/merchant`, { headers: { authorization } })).json()) as { data: { pricing: typeof DEFAULT_PRICING } };
        expect(m.data.pricing).toMatchObject({ pix_mdr_bps: 79, buyer_interest: { monthly_bps: 249, free_installments: 1 }, card_mdr_bps: DEFAULT_PRICING.card_mdr_bps });
      } finally {
        s.child.kill('SIGTERM');
        await s.exited;
      }
    } finally {
      home.cleanup();
    }
  }, 60_000);
});

describe('mpay admin merchants pricing set|get', () => {
  it('sets an override directly in the store, shows it with the effective pricing; refuses a bad one naming the field', () => {
    const home = cliHome();
    try {
      const m = home.run(['admin', 'merchants', 'create', '--name', 'Loja', '--json']).json();
      const got = home.run(['admin', 'merchants', 'pricing', 'get', m.merchant_id, '-o', 'json']);
      expect(got.code, got.stderr).toBe(0);
      expect(got.json()).toEqual({ merchant_id: m.merchant_id, override: null, pricing: DEFAULT_PRICING });

      const set = home.run(['admin', 'merchants', 'pricing', 'set', m.merchant_id, '--file', file('loja.json', { pix_mdr_bps: 79, buyer_interest: { free_installments: 3 } }), '-o', 'json']);
      expect(set.code, set.stderr).toBe(0);
      expect(set.json()).toMatchObject({ override: { pix_mdr_bps: 79, buyer_interest: { free_installments: 3 } }, pricing: { pix_mdr_bps: 79, buyer_interest: { monthly_bps: 199, free_installments: 3 } } });

      // the table says which rates the merchant set
      const table = home.run(['admin', 'merchants', 'pricing', 'get', m.merchant_id, '-o', 'table']);
      expect(table.stdout).toMatch(/pix_mdr_bps\s*│\s*79\s*│\s*merchant/);
      expect(table.stdout).toMatch(/anticipation_monthly_bps\s*│\s*250\s*│\s*server/);

      // over a server pricing given as the server is given it
      const over = home.run(['admin', 'merchants', 'pricing', 'get', m.merchant_id, '-o', 'json'], { env: { MPAY_PRICING: '{"anticipation_monthly_bps": 199, "pix_mdr_bps": 89}' } });
      expect(over.json().pricing).toMatchObject({ anticipation_monthly_bps: 199, pix_mdr_bps: 79 });

      const bad = home.run(['admin', 'merchants', 'pricing', 'set', m.merchant_id, '--file', '-'], { input: '{"buyer_interest": {"monthly_bps": 1001}}' });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/--file stdin: buyer_interest\.monthly_bps: must be from 0 to 1000 basis points \(10 %\)/);
      const notJson = home.run(['admin', 'merchants', 'pricing', 'set', m.merchant_id, '--file', '-'], { input: 'pix_mdr_bps=79' });
      expect(notJson.code).toBe(2);
      expect(notJson.stderr).toMatch(/--file stdin is not JSON/);
      expect(home.run(['admin', 'merchants', 'pricing', 'get', m.merchant_id, '-o', 'json']).json().override).toEqual({ pix_mdr_bps: 79, buyer_interest: { free_installments: 3 } });

      const none = home.run(['admin', 'merchants', 'pricing', 'get', '0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f']);
      expect(none.code).toBe(4);
      expect(none.stderr).toMatch(/no merchant 0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f/);

      // {} removes the override
      expect(home.run(['admin', 'merchants', 'pricing', 'set', m.merchant_id, '--file', '-', '-o', 'json'], { input: '{}' }).json().override).toBeNull();

      // a read in a mistyped directory makes no store there; --base-url names a server, not a store
      const typo = join(home.dir, 'typo');
      const lost = home.run(['admin', 'merchants', 'pricing', 'get', m.merchant_id, '--data-dir', typo]);
      expect(lost.code).toBe(4);
      expect(lost.stderr).toMatch(/holds no mpay store/);
      expect(existsSync(typo)).toBe(false);
      for (const args of [['pricing', 'get', m.merchant_id], ['create', '--name', 'Outra']]) {
        const remote = home.run(['--base-url', 'http://127.0.0.1:9', 'admin', 'merchants', ...args]);
        expect(remote.code, remote.stderr).toBe(2);
        expect(remote.stderr).toMatch(/--base-url: admin commands work directly on a data directory/);
      }
    } finally {
      home.cleanup();
    }
  });
});

describe('the embedded sandbox prices by the data directory merchant override', () => {
  it('charges, sandbox values and --payment-details.interest', () => {
    const home = cliHome();
    try {
      // without a profile: the defaults, offline, nothing created
      const offline = home.run(['sandbox', 'values', '-o', 'json']).json() as Array<{ area: string; value: string; outcome: string }>;
      expect(offline.find((r) => r.area === 'pricing' && r.value === 'PIX MDR')?.outcome).toBe('0.99 %');
      expect(offline.find((r) => r.area === 'pricing' && r.value === 'effective pricing')?.outcome).toBe('the defaults (no profile)');

      const me = home.run(['merchant', 'get', '-o', 'json']).json();
      expect(me.pricing).toEqual(DEFAULT_PRICING);
      const doc = { card_mdr_bps: { visa: { installments_7_12: 459 } }, buyer_interest: { monthly_bps: 249, free_installments: 2 } };
      expect(home.run(['admin', 'merchants', 'pricing', 'set', me.id, '--file', file('embedded.json', doc)]).code).toBe(0);

      const rows = home.run(['sandbox', 'values', '-o', 'json']).json() as Array<{ area: string; value: string; outcome: string; detail: string }>;
      const pricing = rows.filter((r) => r.area === 'pricing');
      expect(pricing.find((r) => r.value === 'effective pricing')).toMatchObject({ outcome: `merchant ${me.name}`, detail: expect.stringContaining(`merchant ${me.id}: `) });
      expect(pricing.filter((r) => r.value === 'card MDR 7x–12x').map((r) => [r.outcome, r.detail])).toEqual([
        ['4.59 %', 'visa'],
        ['3.99 %', 'mastercard, elo, amex, hipercard, diners, jcb, discover'],
      ]);
      expect(pricing.find((r) => r.value === 'buyer interest')).toMatchObject({ outcome: '2.49 % a month above 2x' });
      expect(pricing.find((r) => r.value === 'withdrawal fee cryptocurrency')?.outcome).toBe('1 %, at least R$ 1,00');
      expect(pricing.find((r) => r.value === 'chargeback fee')?.outcome).toBe('R$ 15,00');
      // no profile, the data directory named by MPAY_DATA_DIR (as CI runs it): its merchant's pricing
      const bare = home.run(['sandbox', 'values', '-o', 'json'], { env: { MPAY_CONFIG_DIR: join(home.dir, 'no-profile'), MPAY_DATA_DIR: home.dataDir } });
      expect(bare.code, bare.stderr).toBe(0);
      const bareRows = (bare.json() as Array<{ area: string; value: string; outcome: string }>).filter((r) => r.area === 'pricing');
      expect(bareRows.find((r) => r.value === 'effective pricing')?.outcome).toBe(`merchant ${me.name}`);
      expect(bareRows.find((r) => r.value === 'buyer interest')?.outcome).toBe('2.49 % a month above 2x');
      // a data directory that holds no store: the defaults, and nothing is made there
      const empty = join(home.dir, 'empty-data');
      const none = home.run(['sandbox', 'values', '-o', 'json'], { env: { MPAY_CONFIG_DIR: join(home.dir, 'no-profile-either'), MPAY_DATA_DIR: empty } });
      expect((none.json() as Array<{ area: string; value: string; outcome: string }>).find((r) => r.value === 'effective pricing')?.outcome).toBe('the defaults (no profile)');
      expect(existsSync(empty)).toBe(false);

      const help = home.run(['charges', 'create', '--help']);
      expect(help.stdout).toContain('--payment-details.interest');
      const token = home.run(['tokens', 'create', '--card.number', '4111111111111111', '--card.holder-name', 'Ana Souza', '--card.expiration-month', '12', '--card.expiration-year', '2030', '--card.cvv', '123', '-o', 'json']).json().token;
      const charge = home.run([
        'charges', 'create', '--amount', '10000', '--product-type', 'digital', '--payment-method', 'credit_card',
        '--payment-details.token', token, '--payment-details.installments', '12', '--payment-details.interest', 'buyer',
        '--customer.name', 'Ana Souza', '--customer.email', 'ana@example.com', '--customer.tax-id', '52998224725', '--customer.phone', '+5511987654321', '--customer.type', 'individual',
        '--items', '[{"name":"Curso","quantity":1,"unit_price":10000,"tangible":false}]', '-o', 'json',
      ]);
      expect(charge.code, charge.stderr).toBe(0);
      const c = charge.json();
      expect(c).toMatchObject({ status: 'captured', pricing: { mdr_bps: 459, interest: 'buyer', buyer_monthly_interest_bps: 249, free_installments: 2 } });
      // above the 2 free installments: 12 × the Price table's installment at 2.49 % a month
      expect(c).toMatchObject({ installments: 12, total_amount: 12 * priceInstallment(10_000, 12, 249), interest_amount: 12 * priceInstallment(10_000, 12, 249) - 10_000 });
      const bad = home.run(['charges', 'create', '--amount', '10000', '--payment-method', 'pix', '--payment-details.interest', 'buyer', '--product-type', 'digital',
        '--customer.name', 'Ana Souza', '--customer.email', 'ana@example.com', '--customer.tax-id', '52998224725', '--customer.phone', '+5511987654321', '--customer.type', 'individual',
        '--items', '[{"name":"Curso","quantity":1,"unit_price":10000,"tangible":false}]']);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain('payment_details.interest');
    } finally {
      home.cleanup();
    }
  }, 60_000);
});
