// Tables for people: a value meant to be copied (the PIX copia-e-cola, a checkout URL) prints
// whole on a line of its own below the box, whatever the width; every money field prints as
// R$; times carry their zone (America/Sao_Paulo, BRT). JSON stays as it was.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliHome } from '../helpers/cli.js';
import { realJpeg, realPdf, realPng } from '../helpers/files.js';
import { addDays, localDate } from '../../src/domain/calendar.js';

const home = cliHome();
afterAll(() => home.cleanup());

const pixArgs = [
  'charges', 'create', '--amount', '10000', '--product-type', 'digital', '--payment-method', 'pix',
  '--customer.name', 'Ana Souza', '--customer.email', 'ana@example.com', '--customer.tax-id', '52998224725',
  '--customer.phone', '+5511987654321', '--customer.type', 'individual',
  '--items', '[{"name":"Curso","quantity":1,"unit_price":10000,"tangible":false}]',
];

let pix: { id: string; pix: { qr_code: string }; created_at: string };
beforeAll(() => {
  const r = home.run([...pixArgs, '-o', 'json']);
  expect(r.code, r.stderr).toBe(0);
  pix = r.json();
  expect(pix.pix.qr_code.length).toBeGreaterThan(100);
});

const table = (args: string[], columns: number, env: NodeJS.ProcessEnv = {}) => home.run([...args, '-o', 'table'], { env: { COLUMNS: String(columns), ...env } });

describe('values to copy', () => {
  it.each([60, 80, 120, 300])('charges get at %i columns: the copia-e-cola whole, on its own line, outside the box', (columns) => {
    const r = table(['charges', 'get', pix.id], columns);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines).toContain(pix.pix.qr_code);
    // no part of it inside the box
    const boxed = lines.filter((l) => /[│┌└├]/.test(l));
    expect(boxed.some((l) => l.includes(pix.pix.qr_code.slice(0, 20)))).toBe(false);
    expect(boxed.find((l) => l.includes('pix.qr_code'))).toMatch(/below/);
  });

  it("a boleto's digitable line and a PIX with a due date's copia-e-cola print whole below the box too", () => {
    const due = addDays(localDate(new Date()), 5);
    const address = [
      '--customer.address.street', 'Av. Paulista', '--customer.address.number', '1000', '--customer.address.neighborhood', 'Bela Vista',
      '--customer.address.city', 'São Paulo', '--customer.address.state', 'SP', '--customer.address.zip-code', '01310100',
    ];
    const boletoArgs = pixArgs.map((a) => (a === 'pix' ? 'boleto' : a));
    const boleto = home.run([...boletoArgs, ...address, '--payment-details.due-date', due, '-o', 'json']);
    expect(boleto.code, boleto.stderr).toBe(0);
    const cobv = home.run([...pixArgs, '--payment-details.due-date', due, '-o', 'json']);
    expect(cobv.code, cobv.stderr).toBe(0);
    const cases: [string, string, string][] = [
      [boleto.json().id, 'boleto.digitable_line', boleto.json().boleto.digitable_line],
      [cobv.json().id, 'pix.qr_code', cobv.json().pix.qr_code],
    ];
    for (const [id, field, value] of cases) {
      expect(value, field).toMatch(field === 'pix.qr_code' ? /\/cobv\// : /^\d{47}$/);
      const r = table(['charges', 'get', id], 80);
      expect(r.code, r.stderr).toBe(0);
      const lines = r.stdout.split('\n');
      expect(lines, field).toContain(value);
      const boxed = lines.filter((l) => /[│┌└├]/.test(l));
      expect(boxed.some((l) => l.includes(value.slice(0, 20))), field).toBe(false);
      expect(boxed.find((l) => l.includes(field)), field).toMatch(/below/);
    }
  });

  it('charges create --wait prints the copia-e-cola the same way once the charge is paid', async () => {
    const waiting = home.runAsync([...pixArgs, '--wait', '-o', 'table'], { env: { COLUMNS: '80' } });
    let id = '';
    for (let i = 0; i < 100 && !id; i++) {
      await new Promise((r) => setTimeout(r, 200));
      const pending = home.run(['charges', 'list', '--status', 'pending', '-o', 'json']).json() as { id: string }[];
      id = pending.find((c) => c.id !== pix.id)?.id ?? '';
    }
    expect(id).not.toBe('');
    expect(home.run(['sandbox', 'pay', id]).code).toBe(0);
    const r = await waiting;
    expect(r.code, r.stderr).toBe(0);
    const qr = home.run(['charges', 'get', id, '--jq', '.pix.qr_code']).stdout.trim();
    expect(r.stdout.split('\n')).toContain(qr);
  }, 60_000);

  it('-o json is unchanged', () => {
    const r = home.run(['charges', 'get', pix.id, '-o', 'json']);
    expect(r.json().pix.qr_code).toBe(pix.pix.qr_code);
    expect(r.json().created_at).toBe(pix.created_at);
  });
});

describe('times in tables', () => {
  it.each(['UTC', 'Asia/Tokyo', 'America/Sao_Paulo'])('are in America/Sao_Paulo with BRT, whatever the machine’s zone (TZ=%s)', (tz) => {
    const r = table(['charges', 'get', pix.id], 120, { TZ: tz });
    expect(r.code, r.stderr).toBe(0);
    const created = new Date(Date.parse(pix.created_at) - 3 * 3_600_000).toISOString();
    const want = `${created.slice(0, 10)} ${created.slice(11, 16)} BRT`;
    expect(r.stdout).toMatch(new RegExp(`│ created_at +│ ${want} +│`));
  });

  it('lists too', () => {
    const r = table(['charges', 'list'], 200, { TZ: 'UTC' });
    expect(r.stdout).toMatch(/\d{4}-\d\d-\d\d \d\d:\d\d BRT/);
  });
});

describe('money in tables', () => {
  it('the onboarding’s record shows average_ticket and monthly_revenue as R$', () => {
    const docs = join(home.dir, 'docs');
    mkdirSync(docs, { recursive: true });
    writeFileSync(join(docs, 'rg.png'), realPng());
    writeFileSync(join(docs, 'rg.jpg'), realJpeg());
    writeFileSync(join(docs, 'conta.pdf'), realPdf());
    const file = join(home.dir, 'pf.json');
    writeFileSync(
      file,
      JSON.stringify({
        entity_type: 'pf',
        submerchant: { trade_name: 'Ana Doces', legal_name: 'Ana Souza', tax_id: '529.982.247-25', email: 'ana@example.com', average_ticket: '1.500,00', monthly_revenue: '30.000,00' },
        address: { zip_code: '01310-100', street: 'Av. Paulista', number: '1000', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP' },
        documents: { front_id: 'docs/rg.png', back_id: 'docs/rg.jpg', selfie_with_id: 'docs/rg.png', proof_of_residence: 'docs/conta.pdf' },
      }),
    );
    const r = table(['submerchants', 'onboard', '--from-file', file], 120);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/│ average_ticket +│ R\$ 1\.500,00 +│/);
    expect(r.stdout).toMatch(/│ monthly_revenue +│ R\$ 30\.000,00 +│/);
  });
});
