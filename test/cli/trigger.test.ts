// `mpay trigger EVENT`: every event of the contract's list, each created in
// the sandbox with what it needs, the event really emitted (a webhook delivery is logged for
// it), and what was created printed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_NAMES } from '../../src/contract/events.js';
import { cliHome } from '../helpers/cli.js';
import { hasTmux, tmuxMpay } from '../helpers/tmux.js';

const home = cliHome();
afterAll(() => home.cleanup());
beforeAll(() => {
  // an endpoint for every event: its delivery logs show which events were emitted
  const r = home.run(['webhooks', 'create', '--url', 'http://127.0.0.1:9/hooks', '--events', '*']);
  expect(r.code, r.stderr).toBe(0);
});

describe('mpay trigger', () => {
  it('--list names every event of the contract, with what it creates', () => {
    const r = home.run(['trigger', '--list', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const rows = r.json() as { event: string; creates: string }[];
    expect(rows.map((x) => x.event)).toEqual([...EVENT_NAMES]);
    for (const x of rows) expect(x.creates.length).toBeGreaterThan(5);
    const t = home.run(['trigger', '--list', '-o', 'table']);
    expect(t.stdout).toContain('charge.captured');
  });

  it.each([...EVENT_NAMES])('%s: creates what it needs and the event is emitted', (event) => {
    const logged = () => (home.run(['webhooks', 'logs', '--event-name', event, '--all', '-o', 'json']).json() as unknown[]).length;
    const before = logged();
    const r = home.run(['trigger', event, '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const out = r.json() as { event: string; created: { kind: string; id: string; detail?: string }[] };
    expect(out.event).toBe(event);
    expect(out.created.length).toBeGreaterThan(0);
    for (const c of out.created) expect(c.id).toBeTruthy();
    expect(r.stderr).toContain(`Triggered ${event}`);
    // this trigger's own event (an earlier trigger may have emitted the same name as a side effect)
    expect(logged(), `no new delivery logged for ${event}`).toBeGreaterThan(before);
  }, 60_000);

  it('payment_link.paid names the charge the checkout made (its receipt_id), not the link', () => {
    const r = home.run(['trigger', 'payment_link.paid', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const { created } = r.json() as { created: { kind: string; id: string; detail?: string }[] };
    const link = created.find((c) => c.kind === 'payment_link')!;
    const paid = created.find((c) => c.kind === 'checkout_payment')!;
    expect(paid.id).not.toBe(link.id);
    const charge = home.run(['charges', 'get', paid.id, '-o', 'json']);
    expect(charge.code, charge.stderr).toBe(0);
    expect(charge.json()).toMatchObject({ id: paid.id, amount: 2_500, status: 'captured' });
    expect(paid.detail).toBe('paid through the hosted checkout: captured');
  }, 60_000);

  it.each([
    ['charge.captured', 'boleto', 'captured'],
    ['charge.captured', 'pix', 'captured'],
    ['charge.pending', 'boleto', 'pending'],
    ['charge.expired', 'pix', 'expired'],
  ])('%s --payment-method %s: the event from a charge of that method', (event, method, status) => {
    const r = home.run(['trigger', event, '--payment-method', method, '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const { created } = r.json() as { created: { kind: string; id: string }[] };
    const charge = home.run(['charges', 'get', created.find((c) => c.kind === 'charge')!.id, '-o', 'json']).json() as Record<string, unknown>;
    expect(charge).toMatchObject({ payment_method: method, status });
    if (method === 'pix' && event === 'charge.expired') expect(charge.pix).toMatchObject({ qr_code: expect.stringContaining('/cobv/') });
  }, 60_000);

  it.each([
    ['chargeback.lost', 'lost'],
    ['chargeback.won', 'won'],
  ])('%s --payment-method pix: a MED of a paid PIX, decided %s', (event, status) => {
    const wallet = home.run(['merchant', 'get', '-o', 'json']).json().wallet_id as string;
    const balance = () => (home.run(['wallets', 'list', '-o', 'json']).json() as { id: string; balance: number }[]).find((w) => w.id === wallet)!.balance;
    const before = balance();
    const r = home.run(['trigger', event, '--payment-method', 'pix', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const { created } = r.json() as { created: { kind: string; id: string }[] };
    const med = home.run(['chargebacks', 'get', created.find((c) => c.kind === 'med')!.id, '-o', 'json']).json() as Record<string, any>;
    expect(med).toMatchObject({ type: 'med', status, fee_amount: 0 });
    if (status === 'lost') {
      expect(med.return_id).toMatch(/^D99999999\d{12}[A-Za-z0-9]{11}$/);
      expect(balance()).toBe(before); // the PIX's fee credited back by the sandbox
    } else {
      expect(med.return_id).toBeNull();
      const charge = home.run(['charges', 'get', med.charge_id, '-o', 'json']).json() as { net_amount: number };
      expect(balance()).toBe(before + charge.net_amount); // the PIX's net, as any paid PIX
    }
  }, 60_000);

  it('charge.refunded --payment-method pix: a paid PIX refunded in full, a devolução with its return id', () => {
    const r = home.run(['trigger', 'charge.refunded', '--payment-method', 'pix', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const { created } = r.json() as { created: { kind: string; id: string; detail?: string }[] };
    const id = created.find((c) => c.kind === 'charge')!.id;
    expect(home.run(['charges', 'get', id, '-o', 'json']).json()).toMatchObject({ payment_method: 'pix', status: 'refunded' });
    const refunds = home.run(['charges', 'refunds', id, '-o', 'json']).json() as { return_id: string }[];
    expect(refunds).toHaveLength(1);
    expect(refunds[0]!.return_id).toMatch(/^D99999999\d{12}[A-Za-z0-9]{11}$/);
    expect(created.find((c) => c.kind === 'refund')!.detail).toContain(`return id ${refunds[0]!.return_id}`);
  }, 60_000);

  it('--payment-method a charge event cannot take is a usage error naming those it can, and creates nothing', () => {
    const charges = () => (home.run(['charges', 'list', '--all', '-o', 'json']).json() as unknown[]).length;
    const before = charges();
    const r = home.run(['trigger', 'charge.failed', '--payment-method', 'boleto']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('charge.failed takes --payment-method credit_card');
    const w = home.run(['trigger', 'withdrawal.failed', '--payment-method', 'pix']);
    expect(w.code).toBe(2);
    expect(w.stderr).toContain('takes no --payment-method');
    expect(charges()).toBe(before);
  });

  it('an unknown event is a usage error naming the allowed ones', () => {
    const r = home.run(['trigger', 'charge.exploded']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('charge.captured');
    expect(home.run(['trigger']).code).toBe(2);
  });
});

// A value to copy in a detail cell (a checkout URL) is never cut: on a real terminal it prints
// whole, alone on its line below the box, as the other commands print such values.
describe.runIf(hasTmux).each([80, 100, 120])('trigger on a terminal of %i columns', (width) => {
  /** the lines `mpay trigger ARGS` leaves on a terminal `width` columns wide, and those inside the box */
  async function onTerminal(args: string[]): Promise<{ screen: string; lines: string[]; boxed: string[] }> {
    const t = tmuxMpay(home.dir, home.env, ['trigger', ...args], { width, height: 100, name: `trig${width}` });
    try {
      const code = await t.exitCode(60_000);
      const screen = t.screen();
      expect(code, screen).toBe(0);
      const lines = screen.split('\n').map((l) => l.trimEnd());
      return { screen, lines, boxed: lines.filter((l) => /[│┌└├]/.test(l)) };
    } finally {
      t.kill();
    }
  }
  const newest = <T extends { created_at: string }>(rows: T[]) => rows.sort((a, b) => b.created_at.localeCompare(a.created_at))[0]!;

  it('payment_link.created prints the checkout URL whole below the box', async () => {
    const { screen, lines, boxed } = await onTerminal(['payment_link.created']);
    const link = newest(home.run(['links', 'list', '-o', 'json']).json() as { id: string; checkout_url: string; created_at: string }[]);
    expect(screen).toContain(link.id);
    expect(lines, screen).toContain(link.checkout_url);
    expect(boxed.some((l) => l.includes('checkout/')), screen).toBe(false);
    expect(boxed.find((l) => l.includes('payment_link')), screen).toMatch(/below/);
  }, 90_000);

  it('charge.pending --payment-method boleto prints the slip URL whole below the box', async () => {
    const { screen, lines, boxed } = await onTerminal(['charge.pending', '--payment-method', 'boleto']);
    const charges = home.run(['charges', 'list', '--payment-method', 'boleto', '-o', 'json']).json() as { id: string; created_at: string; boleto: { url: string } }[];
    const c = newest(charges);
    expect(screen).toContain(c.id);
    expect(lines, screen).toContain(c.boleto.url);
    expect(boxed.some((l) => l.includes('/boleto/')), screen).toBe(false);
    expect(boxed.join('\n'), screen).toMatch(/below/); // the detail's prose may wrap onto more lines
  }, 90_000);
});
