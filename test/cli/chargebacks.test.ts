import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliCardCharge, cliHome } from '../helpers/cli.js';
import { hasTmux, tmuxMpay } from '../helpers/tmux.js';
import { realPdf } from '../helpers/files.js';

/**
 * The chargeback commands through the built binary, on the embedded sandbox: the sandbox opens
 * one, `chargebacks list|get` show it, `accept` and `contest` confirm (--yes off a terminal) and
 * move it, `--file-id` names evidence uploaded with `files upload`.
 */
const home = cliHome();
afterAll(() => home.cleanup());

const cardCharge = (amount: number) => cliCardCharge(home, amount);

function opened(chargeId: string, amount?: number): Record<string, any> {
  const r = home.run(['sandbox', 'chargeback', chargeId, ...(amount ? ['--amount', String(amount)] : []), '--reason', 'not_received']);
  expect(r.code, r.stderr).toBe(0);
  return r.json();
}

beforeAll(() => {
  expect(home.run(['merchant', 'get']).code).toBe(0);
});

describe('mpay chargebacks and mpay sandbox chargeback', () => {
  it('sandbox chargeback opens one; list filters it; get shows it', () => {
    const charge = cardCharge(10000);
    const cb = opened(charge, 4000);
    expect(cb).toMatchObject({ charge_id: charge, amount: 4000, reason: 'not_received', status: 'open', fee_amount: 0 });
    expect(home.run(['charges', 'get', charge]).json().disputed_amount).toBe(4000);
    const list = home.run(['chargebacks', 'list', '--charge-id', charge, '--status', 'open']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.json().map((x: { id: string }) => x.id)).toEqual([cb.id]);
    expect(home.run(['chargebacks', 'list', '--status', 'won']).json()).toEqual([]);
    const got = home.run(['chargebacks', 'get', cb.id]);
    expect(got.code, got.stderr).toBe(0);
    expect(got.json()).toMatchObject({ id: cb.id, evidence: null, liabilities: [expect.objectContaining({ amount: 4000, from_receivables: 4000, from_wallet: 0 })] });
    const bad = home.run(['sandbox', 'chargeback', charge, '--reason', 'bored']);
    expect(bad.code).toBe(2); // the contract's choices are checked before any request
    expect(bad.stderr).toContain('--reason');
  });

  it('accept needs --yes off a terminal (exit 2, still open); with --yes it is accepted with the fee', () => {
    const cb = opened(cardCharge(5000));
    const no = home.run(['chargebacks', 'accept', cb.id]);
    expect(no.code).toBe(2);
    expect(no.stderr).toMatch(/--yes/);
    expect(home.run(['chargebacks', 'get', cb.id]).json().status).toBe('open');
    const yes = home.run(['chargebacks', 'accept', cb.id, '--yes']);
    expect(yes.code, yes.stderr).toBe(0);
    expect(yes.json()).toMatchObject({ status: 'accepted', fee_amount: 1500 });
    const again = home.run(['chargebacks', 'accept', cb.id, '--yes', '--json']);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('invalid_state');
  });

  it('contest with --text and one --file-id per upload; sandbox decide rules on the text', () => {
    const cb = opened(cardCharge(6000));
    const pdf = join(home.dir, 'comprovante.pdf');
    writeFileSync(pdf, realPdf());
    const up = home.run(['files', 'upload', '--file', pdf]);
    expect(up.code, up.stderr).toBe(0);
    const up2 = home.run(['files', 'upload', '--file', pdf]);
    const keys = [up.json().key, up2.json().key];
    const c = home.run(['chargebacks', 'contest', cb.id, '--text', 'Entregue e assinado. winning_evidence', '--file-id', keys[0], '--file-id', keys[1], '--yes']);
    expect(c.code, c.stderr).toBe(0);
    expect(c.json()).toMatchObject({ status: 'under_review', evidence: { text: 'Entregue e assinado. winning_evidence', file_ids: keys } });
    const d = home.run(['sandbox', 'decide', cb.id]);
    expect(d.code, d.stderr).toBe(0);
    expect(d.json()).toMatchObject({ status: 'won', fee_amount: 0 });
  });
});

describe.runIf(hasTmux)('on a terminal: accept shows what it acts on', () => {
  it('shows the amount, reason and charge; no keeps it open', async () => {
    const charge = cardCharge(7000);
    const cb = opened(charge, 2345);
    const t = tmuxMpay(home.dir, home.env, ['chargebacks', 'accept', cb.id], { name: 'cb-accept' });
    try {
      const s = await t.waitFor('?');
      expect(s).toMatch(/R\$\s?23,45/);
      expect(s).toContain('not_received');
      expect(s).toContain(charge);
      t.keys('Enter'); // the default is no
      expect(await t.exitCode()).toBe(1);
    } finally {
      t.kill();
    }
    expect(home.run(['chargebacks', 'get', cb.id]).json().status).toBe('open');
  }, 40_000);
});
