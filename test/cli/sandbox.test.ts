import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calendarRows, sandboxValueRows } from '../../src/cli/commands/sandboxValues/run.js';
import { addDays, holidays, localDate } from '../../src/domain/calendar.js';
import { DUE_PAYERS, TEST_CARDS, APPROVED_TEST_CARDS } from '../../src/domain/sandbox.js';
import { SANDBOX_PAYOUT_VALUES } from '../../src/domain/sandboxPayouts.js';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { embeddedCli } from '../helpers/embedded-cli.js';
import { cardCharge, chargeBody } from '../helpers/money.js';
import { addressBody, docBody, ok, pfBody } from '../helpers/onboarding.js';
import { cliHome } from '../helpers/cli.js';

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(async () => env.close());

const cli = embeddedCli(() => env);

describe('mpay sandbox values', () => {
  const rows = sandboxValueRows();

  it('lists every test card and payout magic value of the data modules', () => {
    for (const c of TEST_CARDS) {
      if (c.outcome === 'declined') expect(rows).toContainEqual(expect.objectContaining({ area: 'card', value: c.number, outcome: 'failed', code: c.failure_code }));
      else expect(rows).toContainEqual(expect.objectContaining({ area: 'card', value: c.number, outcome: 'captured', detail: expect.stringContaining(`disputed ${c.dispute_after_days} day(s) after capture`) }));
    }
    expect(TEST_CARDS.filter((c) => c.outcome === 'disputed').map((c) => c.number)).toEqual(['4000000000000259', '4000000000002685']);
    // the chargeback rows: the magic evidence text, both outcomes, and the fee
    const cb = rows.filter((r) => r.area === 'chargeback');
    expect(cb.map((r) => r.outcome)).toEqual(['open', 'won', 'lost', 'accepted']);
    expect(cb[1]!.value).toContain('winning_evidence');
    expect(cb[3]!.detail).toContain('R$ 15,00');
    // the MED rows: opened on a PIX, decided in 7 days by the same text, returned with a return id, no fee
    const med = rows.filter((r) => r.area === 'med');
    expect(med.map((r) => r.outcome)).toEqual(['open', 'won', 'lost', 'accepted']);
    expect(med[0]!.value).toBe('mpay sandbox med CHARGE_ID [--reason fraud|operational_flaw]');
    expect(med[0]!.detail).toContain('80 days after it was paid');
    expect(med[2]!.detail).toMatch(/decided 7 days after .*return_id.*no fee/);
    // a PIX refund is a devolução: its window, and the code past it
    expect(rows.find((r) => r.area === 'pix' && r.code === 'refund_window_closed')?.value).toBe('a refund after day 90');
    for (const n of APPROVED_TEST_CARDS) expect(rows).toContainEqual(expect.objectContaining({ area: 'card', value: n, outcome: 'captured', code: null }));
    for (const v of SANDBOX_PAYOUT_VALUES) {
      const row = rows.find((r) => r.area === `withdrawal (${v.type})` && r.code === v.failure_reason);
      expect(row, v.failure_reason).toBeDefined();
      if (v.equals) expect(row!.value).toContain(v.equals);
      else expect(row!.value).toContain(String(v.cents_ending));
    }
    expect(rows.map((r) => r.area)).toEqual(expect.arrayContaining(['pix', 'clock', 'review', 'anticipation', 'webhooks']));
    expect(rows.find((r) => r.area === 'pix' && r.outcome === 'failed')?.code).toBe('pix_expired');
    expect(rows.find((r) => r.area === 'clock')?.value).toMatch(/--days 1–3650/);
    // the review rows say notes are required to reject (taken from the request schema)
    expect(rows.find((r) => r.area === 'review' && r.outcome === 'rejected')?.value).toContain('--notes');
    expect(rows.find((r) => r.area === 'review' && r.outcome === 'approved')?.value).not.toContain('--notes');
  });

  it('each listed card number does on the service what the list says', async () => {
    for (const r of rows.filter((x) => x.area === 'card' && /^\d+$/.test(x.value))) {
      const res = await cardCharge(env, 1000, 1, {}, r.value);
      expect(res.status, r.value).toBe(201);
      expect(res.body.data.status, r.value).toBe(r.outcome);
      expect(res.body.data.failure_code ?? null, r.value).toBe(r.code);
    }
  });

  it('lists the boleto and PIX with a due date: bank 999-7, the fee, and each magic payer, which does on the service what the list says', async () => {
    expect(rows.find((r) => r.area === 'boleto')?.detail).toMatch(/bank 999-7.*R\$ 3,49/);
    expect(rows.find((r) => r.area === 'pix (due date)')?.outcome).toBe('pending');
    const payers = rows.filter((r) => r.value.startsWith('customer.email ending in'));
    expect(payers.map((r) => r.value)).toEqual(DUE_PAYERS.map((p) => `customer.email ending in ${p.suffix}@`));
    const expiry = rows.find((r) => r.outcome === 'expired' && r.value.startsWith('not paid'))!;
    expect(expiry.value).toContain('default 29');
    // its own merchant: the clock moves
    const own = await testEnv();
    try {
      const due = addDays(localDate(own.clock.now()), 2);
      const address = { street: 'Av. Paulista', number: '1000', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP', zip_code: '01310100' };
      const made: { id: string; outcome: string }[] = [];
      for (const r of [...payers, expiry]) {
        const suffix = /ending in (\w+)@/.exec(r.value)?.[1];
        const base = chargeBody(10_000) as { customer: Record<string, unknown> };
        const body = { ...base, customer: { ...base.customer, address, email: suffix ? `ana.${suffix}@example.com` : 'ana@example.com' }, payment_method: 'boleto', payment_details: { due_date: due } };
        const c = await own.call('POST', '/v1/charges', body);
        expect(c.status, JSON.stringify(c.body)).toBe(201);
        made.push({ id: c.body.data.id, outcome: r.outcome });
      }
      // past the last payable day of the default terms
      expect((await own.call('POST', '/v1/sandbox/clock/advance', { days: 40 })).status).toBe(200);
      for (const m of made) expect((await own.call('GET', `/v1/charges/${m.id}`)).body.data.status, m.id).toBe(m.outcome);
    } finally {
      await own.close();
    }
  });

  it('prints JSON when piped and a table on request, without opening any target', () => {
    const home = cliHome();
    try {
      const j = home.run(['sandbox', 'values']);
      expect(j.code, j.stderr).toBe(0);
      expect(j.stderr).toBe('');
      expect(j.json()).toEqual(rows);
      const t = home.run(['sandbox', 'values', '-o', 'table']);
      expect(t.code).toBe(0);
      expect(t.stdout).toContain('4000000000000002');
      expect(t.stdout).toContain('insufficient_funds');
      expect(t.stdout).toContain('┌');
      // offline: no data directory, no profile
      expect(existsSync(home.dataDir)).toBe(false);
      expect(existsSync(home.env.MPAY_CONFIG_DIR!)).toBe(false);
      const h = home.run(['sandbox', 'values', '--help']);
      expect(h.stdout).toContain('Examples:');
    } finally {
      home.cleanup();
    }
  });
});

// the holidays settlement moves past, shown offline
describe('mpay sandbox values / calendar: business-day settlement', () => {
  it('values state the rule and list this year\'s holidays, each with a capture whose D+30 falls on it', () => {
    const rows = sandboxValueRows();
    expect(rows.find((r) => r.area === 'settlement')?.detail).toMatch(/America\/Sao_Paulo.*Saturday, a Sunday or a national holiday/);
    const year = localDate(new Date()).slice(0, 4);
    const hs = rows.filter((r) => r.area === `holiday ${year}`);
    expect(hs.map((r) => r.value.slice(0, 10))).toEqual(holidays(Number(year)).map((h) => h.date));
    for (const r of hs) expect(r.outcome).toMatch(/^settles \d{4}-\d{2}-\d{2}$/);
  });

  it('a capture whose D+30 falls on Tiradentes settles on the day the calendar lists', async () => {
    const tiradentes = calendarRows(2026).find((h) => h.date === '2026-04-21')!;
    expect(tiradentes).toEqual({ date: '2026-04-21', weekday: 'Tuesday', name: 'Tiradentes', kind: 'fixed', settles_on: '2026-04-22' });
    const saved = env.clock.now();
    env.clock.set(new Date('2026-03-22T15:00:00Z')); // captured Sunday 22 March, noon in São Paulo
    try {
      const c = await cardCharge(env, 1000, 1);
      const r = await env.call('GET', `/v1/receivables?charge_id=${c.body.data.id}`);
      expect(r.body.data[0].settlement_date).toBe('2026-04-22T03:00:00.000Z');
    } finally {
      env.clock.set(saved);
    }
  });

  it('`sandbox calendar YEAR` prints the holidays of any year; a bad year is a usage error', () => {
    const home = cliHome();
    try {
      const j = home.run(['sandbox', 'calendar', '2027', '-o', 'json']);
      expect(j.code, j.stderr).toBe(0);
      expect(j.json()).toEqual(calendarRows(2027));
      expect(j.json().find((r: { name: string }) => r.name.startsWith('Sexta-feira Santa'))).toMatchObject({ date: '2027-03-26', settles_on: '2027-03-29' });
      const t = home.run(['sandbox', 'calendar', '2026', '-o', 'table']);
      expect(t.stdout).toContain('Corpus Christi');
      expect(t.stdout).toContain('2026-06-04');
      for (const bad of ['12', '20x6', '1500']) {
        const b = home.run(['sandbox', 'calendar', bad]);
        expect(b.code, bad).toBe(2);
        expect(b.stderr, bad).toMatch(/year must be a year from 1583 to 9999/);
        expect(b.stdout).toBe('');
      }
      expect(existsSync(home.dataDir)).toBe(false);
      expect(home.run(['sandbox', 'calendar', '--help']).stdout).toContain('Examples:');
    } finally {
      home.cleanup();
    }
  });
});

describe('mpay sandbox review --approve | --reject', () => {
  /** A pf submerchant with everything required: under_review. */
  async function underReview(): Promise<string> {
    const sub = await ok(env, 'POST', '/v1/submerchants', pfBody());
    await ok(env, 'POST', `/v1/submerchants/${sub.id}/addresses`, addressBody());
    for (const t of ['front_id', 'back_id', 'selfie_with_id', 'proof_of_residence']) await ok(env, 'POST', `/v1/submerchants/${sub.id}/documents`, docBody(t));
    expect((await ok(env, 'GET', `/v1/submerchants/${sub.id}`)).status).toBe('under_review');
    return sub.id;
  }

  it('--approve is --decision approve', async () => {
    const id = await underReview();
    const r = await cli(['sandbox', 'review', id, '--approve', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id, status: 'approved' });
  });

  it('--reject needs --notes, like --decision reject', async () => {
    const id = await underReview();
    const bare = await cli(['sandbox', 'review', id, '--reject']);
    expect(bare.code).toBe(1);
    expect(bare.stderr).toContain('notes');
    const r = await cli(['sandbox', 'review', id, '--reject', '--notes', 'selfie is blurred', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id, status: 'rejected', review_notes: 'selfie is blurred' });
  });

  it('conflicting choices are usage errors and change nothing', async () => {
    const id = await underReview();
    for (const args of [['--approve', '--reject'], ['--approve', '--decision', 'reject'], ['--reject', '--decision', 'approve', '--notes', 'x']]) {
      const r = await cli(['sandbox', 'review', id, ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/cannot be used with/);
    }
    expect((await ok(env, 'GET', `/v1/submerchants/${id}`)).status).toBe('under_review');
    const help = await cli(['sandbox', 'review', '--help']);
    expect(help.stdout).toContain('--approve');
    expect(help.stdout).toContain(`--approve\n`);
  });
});
