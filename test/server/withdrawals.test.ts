import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runDueWork } from '../../src/server/due.js';
import { SANDBOX_PAYOUT_VALUES } from '../../src/domain/sandboxPayouts.js';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { addSubmerchant, balanceOf, CNPJ, CNPJ_ALNUM, CPF, fund } from '../helpers/money.js';

let env: TestEnv;
let wallet: string;
beforeEach(async () => {
  env = await testEnv();
  wallet = env.merchant.wallet_id;
  await fund(env, wallet, 100_000);
});
afterEach(async () => env.close());

let seq = 0;
const pix = (over: Record<string, unknown> = {}) => ({
  type: 'pix',
  wallet_id: wallet,
  amount: 10_000,
  pix_key: 'ana@example.com',
  pix_key_type: 'email',
  holder_document_type: 'cpf',
  holder_document: CPF,
  idempotency_key: `key-${++seq}`,
  ...over,
});
const bank = { bank_code: '341', branch_number: '1234', account_number: '56789-0', account_type: 'checking', holder_name: 'Loja da Ana LTDA', holder_tax_id: CNPJ };
const ted = (over: Record<string, unknown> = {}) => ({ type: 'ted', wallet_id: wallet, amount: 10_000, idempotency_key: `key-${++seq}`, ...bank, ...over });
const eth = '0x52908400098527886E0F7030069857D2E4169EE7';
const crypto = (over: Record<string, unknown> = {}) => ({
  type: 'cryptocurrency',
  wallet_id: wallet,
  amount: 10_000,
  idempotency_key: `key-${++seq}`,
  wallet_address: eth,
  network: 'ethereum',
  asset: 'USDC',
  ...over,
});

const count = async (sql: string, args: unknown[] = []) => Number((await env.rt.deps.db.get<{ n: number }>(sql, args as never))!.n);
const second = 1000;

describe('POST /v1/withdrawals', () => {
  it('creates a pending pix withdrawal, debits the wallet and writes withdrawal.pending in one go', async () => {
    const r = await env.call('POST', '/v1/withdrawals', pix({ metadata: { order: 'A1' } }));
    expect(r.status).toBe(201);
    const w = r.body.data;
    expect(w).toMatchObject({
      merchant_id: env.merchant.merchant_id,
      submerchant_id: null,
      wallet_id: wallet,
      type: 'pix',
      amount: 10_000,
      fee: 0,
      netAmount: 10_000,
      status: 'pending',
      recipient_id: null,
      recipient_snapshot: { type: 'pix', pix_key: 'ana@example.com', pix_key_type: 'email', holder_document_type: 'cpf', holder_document: CPF },
      metadata: { order: 'A1' },
      external_id: null,
      processed_at: null,
    });
    expect(await balanceOf(env, wallet)).toBe(90_000);
    const entries = await env.rt.deps.db.all<any>("SELECT * FROM wallet_entries WHERE reference_type = 'withdrawal'");
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ direction: 'debit', amount: 10_000, balance_after: 90_000, reference_id: w.id });
    const ev = await env.rt.deps.db.all<any>('SELECT type, resource_id FROM events');
    expect(ev).toEqual([{ type: 'withdrawal.pending', resource_id: w.id }]);
  });

  it('charges the contract fees: pix 0, ted 367, cryptocurrency 1 % with a 100 minimum (half up)', async () => {
    const t = await env.call('POST', '/v1/withdrawals', ted());
    expect(t.body.data).toMatchObject({ fee: 367, netAmount: 10_000 - 367 });
    const small = await env.call('POST', '/v1/withdrawals', crypto({ amount: 5_000 }));
    expect(small.body.data).toMatchObject({ fee: 100, netAmount: 4_900 });
    const big = await env.call('POST', '/v1/withdrawals', crypto({ amount: 12_350 }));
    expect(big.body.data).toMatchObject({ fee: 124, netAmount: 12_226 }); // 123.5 → 124
    const p = await env.call('POST', '/v1/withdrawals', pix({ amount: 1 }));
    expect(p.body.data).toMatchObject({ fee: 0, netAmount: 1 });
    // the wallet is debited the amount, the fee comes out of what the destination gets
    expect(await balanceOf(env, wallet)).toBe(100_000 - 10_000 - 5_000 - 12_350 - 1);
  });

  it('refuses an amount that does not exceed the fee (422) and writes nothing', async () => {
    for (const body of [ted({ amount: 367 }), crypto({ amount: 100 })]) {
      const r = await env.call('POST', '/v1/withdrawals', body);
      expect(r.status).toBe(422);
      expect(r.body.error).toBe('business_rule');
      expect(r.body.details[0].field).toBe('amount');
    }
    expect(await env.call('POST', '/v1/withdrawals', ted({ amount: 368 }))).toMatchObject({ status: 201 });
    expect(await count('SELECT COUNT(*) AS n FROM withdrawals')).toBe(1);
  });

  it('validates each pix key by its type and stores the canonical key', async () => {
    const good: [string, string, string][] = [
      ['cpf', '529.982.247-25', CPF],
      ['cnpj', '11.222.333/0001-81', CNPJ],
      ['cnpj', CNPJ_ALNUM.toLowerCase(), CNPJ_ALNUM],
      ['email', ' Ana.Souza@Example.COM ', 'ana.souza@example.com'],
      ['phone', '+55 (11) 98765-4321', '+5511987654321'],
      ['random', '123E4567-E89B-42D3-A456-426614174000', '123e4567-e89b-42d3-a456-426614174000'],
    ];
    for (const [type, key, canonical] of good) {
      const r = await env.call('POST', '/v1/withdrawals', pix({ pix_key_type: type, pix_key: key }));
      expect(r.status, `${type} ${key}`).toBe(201);
      expect(r.body.data.recipient_snapshot.pix_key).toBe(canonical);
    }
    const bad: [string, string][] = [
      ['cpf', '52998224724'],
      ['cpf', '11111111111'],
      ['cnpj', '11222333000182'],
      ['email', 'ana@'],
      ['email', CPF],
      ['phone', '+5511987654'],
      ['phone', '+5520987654321'], // DDD 20 does not exist
      ['phone', '+551134567890'], // landline: not a PIX key
      ['phone', '+1 415 555 0100'],
      ['random', 'not-a-uuid'],
      ['random', 'ana@example.com'],
    ];
    for (const [type, key] of bad) {
      const r = await env.call('POST', '/v1/withdrawals', pix({ pix_key_type: type, pix_key: key }));
      expect(r.status, `${type} ${key}`).toBe(400);
      expect(r.body.details).toEqual([{ field: 'pix_key', message: expect.any(String) }]);
    }
    const t = await env.call('POST', '/v1/withdrawals', pix({ pix_key_type: 'iban' }));
    expect(t.status).toBe(400);
    expect(t.body.details[0]).toEqual({ field: 'pix_key_type', message: 'must be one of: cpf, cnpj, email, phone, random' });
  });

  it('requires the holder document for email, phone and random keys, not for cpf or cnpj keys', async () => {
    for (const [type, key] of [
      ['email', 'ana@example.com'],
      ['phone', '+5511987654321'],
      ['random', '123e4567-e89b-42d3-a456-426614174000'],
    ]) {
      const r = await env.call('POST', '/v1/withdrawals', pix({ pix_key_type: type, pix_key: key, holder_document_type: undefined, holder_document: undefined }));
      expect(r.status).toBe(400);
      expect(r.body.details.map((d: any) => d.field).sort()).toEqual(['holder_document', 'holder_document_type']);
    }
    const cpfKey = await env.call('POST', '/v1/withdrawals', pix({ pix_key_type: 'cpf', pix_key: CPF, holder_document_type: undefined, holder_document: undefined }));
    expect(cpfKey.status).toBe(201);
    expect(cpfKey.body.data.recipient_snapshot).toEqual({ type: 'pix', pix_key: CPF, pix_key_type: 'cpf' });
    const badDoc = await env.call('POST', '/v1/withdrawals', pix({ holder_document: '52998224724' }));
    expect(badDoc.status).toBe(400);
    expect(badDoc.body.details[0].field).toBe('holder_document');
    const punct = await env.call('POST', '/v1/withdrawals', pix({ holder_document: '529.982.247-25' }));
    expect(punct.status).toBe(400);
    const cnpjDoc = await env.call('POST', '/v1/withdrawals', pix({ holder_document_type: 'cnpj', holder_document: CNPJ_ALNUM }));
    expect(cnpjDoc.status).toBe(201);
    const bad = await env.call('POST', '/v1/withdrawals', pix({ holder_document_type: 'rg' }));
    expect(bad.status).toBe(400);
    expect(bad.body.details[0].field).toBe('holder_document_type');
  });

  it('rejects unknown fields, a missing idempotency_key and a missing or unknown type', async () => {
    const u = await env.call('POST', '/v1/withdrawals', pix({ colour: 'blue' }));
    expect(u.status).toBe(400);
    expect(u.body.details).toContainEqual({ field: 'colour', message: 'is not a known field' });
    const k = await env.call('POST', '/v1/withdrawals', pix({ idempotency_key: undefined }));
    expect(k.status).toBe(400);
    expect(k.body.details).toContainEqual({ field: 'idempotency_key', message: 'is required: a unique string per withdrawal, e.g. payout-2026-01-31-001' });
    const t = await env.call('POST', '/v1/withdrawals', pix({ type: 'boleto' }));
    expect(t.status).toBe(400);
    expect(t.body.details).toEqual([{ field: 'type', message: 'must be one of: pix, ted, cryptocurrency' }]);
    const cents = await env.call('POST', '/v1/withdrawals', pix({ amount: 10.5 }));
    expect(cents.status).toBe(400);
    expect(cents.body.details[0].field).toBe('amount');
  });

  it('ted takes the bank fields inline (all of them) or a recipient_id, not both', async () => {
    const ok = await env.call('POST', '/v1/withdrawals', ted());
    expect(ok.status).toBe(201);
    expect(ok.body.data.recipient_snapshot).toEqual({ type: 'bank_account', ...bank });
    const missing = await env.call('POST', '/v1/withdrawals', ted({ bank_code: undefined }));
    expect(missing.status).toBe(400);
    expect(missing.body.details).toEqual([{ field: 'bank_code', message: 'is required for a ted withdrawal (or give recipient_id)' }]);
    const badTax = await env.call('POST', '/v1/withdrawals', ted({ holder_tax_id: '12345678900' }));
    expect(badTax.status).toBe(400);
    expect(badTax.body.details[0].field).toBe('holder_tax_id');
    const both = await env.call('POST', '/v1/withdrawals', ted({ recipient_id: '0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f' }));
    expect(both.status).toBe(400);
    expect(both.body.details.map((d: any) => d.field)).toContain('bank_code');
  });

  it('cryptocurrency checks the address against the network and the asset against what the network carries', async () => {
    expect((await env.call('POST', '/v1/withdrawals', crypto())).status).toBe(201);
    const btc = await env.call('POST', '/v1/withdrawals', crypto({ network: 'bitcoin', asset: 'BTC', wallet_address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq' }));
    expect(btc.status).toBe(201);
    expect(btc.body.data.recipient_snapshot).toEqual({ type: 'crypto', network: 'bitcoin', asset: 'BTC', wallet_address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq' });
    const wrongAsset = await env.call('POST', '/v1/withdrawals', crypto({ network: 'bitcoin', asset: 'USDT', wallet_address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq' }));
    expect(wrongAsset.status).toBe(400);
    expect(wrongAsset.body.details[0].field).toBe('asset');
    const wrongAddr = await env.call('POST', '/v1/withdrawals', crypto({ network: 'tron', asset: 'USDT' }));
    expect(wrongAddr.status).toBe(400);
    expect(wrongAddr.body.details[0].field).toBe('wallet_address');
    const missing = await env.call('POST', '/v1/withdrawals', crypto({ network: undefined }));
    expect(missing.status).toBe(400);
    expect(missing.body.details[0].field).toBe('network');
  });

  it('uses a saved recipient of the matching type and snapshots it; later changes do not touch the withdrawal', async () => {
    const rec = await env.call('PUT', '/v1/recipients', { type: 'bank_account', ...bank });
    expect(rec.status).toBe(201);
    const w = await env.call('POST', '/v1/withdrawals', { type: 'ted', wallet_id: wallet, amount: 5_000, idempotency_key: 'rec-1', recipient_id: rec.body.data.id });
    expect(w.status).toBe(201);
    expect(w.body.data.recipient_id).toBe(rec.body.data.id);
    expect(w.body.data.recipient_snapshot).toEqual({ type: 'bank_account', ...bank });
    await env.call('PUT', '/v1/recipients', { type: 'bank_account', ...bank, account_number: '11111-1' });
    const again = await env.call('GET', `/v1/withdrawals/${w.body.data.id}`);
    expect(again.body.data.recipient_snapshot.account_number).toBe('56789-0');

    const pixRec = await env.call('PUT', '/v1/recipients', { type: 'pix', pix_key: '+5511987654321', pix_key_type: 'phone', holder_name: 'Ana', holder_tax_id: CPF });
    const viaPix = await env.call('POST', '/v1/withdrawals', { type: 'pix', wallet_id: wallet, amount: 100, idempotency_key: 'rec-2', recipient_id: pixRec.body.data.id });
    expect(viaPix.status).toBe(201);
    expect(viaPix.body.data.recipient_snapshot).toEqual({
      type: 'pix',
      pix_key: '+5511987654321',
      pix_key_type: 'phone',
      holder_name: 'Ana',
      holder_document_type: 'cpf',
      holder_document: CPF,
    });

    const wrongType = await env.call('POST', '/v1/withdrawals', { type: 'cryptocurrency', wallet_id: wallet, amount: 5_000, idempotency_key: 'rec-3', recipient_id: rec.body.data.id });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.details[0]).toEqual({ field: 'recipient_id', message: 'is a bank_account recipient; a cryptocurrency withdrawal needs a crypto recipient' });

    const other = await env.newMerchant('Outra');
    const theirs = await env.call('PUT', '/v1/recipients', { type: 'bank_account', ...bank }, { authorization: env.auth(other) });
    const foreign = await env.call('POST', '/v1/withdrawals', { type: 'ted', wallet_id: wallet, amount: 5_000, idempotency_key: 'rec-4', recipient_id: theirs.body.data.id });
    expect(foreign.status).toBe(404);
  });

  it("withdraws from a submerchant's wallet with submerchant_id; another merchant's wallet or submerchant is a 404", async () => {
    const sub = await addSubmerchant(env);
    await fund(env, sub.wallet_id, 5_000);
    const ok = await env.call('POST', '/v1/withdrawals', pix({ wallet_id: sub.wallet_id, submerchant_id: sub.id, amount: 1_000 }));
    expect(ok.status).toBe(201);
    expect(ok.body.data).toMatchObject({ submerchant_id: sub.id, wallet_id: sub.wallet_id });
    expect(await balanceOf(env, sub.wallet_id)).toBe(4_000);
    expect(await balanceOf(env, wallet)).toBe(100_000);

    const mismatch = await env.call('POST', '/v1/withdrawals', pix({ wallet_id: wallet, submerchant_id: sub.id }));
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.details[0].field).toBe('wallet_id');

    const other = await env.newMerchant('Outra');
    const theirWallet = await env.call('POST', '/v1/withdrawals', pix({ wallet_id: other.wallet_id }));
    expect(theirWallet.status).toBe(404);
    const theirSub = await addSubmerchant(env, other.merchant_id);
    const r = await env.call('POST', '/v1/withdrawals', pix({ wallet_id: theirSub.wallet_id, submerchant_id: theirSub.id }));
    expect(r.status).toBe(404);
    const list = await env.call('GET', `/v1/withdrawals?submerchant_id=${sub.id}`);
    expect(list.body.data.map((w: any) => w.id)).toEqual([ok.body.data.id]);
  });

  it("refuses a withdrawal from the wallet of a submerchant that is not approved: 422 submerchant_not_approved, nothing written", async () => {
    for (const status of ['rejected', 'pending', 'under_review']) {
      const sub = await addSubmerchant(env, env.merchant.merchant_id, status);
      await fund(env, sub.wallet_id, 5_000);
      for (const body of [pix({ wallet_id: sub.wallet_id, submerchant_id: sub.id, amount: 1_000 }), pix({ wallet_id: sub.wallet_id, amount: 1_000 })]) {
        const r = await env.call('POST', '/v1/withdrawals', body);
        expect(r.status, status).toBe(422);
        expect(r.body.error).toBe('submerchant_not_approved');
        expect(r.body.message).toContain(status);
      }
      expect(await balanceOf(env, sub.wallet_id)).toBe(5_000);
    }
    expect(await count('SELECT COUNT(*) AS n FROM withdrawals')).toBe(0);
    const approved = await addSubmerchant(env, env.merchant.merchant_id, 'approved');
    await fund(env, approved.wallet_id, 5_000);
    expect((await env.call('POST', '/v1/withdrawals', pix({ wallet_id: approved.wallet_id, amount: 1_000 }))).status).toBe(201);
  });

  it('answers 422 insufficient_funds and leaves no trace; the key stays free for a later attempt', async () => {
    const r = await env.call('POST', '/v1/withdrawals', pix({ amount: 100_001, idempotency_key: 'big' }));
    expect(r.status).toBe(422);
    expect(r.body.error).toBe('insufficient_funds');
    expect(await count('SELECT COUNT(*) AS n FROM withdrawals')).toBe(0);
    expect(await count("SELECT COUNT(*) AS n FROM wallet_entries WHERE reference_type = 'withdrawal'")).toBe(0);
    expect(await count('SELECT COUNT(*) AS n FROM events')).toBe(0);
    expect(await balanceOf(env, wallet)).toBe(100_000);
    await fund(env, wallet, 1);
    const again = await env.call('POST', '/v1/withdrawals', pix({ amount: 100_001, idempotency_key: 'big' }));
    expect(again.status).toBe(201);
    expect(await balanceOf(env, wallet)).toBe(0);
  });
});

describe('idempotency_key', () => {
  it('same key and body → the same withdrawal (200); another body → 409; one debit', async () => {
    const body = pix({ idempotency_key: 'payout-1' });
    const a = await env.call('POST', '/v1/withdrawals', body);
    const b = await env.call('POST', '/v1/withdrawals', body);
    expect(a.status).toBe(201);
    expect(b.status).toBe(200);
    expect(b.body.data).toEqual(a.body.data);
    const c = await env.call('POST', '/v1/withdrawals', { ...body, amount: 10_001 });
    expect(c.status).toBe(409);
    expect(c.body.error).toBe('idempotency_conflict');
    // the same request written differently (formatted key) is the same request
    const d = await env.call('POST', '/v1/withdrawals', { ...body, pix_key: 'ANA@example.com' });
    expect(d.status).toBe(200);
    expect(await count("SELECT COUNT(*) AS n FROM wallet_entries WHERE reference_type = 'withdrawal'")).toBe(1);
    expect(await balanceOf(env, wallet)).toBe(90_000);
  });

  it('is scoped per merchant', async () => {
    const other = await env.newMerchant('Outra');
    await fund(env, other.wallet_id, 1_000);
    const mine = await env.call('POST', '/v1/withdrawals', pix({ idempotency_key: 'shared', amount: 500 }));
    const theirs = await env.call('POST', '/v1/withdrawals', pix({ idempotency_key: 'shared', amount: 500, wallet_id: other.wallet_id }), {
      authorization: env.auth(other),
    });
    expect(mine.status).toBe(201);
    expect(theirs.status).toBe(201);
    expect(theirs.body.data.id).not.toBe(mine.body.data.id);
  });

  it('200 concurrent identical requests → one withdrawal, one debit, no 5xx', async () => {
    const body = pix({ idempotency_key: 'storm', amount: 700 });
    const results = await Promise.all(Array.from({ length: 200 }, () => env.call('POST', '/v1/withdrawals', body)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 200)).toHaveLength(199);
    expect(new Set(results.map((r) => r.body.data.id)).size).toBe(1);
    expect(await count('SELECT COUNT(*) AS n FROM withdrawals')).toBe(1);
    expect(await count("SELECT COUNT(*) AS n FROM wallet_entries WHERE reference_type = 'withdrawal'")).toBe(1);
    expect(await balanceOf(env, wallet)).toBe(100_000 - 700);
  });

  it('holds on the database itself: a second row with the same key is refused by the UNIQUE constraint', async () => {
    await env.call('POST', '/v1/withdrawals', pix({ idempotency_key: 'uniq' }));
    await expect(
      env.rt.deps.db.run(
        `INSERT INTO withdrawals (id, merchant_id, wallet_id, type, acquirer_name, amount, fee, net_amount, status, recipient_snapshot, idempotency_key, request_hash, created_at, updated_at)
         SELECT ?, merchant_id, wallet_id, type, acquirer_name, amount, fee, net_amount, status, recipient_snapshot, idempotency_key, 'x', created_at, updated_at FROM withdrawals`,
        [env.rt.deps.ids()],
      ),
    ).rejects.toThrow(/unique/i);
  });
});

describe('transaction PIN', () => {
  it('is set, required, checked, changed and disabled', async () => {
    const set = await env.call('PUT', '/v1/merchant/pin', { pin: '4829' });
    expect(set.status).toBe(200);
    expect(set.body.data.pin_enabled).toBe(true);
    expect((await env.call('GET', '/v1/merchant')).body.data.pin_enabled).toBe(true);
    const stored = await env.rt.deps.db.get<{ pin_hash: string }>('SELECT pin_hash FROM merchants WHERE id = ?', [env.merchant.merchant_id]);
    expect(stored!.pin_hash).not.toContain('4829');

    const none = await env.call('POST', '/v1/withdrawals', pix());
    expect(none.status).toBe(422);
    expect(none.body.error).toBe('pin_required');
    const wrong = await env.call('POST', '/v1/withdrawals', pix({ pin: '1357' }));
    expect(wrong.status).toBe(422);
    expect(wrong.body.error).toBe('invalid_pin');
    expect(await count('SELECT COUNT(*) AS n FROM withdrawals')).toBe(0);
    const right = await env.call('POST', '/v1/withdrawals', pix({ pin: '4829' }));
    expect(right.status).toBe(201);

    const noCurrent = await env.call('PUT', '/v1/merchant/pin', { pin: '5173' });
    expect(noCurrent.status).toBe(422);
    expect(noCurrent.body.error).toBe('pin_required');
    const badCurrent = await env.call('PUT', '/v1/merchant/pin', { pin: '5173', current_pin: '0000' });
    expect(badCurrent.body.error).toBe('invalid_pin');
    expect((await env.call('PUT', '/v1/merchant/pin', { pin: '5173', current_pin: '4829' })).status).toBe(200);
    expect((await env.call('POST', '/v1/withdrawals', pix({ pin: '4829' }))).body.error).toBe('invalid_pin');

    const off = await env.call('DELETE', '/v1/merchant/pin', { current_pin: '5173' });
    expect(off.status).toBe(200);
    expect(off.body.data.pin_enabled).toBe(false);
    expect((await env.call('POST', '/v1/withdrawals', pix())).status).toBe(201);
    const again = await env.call('DELETE', '/v1/merchant/pin', { current_pin: '5173' });
    expect(again.status).toBe(409);
  });

  it('refuses malformed and easily guessed PINs', async () => {
    for (const pin of ['123', '12345', 'abcd', '1111', '1234', '9876']) {
      const r = await env.call('PUT', '/v1/merchant/pin', { pin });
      expect(r.status, pin).toBe(400);
      expect(r.body.details[0].field).toBe('pin');
    }
    expect((await env.call('DELETE', '/v1/merchant/pin', {})).status).toBe(400);
  });

  it('locks PIN-protected operations after 5 wrong PINs, even for the right one, until the lock passes', async () => {
    await env.call('PUT', '/v1/merchant/pin', { pin: '4829' });
    for (let i = 0; i < 4; i++) expect((await env.call('POST', '/v1/withdrawals', pix({ pin: '0000' }))).body.error).toBe('invalid_pin');
    const fifth = await env.call('POST', '/v1/withdrawals', pix({ pin: '0000' }));
    expect(fifth.body.error).toBe('pin_locked');
    const locked = await env.call('POST', '/v1/withdrawals', pix({ pin: '4829' }));
    expect(locked.status).toBe(422);
    expect(locked.body.error).toBe('pin_locked');
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    env.clock.advance(15 * 60 * second);
    expect((await env.call('POST', '/v1/withdrawals', pix({ pin: '4829' }))).status).toBe(201);
  });

  it('a right PIN clears nothing: at most 5 wrong PINs a window, whatever comes between', async () => {
    await env.call('PUT', '/v1/merchant/pin', { pin: '4829' });
    for (let i = 0; i < 4; i++) expect((await env.call('POST', '/v1/withdrawals', pix({ pin: '0000' }))).body.error).toBe('invalid_pin');
    expect((await env.call('POST', '/v1/withdrawals', pix({ pin: '4829', amount: 100 }))).status).toBe(201);
    const fifth = await env.call('POST', '/v1/withdrawals', pix({ pin: '0000' }));
    expect(fifth.body.error).toBe('pin_locked');
    expect((await env.call('POST', '/v1/withdrawals', pix({ pin: '4829', amount: 100 }))).body.error).toBe('pin_locked');
    // the window opened with the first wrong PIN: 15 minutes after it, five attempts again
    env.clock.advance(15 * 60 * second);
    expect((await env.call('POST', '/v1/withdrawals', pix({ pin: '0000' }))).body.error).toBe('invalid_pin');
    expect((await env.call('POST', '/v1/withdrawals', pix({ pin: '4829', amount: 100 }))).status).toBe(201);
  });

  it('a PIN change with the right current PIN does not reopen a window that wrong PINs spent', async () => {
    await env.call('PUT', '/v1/merchant/pin', { pin: '4829' });
    for (let i = 0; i < 4; i++) await env.call('PUT', '/v1/merchant/pin', { pin: '5173', current_pin: '0000' });
    expect((await env.call('PUT', '/v1/merchant/pin', { pin: '5173', current_pin: '4829' })).status).toBe(200);
    expect((await env.call('POST', '/v1/withdrawals', pix({ pin: '0000' }))).body.error).toBe('pin_locked');
    expect((await env.call('POST', '/v1/withdrawals', pix({ pin: '5173' }))).body.error).toBe('pin_locked');
    expect((await env.call('POST', '/v1/withdrawals', pix())).body.error).toBe('pin_locked');
  });
});

describe('lifecycle on the sandbox rail', () => {
  it('pending → processing → completed as due work runs on the merchant clock', async () => {
    const w = (await env.call('POST', '/v1/withdrawals', pix())).body.data;
    expect((await env.call('GET', `/v1/withdrawals/${w.id}`)).body.data.status).toBe('pending');
    env.clock.advance(1 * second);
    const p = (await env.call('GET', `/v1/withdrawals/${w.id}`)).body.data;
    expect(p.status).toBe('processing');
    expect(p.processed_at).toBe(new Date(Date.parse(w.created_at) + 1 * second).toISOString());
    expect(p.external_id).toMatch(/^E\d{8}\d{12}[A-Za-z0-9]{11}$/);
    env.clock.advance(2 * second);
    const c = (await env.call('GET', `/v1/withdrawals/${w.id}`)).body.data;
    expect(c).toMatchObject({ status: 'completed', failure_reason: null, failed_at: null, external_id: p.external_id });
    expect(c.completed_at).toBe(new Date(Date.parse(w.created_at) + 3 * second).toISOString());
    const ev = await env.rt.deps.db.all<any>('SELECT type FROM events ORDER BY created_at, id');
    expect(ev.map((e) => e.type)).toEqual(['withdrawal.pending', 'withdrawal.completed']);
    expect(await balanceOf(env, wallet)).toBe(90_000);
  });

  it('a late request runs every move that came due, stamped when each came due', async () => {
    const w = (await env.call('POST', '/v1/withdrawals', ted())).body.data;
    env.clock.advance(3600 * second);
    const c = (await env.call('GET', `/v1/withdrawals/${w.id}`)).body.data;
    expect(c.status).toBe('completed');
    expect(c.external_id).toMatch(/^TED\d{8}[0-9A-F]{12}$/);
    expect(Date.parse(c.completed_at) - Date.parse(c.processed_at)).toBe(2 * second);
  });

  it('an amount ending in 99 cents fails while processing and the debit is reversed', async () => {
    const w = (await env.call('POST', '/v1/withdrawals', pix({ amount: 1_099 }))).body.data;
    expect(await balanceOf(env, wallet)).toBe(100_000 - 1_099);
    env.clock.advance(1 * second);
    expect((await env.call('GET', `/v1/withdrawals/${w.id}`)).body.data.status).toBe('processing');
    env.clock.advance(2 * second);
    const f = (await env.call('GET', `/v1/withdrawals/${w.id}`)).body.data;
    expect(f).toMatchObject({ status: 'failed', failure_reason: 'destination_rejected', completed_at: null });
    expect(f.failed_at).toBeTruthy();
    expect(await balanceOf(env, wallet)).toBe(100_000);
    const rev = await env.rt.deps.db.all<any>("SELECT * FROM wallet_entries WHERE reference_type = 'withdrawal_reversal'");
    expect(rev).toHaveLength(1);
    expect(rev[0]).toMatchObject({ direction: 'credit', amount: 1_099, balance_after: 100_000, reference_id: w.id });
    const ev = await env.rt.deps.db.all<any>('SELECT type FROM events ORDER BY created_at, id');
    expect(ev.map((e) => e.type)).toEqual(['withdrawal.pending', 'withdrawal.failed']);
  });

  it('the pix key fail@mpay.test fails before processing; a completed or failed withdrawal never moves again', async () => {
    const w = (await env.call('POST', '/v1/withdrawals', pix({ pix_key: 'FAIL@mpay.test', amount: 2_000 }))).body.data;
    env.clock.advance(10 * second);
    const f = (await env.call('GET', `/v1/withdrawals/${w.id}`)).body.data;
    expect(f).toMatchObject({ status: 'failed', failure_reason: 'pix_key_not_found', processed_at: null, external_id: null });
    env.clock.advance(3600 * second);
    await env.call('GET', '/v1/withdrawals');
    expect(await balanceOf(env, wallet)).toBe(100_000);
    expect(await count("SELECT COUNT(*) AS n FROM wallet_entries WHERE reference_type = 'withdrawal_reversal'")).toBe(1);
  });

  it('every magic value of the table fails the way it says', async () => {
    for (const v of SANDBOX_PAYOUT_VALUES) {
      let body: Record<string, unknown>;
      if (v.field === 'amount') body = pix({ amount: 300 + (v.cents_ending ?? 0) });
      else if (v.field === 'pix_key') body = pix({ pix_key: v.equals, pix_key_type: 'email' });
      else if (v.field === 'account_number') body = ted({ account_number: v.equals });
      else body = crypto({ wallet_address: v.equals });
      const r = await env.call('POST', '/v1/withdrawals', body);
      expect(r.status, v.description).toBe(201);
      env.clock.advance(10 * second);
      const f = (await env.call('GET', `/v1/withdrawals/${r.body.data.id}`)).body.data;
      expect(f.status, v.description).toBe('failed');
      expect(f.failure_reason).toBe(v.failure_reason);
      expect(f.processed_at === null).toBe(v.fails_at === 'pending');
    }
    expect(await balanceOf(env, wallet)).toBe(100_000);
  });

  it('the due-work sweep (a server timer) moves due withdrawals of every merchant without a request', async () => {
    const w = (await env.call('POST', '/v1/withdrawals', pix())).body.data;
    env.clock.advance(5 * second);
    expect(await runDueWork(env.rt.deps)).toBe(2);
    const row = await env.rt.deps.db.get<any>('SELECT status FROM withdrawals WHERE id = ?', [w.id]);
    expect(row.status).toBe('completed');
    expect(await runDueWork(env.rt.deps)).toBe(0);
  });

  it('follows the merchant clock offset (sandbox clock)', async () => {
    const w = (await env.call('POST', '/v1/withdrawals', pix())).body.data;
    await env.rt.deps.db.run('UPDATE merchants SET clock_offset_ms = ? WHERE id = ?', [86_400_000, env.merchant.merchant_id]);
    expect(await runDueWork(env.rt.deps)).toBe(2);
    expect((await env.call('GET', `/v1/withdrawals/${w.id}`)).body.data.status).toBe('completed');
  });
});

describe('GET /v1/withdrawals', () => {
  it('lists newest first with status filter and pagination; another merchant sees none of them', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await env.call('POST', '/v1/withdrawals', pix({ amount: 1_000 + i }))).body.data.id);
      env.clock.advance(10);
    }
    const fail = (await env.call('POST', '/v1/withdrawals', pix({ amount: 1_099 }))).body.data.id;
    const all = await env.call('GET', '/v1/withdrawals?per_page=2');
    expect(all.body.pagination).toEqual({ page: 1, perPage: 2, total: 4, totalPages: 2 });
    expect(all.body.data.map((w: any) => w.id)).toEqual([fail, ids[2]]);
    env.clock.advance(5 * second);
    const failed = await env.call('GET', '/v1/withdrawals?status=failed');
    expect(failed.body.data.map((w: any) => w.id)).toEqual([fail]);
    expect((await env.call('GET', '/v1/withdrawals?status=completed')).body.pagination.total).toBe(3);
    expect((await env.call('GET', '/v1/withdrawals?status=done')).status).toBe(400);

    const other = await env.newMerchant('Outra');
    const theirs = await env.call('GET', '/v1/withdrawals', undefined, { authorization: env.auth(other) });
    expect(theirs.body.data).toEqual([]);
    const one = await env.call('GET', `/v1/withdrawals/${fail}`, undefined, { authorization: env.auth(other) });
    expect(one.status).toBe(404);
  });
});

describe('production mode', () => {
  it('processes withdrawals but ignores the sandbox magic values', async () => {
    const prod = await testEnv({ mode: 'production' });
    try {
      await fund(prod, prod.merchant.wallet_id, 10_000);
      const w = await prod.call('POST', '/v1/withdrawals', { ...pix({ amount: 1_099 }), wallet_id: prod.merchant.wallet_id });
      expect(w.status).toBe(201);
      prod.clock.advance(5 * second);
      expect((await prod.call('GET', `/v1/withdrawals/${w.body.data.id}`)).body.data.status).toBe('completed');
    } finally {
      await prod.close();
    }
  });
});
