// Boleto and PIX with a due date from the command line: the flags take what the API takes,
// the help says what each value looks like, and tables and URLs serve what the payer needs.
import { afterAll, describe, expect, it } from 'vitest';
import { cliHome } from '../helpers/cli.js';
import { addDays, localDate } from '../../src/domain/calendar.js';

const home = cliHome();
afterAll(() => home.cleanup());

const due = addDays(localDate(new Date()), 5);
const payer = [
  '--amount', '10000', '--product-type', 'digital',
  '--customer.name', 'Ana Souza', '--customer.email', 'ana@example.com', '--customer.tax-id', '52998224725',
  '--customer.phone', '+5511987654321', '--customer.type', 'individual',
  '--items', '[{"name":"Curso","quantity":1,"unit_price":10000,"tangible":false}]',
];
const address = [
  '--customer.address.street', 'Av. Paulista', '--customer.address.number', '1000', '--customer.address.neighborhood', 'Bela Vista',
  '--customer.address.city', 'São Paulo', '--customer.address.state', 'SP', '--customer.address.zip-code', '01310100',
];
const boleto = ['charges', 'create', ...payer, ...address, '--payment-method', 'boleto', '--payment-details.due-date', due];

describe('--payment-details.interest takes both meanings', () => {
  it('a number is the monthly basis points of a boleto', () => {
    const r = home.run([...boleto, '--payment-details.interest', '100', '--payment-details.fine', '200', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().due).toMatchObject({ interest: 100, fine: 200 });
  });

  it('a number is the monthly basis points of a PIX with a due date', () => {
    const r = home.run(['charges', 'create', ...payer, '--payment-method', 'pix', '--payment-details.due-date', due, '--payment-details.interest', '33', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().due).toMatchObject({ interest: 33 });
  });

  it('merchant/buyer still go to a card charge; anything else is refused naming both', () => {
    const r = home.run(['charges', 'create', ...payer, '--payment-method', 'credit_card', '--payment-details.token', 'tok_x', '--payment-details.interest', 'sometimes']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--payment-details\.interest must be merchant, buyer or a whole number/);
    const range = home.run([...boleto, '--payment-details.interest', '99999999']);
    expect(range.code).toBe(2);
    expect(range.stderr).toMatch(/--payment-details\.interest/);
  });

  it('the help says both meanings', () => {
    const r = home.run(['charges', 'create', '--help'], { env: { COLUMNS: '400' } });
    expect(r.code).toBe(0);
    const line = r.stdout.split('\n').find((l) => l.includes('--payment-details.interest'));
    expect(line).toMatch(/merchant/);
    expect(line).toMatch(/buyer/);
    expect(line).toMatch(/basis points/);
  });
});

describe('charges create --help for a boleto', () => {
  const help = () => {
    const r = home.run(['charges', 'create', '--help'], { env: { COLUMNS: '400' } });
    expect(r.code).toBe(0);
    return r.stdout;
  };
  const flagLine = (text: string, flag: string) => text.split('\n').find((l) => l.trimStart().startsWith(`${flag} `)) ?? '';

  it('--customer.address.number is the street number, and the API takes "S/N" and "12A" for it', () => {
    const line = flagLine(help(), '--customer.address.number');
    expect(line).not.toMatch(/card/);
    expect(line).toMatch(/street number/);
    expect(line).toMatch(/S\/N/);
    for (const n of ['S/N', '12A']) {
      const args = boleto.map((a, i) => (boleto[i - 1] === '--customer.address.number' ? n : a));
      const r = home.run([...args, '-o', 'json']);
      expect(r.code, r.stderr).toBe(0);
    }
  });

  it('--payment-details.due-date gives its form and its day', () => {
    const line = flagLine(help(), '--payment-details.due-date');
    expect(line).toMatch(/YYYY-MM-DD/);
    expect(line).toMatch(/São Paulo day/);
  });

  it('shows a boleto example, which works as written on any day (its due date a week ahead)', () => {
    const example = help().split('\n').find((l) => l.includes('$ mpay charges create') && l.includes('--payment-method boleto'));
    expect(example).toBeDefined();
    const args = [...example!.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!).slice(2);
    expect(args[args.indexOf('--payment-details.due-date') + 1]).toBe(addDays(localDate(new Date()), 7));
    const r = home.run([...args, '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ payment_method: 'boleto', status: 'pending', due: { fine: 200, interest: 100 } });
  });
});

describe('an impossible day', () => {
  it('sandbox pay --paid-on 2026-02-30 says it is not a calendar day', () => {
    const c = home.run([...boleto, '-o', 'json']);
    expect(c.code, c.stderr).toBe(0);
    const r = home.run(['sandbox', 'pay', c.json().id, '--paid-on', '2026-02-30']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/paid_on: 2026-02-30 is not a calendar day/);
  });
});

describe('a boleto in a table', () => {
  it.each([80, 200])('charges get at %i columns prints boleto.url, boleto.barcode and the digitable line whole below the box', (columns) => {
    const c = home.run([...boleto, '-o', 'json']);
    expect(c.code, c.stderr).toBe(0);
    const b = c.json().boleto as { url: string; barcode: string; digitable_line: string };
    const r = home.run(['charges', 'get', c.json().id, '-o', 'table'], { env: { COLUMNS: String(columns) } });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    const boxed = lines.filter((l) => /[│┌└├]/.test(l));
    for (const [field, value] of [['boleto.url', b.url], ['boleto.barcode', b.barcode], ['boleto.digitable_line', b.digitable_line]] as const) {
      expect(lines.some((l) => l.includes(value) && !/[│┌└├]/.test(l)), `${field}\n${r.stdout}`).toBe(true);
      expect(boxed.some((l) => l.includes(value.slice(0, 20))), `${field}\n${r.stdout}`).toBe(false);
      expect(boxed.find((l) => l.includes(field)), field).toMatch(/below/);
    }
  });
});

describe("a boleto's slip in the embedded sandbox", () => {
  it('a table with the slip URL ends with the command that serves it; JSON has no such line', () => {
    const c = home.run([...boleto, '-o', 'table']);
    expect(c.code, c.stderr).toBe(0);
    expect(c.stderr).toMatch(/The boleto slip answers only while it is served: `mpay charges open [0-9a-f-]{36}` serves it on a free local port/);
    const j = home.run([...boleto, '-o', 'json']);
    expect(j.stderr).not.toMatch(/charges open/);
  });

  it('mpay charges open ID serves the printable slip on a free loopback port until Ctrl-C (exit 130)', async () => {
    const c = home.run([...boleto, '-o', 'json']);
    expect(c.code, c.stderr).toBe(0);
    const { id, boleto: slip } = c.json() as { id: string; boleto: { url: string; digitable_line: string; formatted_line: string } };
    const s = await home.serving(['charges', 'open', id]);
    try {
      const u = new URL(s.url);
      expect(u.hostname).toBe('127.0.0.1');
      expect(u.port).not.toBe('4010');
      expect(u.pathname).toBe(new URL(slip.url).pathname);
      const page = await fetch(s.url);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain(slip.formatted_line);
      expect(s.stderr()).toContain('Ctrl-C to stop');
    } finally {
      s.child.kill('SIGINT');
    }
    expect(await s.exited).toBe(130);
  });

  it('a charge without a slip (an instant PIX) is a usage error naming what has one; an unknown id is exit 4', () => {
    const pix = home.run(['charges', 'create', ...payer, '--payment-method', 'pix', '-o', 'json']);
    expect(pix.code, pix.stderr).toBe(0);
    const r = home.run(['charges', 'open', pix.json().id]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/only a boleto has a printable slip/);
    expect(home.run(['charges', 'open', '0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f']).code).toBe(4);
  });
});
