import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { testEnv, type TestEnv } from '../helpers/server.js';
import type { SqlValue } from '../../src/store/db.js';
import { addSubmerchant, balanceOf, cardCharge, chargeBody, checkLedger, tokenize } from '../helpers/money.js';
import { parseBrCode } from '../../src/domain/brcode.js';
import { addressBody } from '../helpers/onboarding.js';

let env: TestEnv;
beforeEach(async () => {
  env = await testEnv();
});
afterEach(async () => env.close());

describe('card charges', () => {
  it('captures an approved card and returns it in its final state, with its events', async () => {
    const r = await cardCharge(env, 10000, 3);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const c = r.body.data;
    expect(c).toMatchObject({
      status: 'captured',
      amount: 10000,
      currency: 'BRL',
      payment_method: 'credit_card',
      installments: 3,
      fee_amount: 349,
      net_amount: 9651,
      failure_code: null,
      card: { brand: 'visa', first_six: '411111', last_four: '1111', holder_name: 'Ana Souza' },
      pix: null,
    });
    expect(c.captured_at).toBe(env.clock.now().toISOString());
    const events = await env.rt.deps.db.all<{ type: string }>('SELECT type FROM events WHERE charge_id = ? ORDER BY created_at, id', [c.id]);
    expect(events.map((e) => e.type)).toEqual(['charge.pending', 'charge.captured']); // in this order (ids increase)
    const got = await env.call('GET', `/v1/charges/${c.id}`);
    expect(got.body.data).toEqual(c);
  });

  it.each([
    ['4000000000000002', 'card_declined'],
    ['4000000000009995', 'insufficient_funds'],
  ])('declines the test card %s with %s, and creates no receivable', async (number, code) => {
    const r = await cardCharge(env, 5000, 1, {}, number);
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ status: 'failed', failure_code: code, fee_amount: null });
    expect(r.body.data.failure_reason).toBeTruthy();
    expect(r.body.message).toContain(code);
    const rec = await env.call('GET', `/v1/receivables?charge_id=${r.body.data.id}`);
    expect(rec.body.data).toEqual([]);
    const ev = await env.rt.deps.db.all<{ type: string }>('SELECT type FROM events WHERE charge_id = ? ORDER BY id', [r.body.data.id]);
    expect(ev.map((e) => e.type)).toEqual(['charge.pending', 'charge.failed']);
  });

  it('a token charged again is not decrypted again; its expiry is judged at each charge, and a changed blob is read anew', async () => {
    const token = await tokenize(env); // 12/2030
    const decrypt = vi.spyOn(env.rt.deps.keyring, 'decrypt');
    const charge = () => env.call('POST', '/v1/charges', chargeBody(1000, { payment_method: 'credit_card', payment_details: { token } }));
    for (let i = 0; i < 3; i++) expect((await charge()).body.data).toMatchObject({ status: 'captured', card: { holder_name: 'Ana Souza' } });
    expect(decrypt).toHaveBeenCalledTimes(1);
    env.clock.set(new Date('2031-01-01T12:00:00Z'));
    expect((await charge()).body.data).toMatchObject({ status: 'failed', failure_code: 'expired_card', card: { holder_name: 'Ana Souza' } });
    expect(decrypt).toHaveBeenCalledTimes(1);
    env.clock.set(new Date('2030-12-31T12:00:00Z'));
    expect((await charge()).body.data).toMatchObject({ status: 'captured' });
    const row = await env.rt.deps.db.get<{ encrypted: string }>('SELECT encrypted FROM card_tokens WHERE token = ?', [token]);
    const raw = Buffer.from(row!.encrypted, 'base64');
    raw[raw.length - 1]! ^= 1;
    await env.rt.deps.db.run('UPDATE card_tokens SET encrypted = ? WHERE token = ?', [raw.toString('base64'), token]);
    expect((await charge()).body.data).toMatchObject({ status: 'failed', failure_code: 'processing_error', card: { holder_name: '' } });
    expect(decrypt).toHaveBeenCalledTimes(2);
  });

  it("a card POST reads no wallet in its transaction: its key's principal carries the merchant's, read with the key", async () => {
    const token = await tokenize(env);
    // other wallets the key's read must not take: a submerchant's of this merchant, another merchant's
    await addSubmerchant(env);
    await env.newMerchant('Outra');
    const db = env.rt.deps.db;
    const tx = db.tx.bind(db);
    const reads: string[] = [];
    db.tx = (fn) =>
      tx((q) =>
        fn(
          new Proxy(q, {
            get(target, key) {
              if (key === 'get') {
                return (sql: string, params?: readonly SqlValue[]) => {
                  reads.push(sql);
                  return target.get(sql, params);
                };
              }
              const v = Reflect.get(target, key);
              return typeof v === 'function' ? v.bind(target) : v;
            },
          }),
        ),
      );
    const r = await env.call('POST', '/v1/charges', chargeBody(1000, { payment_method: 'credit_card', payment_details: { token } }));
    expect(r.body.data.status).toBe('captured');
    expect(reads.some((sql) => sql.includes('card_tokens'))).toBe(true); // the watch sees the transaction's reads
    expect(reads.filter((sql) => sql.includes('wallets'))).toEqual([]);
    const wallet = await db.get<{ id: string }>("SELECT id FROM wallets WHERE owner_type = 'merchant' AND owner_id = ?", [env.merchant.merchant_id]);
    const rec = await db.all<{ wallet_id: string }>('SELECT wallet_id FROM receivables WHERE charge_id = ?', [r.body.data.id]);
    expect(rec).toEqual([{ wallet_id: wallet!.id }]);
  });

  it("422 invalid_token for another merchant's token or an unknown one", async () => {
    const other = await env.newMerchant('Outra');
    const foreign = await tokenize(env, '4111111111111111', other);
    for (const token of [foreign, 'tok_nope']) {
      const r = await env.call('POST', '/v1/charges', chargeBody(1000, { payment_method: 'credit_card', payment_details: { token } }));
      expect(r.status).toBe(422);
      expect(r.body.error).toBe('invalid_token');
    }
    const n = await env.rt.deps.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM charges');
    expect(n!.n).toBe(0);
  });

  it('installments 1–12 only', async () => {
    const token = await tokenize(env);
    for (const installments of [0, 13, 1.5]) {
      const r = await env.call('POST', '/v1/charges', chargeBody(10000, { payment_method: 'credit_card', payment_details: { token, installments } }));
      expect(r.status).toBe(400);
      expect(r.body.details[0].field).toBe('payment_details.installments');
    }
    const ok = await env.call('POST', '/v1/charges', chargeBody(10000, { payment_method: 'credit_card', payment_details: { token, installments: 12 } }));
    expect(ok.status).toBe(201);
    expect(ok.body.data.fee_amount).toBe(399);
  });

  it('amount must equal Σ quantity × unit_price + shipping_amount', async () => {
    const token = await tokenize(env);
    const items = [
      { name: 'Camiseta', quantity: 2, unit_price: 4990, tangible: true },
      { name: 'Boné', quantity: 1, unit_price: 3000, tangible: true },
    ];
    const base = { product_type: 'physical', items, payment_method: 'credit_card', payment_details: { token } };
    const bad = await env.call('POST', '/v1/charges', { ...chargeBody(13000), ...base });
    expect(bad.status).toBe(400);
    expect(bad.body.details[0]).toMatchObject({ field: 'amount' });
    expect(bad.body.message).toContain('12980');
    const noShip = await env.call('POST', '/v1/charges', { ...chargeBody(14480), ...base });
    expect(noShip.status).toBe(400);
    const ok = await env.call('POST', '/v1/charges', { ...chargeBody(14480), ...base, shipping_amount: 1500 });
    expect(ok.status).toBe(201);
    expect(ok.body.data).toMatchObject({ amount: 14480, shipping_amount: 1500, items });
  });

  it('validates the body: customer, items, currency, unknown fields and payment_method', async () => {
    const token = await tokenize(env);
    const card = { payment_method: 'credit_card', payment_details: { token } };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...chargeBody(1000), ...card, currency: 'USD' }, 'currency'],
      [{ ...chargeBody(1000), ...card, customer: { ...(chargeBody(1).customer as object), tax_id: '12345678900' } }, 'customer.tax_id'],
      [{ ...chargeBody(1000), ...card, customer: { ...(chargeBody(1).customer as object), email: 'nope' } }, 'customer.email'],
      [{ ...chargeBody(1000), ...card, items: [{ name: 'x', quantity: 0, unit_price: 1000, tangible: false }] }, 'items[0].quantity'],
      [{ ...chargeBody(1000), ...card, items: [] }, 'items'],
      [{ ...chargeBody(1000), ...card, colour: 'blue' }, 'colour'],
      [{ ...chargeBody(1000), payment_method: 'debit_card', payment_details: {} }, 'payment_method'],
      [{ ...chargeBody(1000), ...card, product_type: 'food' }, 'product_type'],
      [{ ...chargeBody(1_000_000_001), ...card }, 'amount'],
      [{ ...chargeBody(1000), payment_method: 'credit_card', payment_details: { installments: 2 } }, 'payment_details.token'],
    ];
    for (const [body, field] of cases) {
      const r = await env.call('POST', '/v1/charges', body);
      expect(r.status, field).toBe(400);
      expect(r.body.details.map((d: { field: string }) => d.field), field).toContain(field);
    }
    const ok = await env.call('POST', '/v1/charges', { ...chargeBody(1000), ...card, currency: 'BRL', metadata: { order: 'A-1' } });
    expect(ok.status).toBe(201);
    expect(ok.body.data.metadata).toEqual({ order: 'A-1' });
  });
});

describe('pix charges', () => {
  it('BR Code: field 62/05 is ***, the location is an immediate charge (/cob/), field 60 the city of the seller or the stated default', async () => {
    const plain = (await env.call('POST', '/v1/charges', chargeBody(10000, { payment_method: 'pix' }))).body.data;
    const a = parseBrCode(plain.pix.qr_code);
    expect(a.crcValid).toBe(true);
    expect(a.fields['62']).toBe('0503***');
    const loc = parseBrCode(a.fields['26']!).fields['25']!;
    expect(loc).toBe(`pix.sandbox.mpay.dev/v2/cob/${plain.id.replace(/-/g, '')}`);
    expect(loc).not.toContain('/cobv/');
    expect(a.fields['60']).toBe('SAO PAULO'); // the merchant has no address: the stated default
    const sub = await addSubmerchant(env);
    const addr = await env.call('POST', `/v1/submerchants/${sub.id}/addresses`, addressBody({ city: 'Ribeirão Preto', zip_code: '14010000' }));
    expect(addr.status, JSON.stringify(addr.body)).toBe(201);
    const forSub = (await env.call('POST', '/v1/charges', chargeBody(10000, { payment_method: 'pix', submerchant_id: sub.id }))).body.data;
    const b = parseBrCode(forSub.pix.qr_code);
    expect(b.crcValid).toBe(true);
    expect(b.fields['60']).toBe('RIBEIRAO PRETO');
  });

  it('returns a BR Code with a valid CRC, stays pending until paid, then credits the wallet net of 0.99 %', async () => {
    const r = await env.call('POST', '/v1/charges', chargeBody(10000, { payment_method: 'pix' }));
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const c = r.body.data;
    expect(c).toMatchObject({ status: 'pending', payment_method: 'pix', installments: 1, card: null });
    const { fields, crcValid } = parseBrCode(c.pix.qr_code);
    expect(crcValid).toBe(true);
    expect(fields['54']).toBe('100.00');
    expect(fields['53']).toBe('986');
    expect(fields['26']).toContain('br.gov.bcb.pix');
    expect(c.pix.expires_at).toBe(new Date(env.clock.now().getTime() + 3600_000).toISOString());
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(0);

    const paid = await env.call('POST', `/v1/sandbox/charges/${c.id}/pay`);
    expect(paid.status).toBe(200);
    expect(paid.body.data).toMatchObject({ status: 'captured', fee_amount: 99, net_amount: 9901 });
    expect(await balanceOf(env, env.merchant.wallet_id)).toBe(9901);
    const entries = await env.call('GET', `/v1/wallets/${env.merchant.wallet_id}/entries`);
    expect(entries.body.data).toEqual([
      expect.objectContaining({ direction: 'credit', amount: 9901, balance_after: 9901, reference_type: 'charge', reference_id: c.id }),
    ]);
    const again = await env.call('POST', `/v1/sandbox/charges/${c.id}/pay`);
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('invalid_state');
    await checkLedger(env);
  });

  it('expires unpaid: failed with pix_expired once the clock passes expires_at', async () => {
    const r = await env.call('POST', '/v1/charges', chargeBody(5000, { payment_method: 'pix', payment_details: { expires_in: 600 } }));
    env.clock.advance(601_000);
    const got = await env.call('GET', `/v1/charges/${r.body.data.id}`);
    expect(got.body.data).toMatchObject({ status: 'failed', failure_code: 'pix_expired' });
    const pay = await env.call('POST', `/v1/sandbox/charges/${r.body.data.id}/pay`);
    expect(pay.status).toBe(409);
  });

  it('a card charge cannot be paid through the PIX sandbox route; unknown ids are 404', async () => {
    const c = await cardCharge(env, 1000);
    const r = await env.call('POST', `/v1/sandbox/charges/${c.body.data.id}/pay`);
    expect(r.status).toBe(422);
    const nf = await env.call('POST', `/v1/sandbox/charges/0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f/pay`);
    expect(nf.status).toBe(404);
  });

  it('the sandbox routes do not exist in production mode', async () => {
    const prod = await testEnv({ mode: 'production' });
    try {
      const r = await prod.call('POST', '/v1/sandbox/clock/advance', { days: 1 });
      expect(r.status).toBe(404);
    } finally {
      await prod.close();
    }
  });
});

describe('submerchants and split rules', () => {
  it('a submerchant charge puts every receivable in the submerchant wallet', async () => {
    const sub = await addSubmerchant(env);
    const r = await cardCharge(env, 10000, 2, { submerchant_id: sub.id });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.data.submerchant_id).toBe(sub.id);
    const rec = await env.call('GET', `/v1/receivables?charge_id=${r.body.data.id}`);
    expect(rec.body.data).toHaveLength(2);
    for (const x of rec.body.data) expect(x).toMatchObject({ submerchant_id: sub.id, wallet_id: sub.wallet_id });
  });

  it("404 for another merchant's submerchant, on the charge and in a split rule", async () => {
    const other = await env.newMerchant('Outra');
    const foreign = await addSubmerchant(env, other.merchant_id);
    const a = await cardCharge(env, 10000, 1, { submerchant_id: foreign.id });
    expect(a.status).toBe(404);
    const b = await cardCharge(env, 10000, 1, { split_rules: [{ submerchant_id: foreign.id, amount: 10000 }] });
    expect(b.status).toBe(404);
    expect(b.body.message).toContain('split_rules[0].submerchant_id');
    const n = await env.rt.deps.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM charges');
    expect(n!.n).toBe(0);
  });

  it('refuses a submerchant_id that no split rule pays, 400 naming submerchant_id; accepts one that a rule names', async () => {
    const [s0, s1, s2] = [await addSubmerchant(env), await addSubmerchant(env), await addSubmerchant(env)];
    const bad = await cardCharge(env, 10000, 1, {
      submerchant_id: s0.id,
      split_rules: [{ submerchant_id: s1.id, amount: 5000 }, { submerchant_id: s2.id, amount: 5000 }],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.details.map((d: { field: string }) => d.field)).toContain('submerchant_id');
    expect((await env.rt.deps.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM charges'))!.n).toBe(0);
    const ok = await cardCharge(env, 10000, 1, {
      submerchant_id: s1.id,
      split_rules: [{ submerchant_id: s1.id, amount: 5000 }, { submerchant_id: s2.id, amount: 5000 }],
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
  });

  it('splits by amount and by percentage; the rules must add up', async () => {
    const s1 = await addSubmerchant(env);
    const s2 = await addSubmerchant(env);
    const badSum = await cardCharge(env, 10000, 1, { split_rules: [{ submerchant_id: s1.id, amount: 6000 }, { amount: 3000 }] });
    expect(badSum.status).toBe(400);
    expect(badSum.body.details[0].field).toBe('split_rules');
    const badPct = await cardCharge(env, 10000, 1, { split_rules: [{ submerchant_id: s1.id, percentage: 60 }, { percentage: 30 }] });
    expect(badPct.status).toBe(400);
    const mixed = await cardCharge(env, 10000, 1, { split_rules: [{ submerchant_id: s1.id, percentage: 60 }, { amount: 4000 }] });
    expect(mixed.status).toBe(400);
    const both = await cardCharge(env, 10000, 1, { split_rules: [{ submerchant_id: s1.id, percentage: 60, amount: 6000 }] });
    expect(both.status).toBe(400);
    const dup = await cardCharge(env, 10000, 1, { split_rules: [{ submerchant_id: s1.id, amount: 5000 }, { submerchant_id: s1.id, amount: 5000 }] });
    expect(dup.status).toBe(400);
    const noFee = await cardCharge(env, 10000, 1, { split_rules: [{ submerchant_id: s1.id, amount: 10000, charge_processing_fee: false }] });
    expect(noFee.status).toBe(400);

    const pct = await cardCharge(env, 10001, 1, {
      split_rules: [{ submerchant_id: s1.id, percentage: 33.33 }, { submerchant_id: s2.id, percentage: 33.33 }, { percentage: 33.34 }],
    });
    expect(pct.status, JSON.stringify(pct.body)).toBe(201);
    // floor(10001 × 33.33 %) = 3333, twice; floor(10001 × 33.34 %) = 3334; remainder 1 to the first rule
    expect(pct.body.data.split_rules.map((r: { amount: number }) => r.amount)).toEqual([3334, 3333, 3334]);
  });
});

describe('the fee of a split charge is the fee of the whole charge', () => {
  const feesOf = async (chargeId: string) => {
    const rec = await env.call('GET', `/v1/receivables?charge_id=${chargeId}&per_page=100`);
    expect(rec.status).toBe(200);
    return rec.body.data as Array<{ wallet_id: string; fee_amount: number; gross_amount: number; installment: number }>;
  };
  const feeByWallet = (rs: Array<{ wallet_id: string; fee_amount: number }>) => {
    const m = new Map<string, number>();
    for (const r of rs) m.set(r.wallet_id, (m.get(r.wallet_id) ?? 0) + r.fee_amount);
    return m;
  };

  it('10001 in 1×: 299 unsplit and 299 split 33.33/33.33/33.34; the 2 cents left over to the first rule', async () => {
    const [s1, s2] = [await addSubmerchant(env), await addSubmerchant(env)];
    const whole = await cardCharge(env, 10001, 1);
    expect(whole.body.data.fee_amount).toBe(299);
    const split = await cardCharge(env, 10001, 1, {
      split_rules: [{ submerchant_id: s1.id, percentage: 33.33 }, { submerchant_id: s2.id, percentage: 33.33 }, { percentage: 33.34 }],
    });
    expect(split.status, JSON.stringify(split.body)).toBe(201);
    expect(split.body.data).toMatchObject({ fee_amount: 299, net_amount: 9702 });
    expect(split.body.data.split_rules.map((r: { charge_remainder_fee: boolean }) => r.charge_remainder_fee)).toEqual([true, false, false]);
    const rs = await feesOf(split.body.data.id);
    expect(rs.reduce((a, r) => a + r.fee_amount, 0)).toBe(299);
    expect(rs.reduce((a, r) => a + r.gross_amount, 0)).toBe(10001);
    expect(feeByWallet(rs).get(s1.wallet_id)).toBe(101);
    expect(feeByWallet(rs).get(s2.wallet_id)).toBe(99);
    await checkLedger(env);
  });

  it('100 in 1×: 3 unsplit and 3 split 50/50', async () => {
    const s1 = await addSubmerchant(env);
    expect((await cardCharge(env, 100, 1)).body.data.fee_amount).toBe(3);
    const split = await cardCharge(env, 100, 1, { split_rules: [{ submerchant_id: s1.id, percentage: 50 }, { percentage: 50 }] });
    expect(split.status, JSON.stringify(split.body)).toBe(201);
    expect(split.body.data.fee_amount).toBe(3);
    const rs = await feesOf(split.body.data.id);
    expect(rs.map((r) => r.fee_amount).sort()).toEqual([1, 2]);
    expect(feeByWallet(rs).get(s1.wallet_id)).toBe(2);
  });

  it('charge_remainder_fee names the party that takes the cents left over, of the amount and of the fee; in installments too', async () => {
    const [s1, s2] = [await addSubmerchant(env), await addSubmerchant(env)];
    const r = await cardCharge(env, 10001, 3, {
      split_rules: [
        { submerchant_id: s1.id, percentage: 33.33 },
        { submerchant_id: s2.id, percentage: 33.33, charge_remainder_fee: true },
        { percentage: 33.34 },
      ],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.data.split_rules.map((x: { amount: number }) => x.amount)).toEqual([3333, 3334, 3334]);
    expect(r.body.data.split_rules.map((x: { charge_remainder_fee: boolean }) => x.charge_remainder_fee)).toEqual([false, true, false]);
    // 10001 × 3.49 % = 349.03 → 349, whatever the split
    expect(r.body.data.fee_amount).toBe(349);
    const rs = await feesOf(r.body.data.id);
    expect(rs).toHaveLength(9);
    expect(rs.reduce((a, x) => a + x.fee_amount, 0)).toBe(349);
    expect(rs.reduce((a, x) => a + x.gross_amount, 0)).toBe(10001);
    // 349 × 3333 / 10001 = 116.3 → 116; 349 × 3334 / 10001 = 116.3 → 116, twice; 1 left over → s2
    expect(feeByWallet(rs).get(s1.wallet_id)).toBe(116);
    expect(feeByWallet(rs).get(s2.wallet_id)).toBe(117);
    await checkLedger(env);
  });

  it('refuses charge_remainder_fee on two rules, or not a boolean, naming the field; nothing written', async () => {
    const s1 = await addSubmerchant(env);
    const two = await cardCharge(env, 1000, 1, {
      split_rules: [
        { submerchant_id: s1.id, amount: 500, charge_remainder_fee: true },
        { amount: 500, charge_remainder_fee: true },
      ],
    });
    expect(two.status).toBe(400);
    expect(two.body.details[0].field).toBe('split_rules');
    expect(two.body.message).toContain('charge_remainder_fee');
    const notBool = await cardCharge(env, 1000, 1, { split_rules: [{ submerchant_id: s1.id, amount: 1000, charge_remainder_fee: 'yes' }] });
    expect(notBool.status).toBe(400);
    expect(notBool.body.details[0].field).toBe('split_rules[0].charge_remainder_fee');
    expect((await env.rt.deps.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM charges'))!.n).toBe(0);
  });
});

describe('lists', () => {
  it('filters charges by status, payment_method, submerchant_id and dates', async () => {
    const sub = await addSubmerchant(env);
    await cardCharge(env, 1000);
    await cardCharge(env, 1000, 1, {}, '4000000000000002');
    env.clock.advance(2 * 86_400_000);
    await env.call('POST', '/v1/charges', chargeBody(2000, { payment_method: 'pix', submerchant_id: sub.id }));
    const count = async (qs: string) => {
      const r = await env.call('GET', `/v1/charges?${qs}`);
      expect(r.status, qs).toBe(200);
      return r.body.pagination.total;
    };
    expect(await count('')).toBe(3);
    expect(await count('status=captured')).toBe(1);
    expect(await count('status=failed')).toBe(1);
    expect(await count('payment_method=pix')).toBe(1);
    expect(await count(`submerchant_id=${sub.id}`)).toBe(1);
    expect(await count('start_date=2026-01-16')).toBe(1);
    expect(await count('end_date=2026-01-15')).toBe(2);
    expect(await count('start_date=2026-01-15T12:00:00Z&end_date=2026-01-15T12:00:00Z')).toBe(2);
    const bad = await env.call('GET', '/v1/charges?start_date=yesterday');
    expect(bad.status).toBe(400);
    const badStatus = await env.call('GET', '/v1/charges?status=paid');
    expect(badStatus.status).toBe(400);
  });

  it("another merchant's charge is a 404", async () => {
    const c = await cardCharge(env, 1000);
    const other = await env.newMerchant('Outra');
    const res = await env.rt.app.request(`/v1/charges/${c.body.data.id}`, {
      headers: { authorization: env.auth(other) },
    });
    expect(res.status).toBe(404);
  });
});

describe('more charge rules', () => {
  it('a rejected submerchant cannot receive a charge (422); a pending one can', async () => {
    const rejected = await addSubmerchant(env, env.merchant.merchant_id, 'rejected');
    const r = await cardCharge(env, 1000, 1, { submerchant_id: rejected.id });
    expect(r.status).toBe(422);
    expect(r.body.error).toBe('business_rule');
    const pending = await addSubmerchant(env, env.merchant.merchant_id, 'pending');
    expect((await cardCharge(env, 1000, 1, { submerchant_id: pending.id })).status).toBe(201);
  });

  it('PIX expires_in: 60 s to 30 days', async () => {
    for (const expires_in of [59, 30 * 86_400 + 1]) {
      const r = await env.call('POST', '/v1/charges', chargeBody(1000, { payment_method: 'pix', payment_details: { expires_in } }));
      expect(r.status).toBe(400);
      expect(r.body.details[0].field).toBe('payment_details.expires_in');
    }
    const ok = await env.call('POST', '/v1/charges', chargeBody(1000, { payment_method: 'pix', payment_details: { expires_in: 60 } }));
    expect(ok.status).toBe(201);
    const withInstallments = await env.call('POST', '/v1/charges', chargeBody(1000, { payment_method: 'pix', payment_details: { installments: 2 } }));
    expect(withInstallments.status).toBe(400);
  });

  it('400 when a share is too small for its installments', async () => {
    const tooSmall = await cardCharge(env, 2, 3);
    expect(tooSmall.status).toBe(400);
    expect(tooSmall.body.details[0].field).toBe('payment_details.installments');
    const sub = await addSubmerchant(env);
    const tinyShare = await cardCharge(env, 1000, 12, { split_rules: [{ submerchant_id: sub.id, amount: 5 }, { amount: 995 }] });
    expect(tinyShare.status).toBe(400);
    expect(tinyShare.body.details[0].field).toBe('split_rules');
    expect((await cardCharge(env, 3, 3)).status).toBe(201);
  });
});
