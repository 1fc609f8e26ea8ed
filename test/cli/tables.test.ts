import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliHome } from '../helpers/cli.js';
import { hasTmux, tmuxMpay } from '../helpers/tmux.js';

/**
 * Tables fit the terminal: run in a real pseudo-terminal of 80 and 120
 * columns, no line is longer than the terminal; the primary id and every value meant to be
 * copied appear whole; a statement's entries are a table below the record; requirements are a
 * checklist whose hints are mpay commands; `sandbox values` keeps every card number whole.
 */
const home = cliHome();
afterAll(() => home.cleanup());

const customer = ['--customer.name', 'Ana Souza', '--customer.email', 'ana@example.com', '--customer.tax-id', '52998224725', '--customer.phone', '+5511987654321', '--customer.type', 'individual'];
const items = (amount: number) => ['--items', JSON.stringify([{ name: 'Curso de fotografia digital', quantity: 1, unit_price: amount, tangible: false }])];
const ok = (args: string[]) => {
  const r = home.run(args);
  expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
  return r.json();
};

let chargeIds: string[] = [];
let walletId = '';
let subId = '';

beforeAll(() => {
  const t = ok(['tokens', 'create', '--card.number', '4111111111111111', '--card.holder-name', 'Ana Souza', '--card.expiration-month', '12', '--card.expiration-year', '2031', '--card.cvv', '123']);
  const card = ok(['charges', 'create', '--amount', '123456', '--product-type', 'digital', '--payment-method', 'credit_card', '--payment-details.token', t.token, '--payment-details.installments', '3', ...customer, ...items(123456)]);
  const declined = ok(['tokens', 'create', '--card.number', '4000000000000002', '--card.holder-name', 'Ana Souza', '--card.expiration-month', '12', '--card.expiration-year', '2031', '--card.cvv', '123']);
  const failed = home.run(['charges', 'create', '--amount', '9900', '--product-type', 'digital', '--payment-method', 'credit_card', '--payment-details.token', declined.token, '--payment-details.installments', '1', ...customer, ...items(9900)]);
  const pix = ok(['charges', 'create', '--amount', '4500', '--product-type', 'digital', '--payment-method', 'pix', ...customer, ...items(4500)]);
  chargeIds = [card.id, pix.id, ...(failed.stdout ? [JSON.parse(failed.stdout).id] : [])];
  const sub = ok(['submerchants', 'create', '--entity-type', 'pj', '--trade-name', 'Loja da Ana', '--legal-name', 'Loja da Ana Comércio de Artigos Fotográficos LTDA', '--tax-id', '11222333000181', '--email', 'loja@example.com']);
  subId = sub.id;
  ok(['sandbox', 'pay', pix.id]);
  ok(['sandbox', 'advance', '--days', '31']); // card receivables settle: credits in the wallet
  walletId = ok(['wallets', 'list', '--owner-type', 'merchant'])[0].id;
});

async function onTerminal(args: string[], width: number): Promise<string> {
  const t = tmuxMpay(home.dir, home.env, args, { width, height: 300 });
  try {
    const code = await t.exitCode(60_000);
    const screen = t.screen();
    expect(code, screen).toBe(0);
    return screen.slice(0, screen.indexOf('EXIT='));
  } finally {
    t.kill();
  }
}

/** capture-pane -J joins wrapped lines, so a line longer than the terminal shows up whole */
function expectFits(screen: string, width: number) {
  const long = screen.split('\n').filter((l) => [...l.trimEnd()].length > width);
  expect(long, `lines over ${width} columns:\n${long.join('\n')}\n---\n${screen}`).toEqual([]);
}

describe.runIf(hasTmux).each([80, 120])('at %i columns', (width) => {
  it('charges, receivables and wallets lists fit, with whole ids', async () => {
    const charges = await onTerminal(['charges', 'list'], width);
    expectFits(charges, width);
    for (const id of chargeIds) expect(charges).toContain(id);
    expect(charges).toContain('R$');
    const receivables = await onTerminal(['receivables', 'list'], width);
    expectFits(receivables, width);
    for (const r of ok(['receivables', 'list'])) expect(receivables).toContain(r.id);
    const wallets = await onTerminal(['wallets', 'list'], width);
    expectFits(wallets, width);
    for (const w of ok(['wallets', 'list'])) expect(wallets).toContain(w.id);
  });

  it('a statement shows its entries as a table below the record', async () => {
    const s = await onTerminal(['wallets', 'statement', walletId, '--start-date', '2020-01-01', '--end-date', '2099-12-31'], width);
    expectFits(s, width);
    expect(s).not.toMatch(/\[\{"|\{"id"/); // no JSON in a cell
    expect(s).toContain(walletId);
    const entries = ok(['wallets', 'statement', walletId, '--start-date', '2020-01-01', '--end-date', '2099-12-31']).entries;
    expect(entries.length).toBeGreaterThan(0);
    // a heading, then a table with a header row naming the entry columns
    expect(s).toMatch(/^entries \(\d+\)/m);
    const below = s.slice(s.search(/^entries \(/m));
    expect(below).toMatch(/│ direction\s*│/);
    expect(below).toMatch(/│ credit\s*│/);
    // the summary's figures are rows of the record, not JSON
    expect(s).toMatch(/summary\.closing_balance\s*│ \S/);
  });

  it('requirements are a checklist whose hints are mpay commands', async () => {
    const s = await onTerminal(['submerchants', 'requirements', subId], width);
    expectFits(s, width);
    expect(s).not.toContain('POST /v1');
    expect(s).not.toMatch(/\[\{"|"kind"/);
    expect(s).toMatch(/✗ .*address/);
    expect(s).toContain(`mpay submerchants addresses add ${subId}`);
    expect(s).toContain(`mpay submerchants partners add ${subId}`);
    expect(s).toMatch(/✗ .*social_contract/);
    expect(s).toContain(`mpay submerchants upload ${subId} --file`);
    expect(s).toMatch(/mpay submerchants docs add \S+ (\\\n\s+)?--type social_contract/); // continued with \ when wrapped
    expect(s).toContain(`mpay submerchants onboard --id ${subId}`);
  });

  it('sandbox values fit and keep every value whole', async () => {
    const s = await onTerminal(['sandbox', 'values'], width);
    expectFits(s, width);
    const rows = ok(['sandbox', 'values']) as { value: string; code: string | null }[];
    // every space-free value (card numbers, CPFs, amounts) appears whole on one line
    for (const r of rows) {
      for (const token of r.value.split(' ')) expect(s, `value ${r.value}`).toContain(token);
      if (r.code) expect(s).toContain(r.code);
    }
    expect(s).toContain('4000000000000002');
  });
});

describe('output for scripts is unchanged', () => {
  it('-o json and jsonl are the records, whatever the width', () => {
    const j = home.run(['charges', 'list', '-o', 'json'], { env: { COLUMNS: '40' } });
    expect(JSON.parse(j.stdout)).toHaveLength(chargeIds.length);
    expect(j.stdout).toBe(JSON.stringify(JSON.parse(j.stdout), null, 2) + '\n');
    const l = home.run(['charges', 'list', '-o', 'jsonl']);
    expect(l.stdout.trim().split('\n').map((x) => JSON.parse(x).id).sort()).toEqual([...chargeIds].sort());
  });

  it('-o table off a terminal is 80 columns wide', () => {
    const t = home.run(['charges', 'list', '-o', 'table']);
    expect(t.code).toBe(0);
    expectFits(t.stdout, 80);
    for (const id of chargeIds) expect(t.stdout).toContain(id);
  });
});
