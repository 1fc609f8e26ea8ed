import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SameInstantDue } from '../helpers/due.js';
import { faultyEnv, snapshot, type FaultyDb } from '../helpers/faulty.js';
import type { TestEnv } from '../helpers/server.js';
import { addSubmerchant, balanceOf, cardCharge, chargeBody, checkLedger, tokenize } from '../helpers/money.js';

let env: TestEnv & { fdb: FaultyDb };
beforeEach(async () => {
  env = await faultyEnv({ log: () => undefined }); // the injected crashes are logged as internal errors
});
afterEach(async () => env.close());

/**
 * Runs `op` with a crash injected before its 1st, 2nd, 3rd… write until it gets through
 * without reaching the fault. Every crashed attempt must answer `crashedStatus` (500; due work
 * answers the request anyway) and leave the database exactly as it was. Returns the number of writes of the successful run and its response.
 */
async function crashAtEveryWrite(op: () => Promise<{ status: number; body: any }>, crashedStatus = 500) {
  for (let k = 1; k < 500; k++) {
    const before = await snapshot(env.rt.deps.db);
    env.fdb.arm(k);
    const res = await op();
    const writes = env.fdb.writes;
    env.fdb.disarm();
    if (writes < k) return { writes, res };
    expect(res.status, `crash at write ${k}: ${JSON.stringify(res.body)}`).toBe(crashedStatus);
    expect(await snapshot(env.rt.deps.db), `crash at write ${k} left partial state`).toEqual(before);
  }
  throw new Error('operation never completed');
}

describe('a crash between two writes of a money operation leaves nothing behind', () => {
  it('PIX payment with a split (charge, receivables, two wallet credits, events)', async () => {
    const sub = await addSubmerchant(env);
    const c = await env.call('POST', '/v1/charges', chargeBody(10000, { payment_method: 'pix', split_rules: [{ submerchant_id: sub.id, amount: 6000 }, { amount: 4000 }] }));
    expect(c.status).toBe(201);
    const { writes, res } = await crashAtEveryWrite(() => env.call('POST', `/v1/sandbox/charges/${c.body.data.id}/pay`));
    expect(writes).toBeGreaterThanOrEqual(10);
    expect(res.status).toBe(200);
    // the whole fee 10000 × 0.99 % = 99, divided 60/40: 59.4 → 59, 39.6 → 39, 1 left over to the first rule
    expect(await balanceOf(env, sub.wallet_id)).toBe(6000 - 60);
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(4000 - 39);
    await checkLedger(env);
  });

  it('settlement of due receivables (a batch of four, in two wallets)', async () => {
    const sub = await addSubmerchant(env);
    const c = await cardCharge(env, 10000, 2, { split_rules: [{ submerchant_id: sub.id, percentage: 50 }, { percentage: 50 }] });
    expect(c.body.data.status).toBe('captured');
    env.clock.advance(61 * 86_400_000);
    // settlement is due work: a crash in it is logged and the request itself still answers
    // (200, with the receivables still pending); the next request settles them
    const { writes, res } = await crashAtEveryWrite(() => env.call('GET', '/v1/receivables'), 200);
    expect(writes).toBe(16);
    expect(res.body.data.every((r: { status: string }) => r.status === 'paid')).toBe(true);
    await checkLedger(env);
  });

  it('anticipation (anticipation, receivables, wallet credit, event)', async () => {
    await cardCharge(env, 30000, 3);
    const { writes, res } = await crashAtEveryWrite(() => env.call('POST', '/v1/anticipations', { amount: 30000 }));
    expect(writes).toBe(7);
    expect(res.body.data.status).toBe('approved');
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(res.body.data.total_net_amount);
    await checkLedger(env);
  });

  it('refund (receivables cancelled, wallets debited, charge refunded, event)', async () => {
    const sub = await addSubmerchant(env);
    const c = await cardCharge(env, 10000, 3, { split_rules: [{ submerchant_id: sub.id, amount: 5000 }, { amount: 5000 }] });
    env.clock.advance(34 * 86_400_000); // 18 Feb 2026, the first business day on or after D+30
    await env.call('GET', '/v1/merchant'); // settles installment 1 of both parties
    const { writes, res } = await crashAtEveryWrite(() => env.call('POST', `/v1/charges/${c.body.data.id}/refund`));
    // 4 receivables cancelled and their 4 deductions, 2 × (entry + balance) debits, the refund record, charge, event
    expect(writes).toBe(4 * 2 + 2 * 2 + 1 + 2);
    expect(res.body.data.status).toBe('refunded');
    expect(await balanceOf(env, sub.wallet_id)).toBe(0);
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(0);
    await checkLedger(env);
  });

  it('partial refund (receivables reduced, a wallet debited, refund record, refunded_amount, event)', async () => {
    const c = await cardCharge(env, 10000, 2);
    env.clock.advance(40 * 86_400_000); // past installment 1's business day (after Carnival 2026)
    await env.call('GET', '/v1/merchant'); // settles installment 1: +4826
    const { res } = await crashAtEveryWrite(() => env.call('POST', `/v1/charges/${c.body.data.id}/refund`, { amount: 7000 }));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'captured', refunded_amount: 7000 });
    // nets 4826 + 4825 = 9651; ⌊9651 × 0.7⌋ = 6755: installment 2 cancelled (4825), 1930 debited
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(4826 - 1930);
    expect((await env.call('GET', `/v1/charges/${c.body.data.id}/refunds`)).body.pagination.total).toBe(1);
    await checkLedger(env);
  });

  it('authorisation: the charge written authorized with its two events, nothing else', async () => {
    const body = chargeBody(10000, { payment_method: 'credit_card', capture: false, payment_details: { token: await tokenize(env), installments: 2 } });
    // writes: the charge (already authorized), charge.pending with charge.authorized (one INSERT)
    const { writes, res } = await crashAtEveryWrite(() => env.call('POST', '/v1/charges', body));
    expect(writes).toBe(2);
    expect(res.body.data.status).toBe('authorized');
    expect(await env.rt.deps.db.all('SELECT id FROM receivables')).toEqual([]);
  });

  it('partial capture with a split (charge, its scaled shares, receivables, event)', async () => {
    const sub = await addSubmerchant(env);
    const c = await cardCharge(env, 10000, 2, { capture: false, split_rules: [{ submerchant_id: sub.id, amount: 6000 }, { amount: 4000 }] });
    expect(c.body.data.status).toBe('authorized');
    const { writes, res } = await crashAtEveryWrite(() => env.call('POST', `/v1/charges/${c.body.data.id}/capture`, { amount: 7501 }));
    // the charge, 2 parties × 2 installments, charge.captured
    expect(writes).toBe(1 + 4 + 1);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'captured', captured_amount: 7501 });
    const sums = await env.rt.deps.db.get<{ g: number }>('SELECT SUM(gross_amount) AS g FROM receivables WHERE charge_id = ?', [c.body.data.id]);
    expect(Number(sums!.g)).toBe(7501);
  });

  it('capture under an Idempotency-Key: claim, capture and kept answer in one transaction', async () => {
    const c = await cardCharge(env, 10000, 1, { capture: false });
    const keys = () => env.rt.deps.db.all<{ state: string }>("SELECT state FROM idempotency_keys WHERE key = 'cap-crash'");
    const { writes, res } = await crashAtEveryWrite(async () => {
      const r = await env.call('POST', `/v1/charges/${c.body.data.id}/capture`, {}, { 'idempotency-key': 'cap-crash' });
      if (r.status === 500) expect(await keys()).toEqual([]);
      return r;
    });
    // the charge, one receivable, charge.captured, the key with its kept answer
    expect(writes).toBe(4);
    expect(res.body.data.status).toBe('captured');
    expect(await keys()).toEqual([{ state: 'done' }]);
  });

  it('void, asked for (charge and event) and under an Idempotency-Key (and the key)', async () => {
    const a = await cardCharge(env, 10000, 1, { capture: false });
    const plain = await crashAtEveryWrite(() => env.call('POST', `/v1/charges/${a.body.data.id}/void`));
    expect(plain.writes).toBe(2);
    expect(plain.res.body.data).toMatchObject({ status: 'voided', void_reason: 'requested' });
    const b = await cardCharge(env, 10000, 1, { capture: false });
    const keyed = await crashAtEveryWrite(() => env.call('POST', `/v1/charges/${b.body.data.id}/void`, undefined, { 'idempotency-key': 'void-crash' }));
    expect(keyed.writes).toBe(3);
    expect(keyed.res.body.data.status).toBe('voided');
  });

  it('expiry of two authorisations past their 7 days (due work: one transaction for the batch)', async () => {
    const a = (await cardCharge(env, 10000, 1, { capture: false })).body.data;
    const b = (await cardCharge(env, 5000, 1, { capture: false })).body.data;
    env.clock.advance(7 * 86_400_000);
    // a crash in due work is logged and the request still answers (200) with both still authorized
    const { writes, res } = await crashAtEveryWrite(() => env.call('GET', '/v1/charges?status=voided'), 200);
    expect(writes).toBe(2 * 2);
    expect(res.body.data.map((x: { id: string }) => x.id).sort()).toEqual([a.id, b.id].sort());
  });

  it('capture of an authorisation past its 7 days that the due work has not reached: voided (charge and event) or nothing, and a 409', async () => {
    // a request that skips the due work, as one within the production window may
    await env.close();
    env = await faultyEnv({ due: { batch: 100, skip: () => true, ran: () => undefined, wrote: () => undefined }, log: () => undefined });
    const a = (await cardCharge(env, 10000, 1, { capture: false })).body.data;
    env.clock.advance(7 * 86_400_000);
    const { writes, res } = await crashAtEveryWrite(() => env.call('POST', `/v1/charges/${a.id}/capture`));
    expect(writes).toBe(2);
    expect(res.status, JSON.stringify(res.body)).toBe(409);
    const row = await env.rt.deps.db.get('SELECT status, void_reason FROM charges WHERE id = ?', [a.id]);
    expect(row).toEqual({ status: 'voided', void_reason: 'expired' });
    expect(await env.rt.deps.db.all('SELECT id FROM receivables')).toEqual([]);
  });

  it('card charge: created and decided in one transaction, so a crash before any of its writes leaves nothing', async () => {
    const token = (await cardCharge(env, 100)).body.data; // tokenizes and charges once
    expect(token.status).toBe('captured');
    const tokenRow = await env.rt.deps.db.get<{ token: string }>('SELECT token FROM card_tokens');
    const body = chargeBody(10000, { payment_method: 'credit_card', payment_details: { token: tokenRow!.token, installments: 2 } });

    // writes: the charge (already captured), 2 receivables, charge.pending with charge.captured (one INSERT)
    const { writes, res: ok } = await crashAtEveryWrite(() => env.call('POST', '/v1/charges', body));
    expect(writes).toBe(4);
    expect(ok.status).toBe(201);
    expect(ok.body.data.status).toBe('captured');
    const ev = await env.rt.deps.db.all<{ type: string }>('SELECT type FROM events WHERE charge_id = ? ORDER BY id', [ok.body.data.id]);
    expect(ev.map((e) => e.type)).toEqual(['charge.pending', 'charge.captured']);
  });

  it('card charge under an Idempotency-Key: claim, charge and kept answer in one transaction; a crash before any of their writes leaves neither charge nor key', async () => {
    const body = chargeBody(10000, { payment_method: 'credit_card', payment_details: { token: await tokenize(env), installments: 2 } });
    const keys = () => env.rt.deps.db.all<{ state: string }>("SELECT state FROM idempotency_keys WHERE key = 'crash-key'");
    let crashes = 0;
    const { writes, res } = await crashAtEveryWrite(async () => {
      const r = await env.call('POST', '/v1/charges', body, { 'idempotency-key': 'crash-key' });
      if (r.status === 500) {
        crashes++;
        // nothing kept either: the same key runs again (an answer sent would have been on disk with its charge)
        expect(await keys()).toEqual([]);
      }
      return r;
    });
    // writes: the charge (already captured), 2 receivables, charge.pending with charge.captured (one INSERT), the key with its kept answer (one INSERT)
    expect(writes).toBe(5);
    expect(crashes).toBe(5);
    expect(res.status).toBe(201);
    expect(await keys()).toEqual([{ state: 'done' }]);
    const replay = await env.call('POST', '/v1/charges', body, { 'idempotency-key': 'crash-key' });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(res.body);
    const charges = await env.rt.deps.db.all('SELECT id FROM charges WHERE amount = 10000');
    expect(charges).toEqual([{ id: res.body.data.id }]);
  });

  it('a card charge left pending by an earlier version (decided in a second transaction) is decided by the due work', async () => {
    // the store is changed behind the app's back below, at the same instant: the due work must
    // not be skipped as in the production window (DUE_SKIP_MS) after the charge's idle run
    await env.close();
    env = await faultyEnv({ due: new SameInstantDue() });
    const first = (await cardCharge(env, 100)).body.data;
    // what an earlier version left behind after a crash between its two transactions
    await env.rt.deps.db.run(
      "UPDATE charges SET status = 'pending', fee_amount = NULL, net_amount = NULL, captured_at = NULL WHERE id = ?",
      [first.id],
    );
    await env.rt.deps.db.run('DELETE FROM receivables WHERE charge_id = ?', [first.id]);
    const later = await env.call('GET', `/v1/charges/${first.id}`);
    expect(later.body.data.status).toBe('captured');
    expect(await env.rt.deps.db.all('SELECT id FROM receivables WHERE charge_id = ?', [first.id])).toHaveLength(1);
  });
});

describe('a crash in a boleto or PIX with a due date leaves nothing behind', () => {
  const address = { street: 'Av. Paulista', number: '1000', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP', zip_code: '01310100' };
  const dueBody = (method: 'boleto' | 'pix', extra: Record<string, unknown> = {}) => {
    const base = chargeBody(10000, extra) as { customer: Record<string, unknown> };
    return { ...base, customer: { ...base.customer, address }, payment_method: method, payment_details: { due_date: '2026-01-25', fine: 200, interest: 100 } };
  };

  it('boleto create (its account and number, the charge, its event): a crashed create takes no number', async () => {
    const { writes, res } = await crashAtEveryWrite(() => env.call('POST', '/v1/charges', dueBody('boleto')));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(writes).toBeGreaterThanOrEqual(4);
    expect(res.body.data.boleto.our_number).toBe('000000000001');
  });

  it('boleto payment, late, with a split (charge, receivables, event)', async () => {
    const sub = await addSubmerchant(env);
    const c = await env.call('POST', '/v1/charges', dueBody('boleto', { split_rules: [{ submerchant_id: sub.id, amount: 6000 }, { amount: 4000 }] }));
    expect(c.status, JSON.stringify(c.body)).toBe(201);
    env.clock.advance(15 * 86_400_000);
    await env.call('GET', '/v1/merchant');
    const { writes, res } = await crashAtEveryWrite(() => env.call('POST', `/v1/sandbox/charges/${c.body.data.id}/pay`, {}));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(writes).toBeGreaterThanOrEqual(4);
    expect(res.body.data.paid_amount).toBeGreaterThan(10000);
    env.clock.advance(3 * 86_400_000);
    await env.call('GET', '/v1/merchant');
    await checkLedger(env);
  });

  it('PIX with a due date paid with a split (charge, receivables, two wallet credits, event)', async () => {
    const sub = await addSubmerchant(env);
    const c = await env.call('POST', '/v1/charges', dueBody('pix', { split_rules: [{ submerchant_id: sub.id, amount: 6000 }, { amount: 4000 }] }));
    expect(c.status, JSON.stringify(c.body)).toBe(201);
    const { writes, res } = await crashAtEveryWrite(() => env.call('POST', `/v1/sandbox/charges/${c.body.data.id}/pay`, {}));
    expect(res.status).toBe(200);
    expect(writes).toBeGreaterThanOrEqual(10);
    expect((await balanceOf(env, sub.wallet_id)) + (await balanceOf(env, env.merchant.wallet_id))).toBe(10000 - 99);
    await checkLedger(env);
  });

  it('PIX devolução (wallet debit, refund record with its return id, charge, event)', async () => {
    const c = await env.call('POST', '/v1/charges', chargeBody(10000, { payment_method: 'pix' }));
    expect((await env.call('POST', `/v1/sandbox/charges/${c.body.data.id}/pay`)).status).toBe(200);
    const { writes, res } = await crashAtEveryWrite(() => env.call('POST', `/v1/charges/${c.body.data.id}/refund`, { amount: 4000 }));
    // entry + balance, the refund record, the charge, the event
    expect(writes).toBe(2 + 1 + 1 + 1);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const refunds = (await env.call('GET', `/v1/charges/${c.body.data.id}/refunds`)).body.data;
    expect(refunds).toEqual([expect.objectContaining({ amount: 4000, return_id: expect.stringMatching(/^D99999999/) })]);
    await checkLedger(env);
  });

  it('MED opened (wallet debit below zero, chargeback, charge, event), then lost by due work (chargeback with its return id, event)', async () => {
    const c = await env.call('POST', '/v1/charges', chargeBody(10000, { payment_method: 'pix' }));
    expect((await env.call('POST', `/v1/sandbox/charges/${c.body.data.id}/pay`)).status).toBe(200);
    const { res } = await crashAtEveryWrite(() => env.call('POST', `/v1/sandbox/charges/${c.body.data.id}/med`, {}));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(9901 - 10000);
    env.clock.advance(7 * 86_400_000);
    const { writes } = await crashAtEveryWrite(() => env.call('GET', '/v1/merchant'), 200);
    expect(writes).toBeGreaterThanOrEqual(2);
    const cb = (await env.call('GET', `/v1/chargebacks/${res.body.data.id}`)).body.data;
    expect(cb).toMatchObject({ status: 'lost', fee_amount: 0, return_id: expect.stringMatching(/^D99999999/) });
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(9901 - 10000);
    await checkLedger(env);
  });

  it('expiry by due work (charge, event): the request still answers, the next one expires it', async () => {
    const c = await env.call('POST', '/v1/charges', { ...dueBody('boleto'), payment_details: { due_date: '2026-01-16', pay_until_days: 0 } });
    expect(c.status, JSON.stringify(c.body)).toBe(201);
    env.clock.advance(3 * 86_400_000);
    const { writes } = await crashAtEveryWrite(() => env.call('GET', '/v1/merchant'), 200);
    expect(writes).toBeGreaterThanOrEqual(2);
    expect((await env.call('GET', `/v1/charges/${c.body.data.id}`)).body.data.status).toBe('expired');
  });
});

