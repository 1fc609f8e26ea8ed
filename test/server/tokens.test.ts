import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Keyring } from '../../src/server/keyring.js';
import { chargeBody } from '../helpers/money.js';
import { basic, testEnv, type TestEnv } from '../helpers/server.js';

let env: TestEnv;
beforeEach(async () => {
  env = await testEnv();
});
afterEach(async () => env.close());

const card = (over: Record<string, string> = {}) => ({
  number: '4111111111111111',
  holderName: 'Ana Souza',
  expirationMonth: '12',
  expirationYear: '2030',
  cvv: '123',
  ...over,
});

async function tokenize(c: Record<string, string>, auth = basic(env.merchant.public_key, '')) {
  const res = await env.rt.app.request('/v1/tokens', {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify({ card: c }),
  });
  return { status: res.status, body: (await res.json()) as any };
}

/**
 * Where `needle` occurs in `text` other than inside a run of 20 or more hex, base64 or id
 * characters (an id, a hash, a ciphertext, where any four digits can turn up by chance): each
 * with the text around it.
 */
function standalone(text: string, needle: string): string[] {
  const run = /[0-9A-Za-z+/=_-]/;
  const found: string[] = [];
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + 1)) {
    let a = i;
    let b = i + needle.length;
    while (a > 0 && run.test(text[a - 1]!)) a--;
    while (b < text.length && run.test(text[b]!)) b++;
    if (b - a < 20) found.push(JSON.stringify(text.slice(Math.max(0, i - 16), i + needle.length + 16)));
  }
  return found;
}

describe('standalone (the CVV search of the test below)', () => {
  it('finds the digits as a value, in JSON or next to a short value, and not inside an id or a hash', () => {
    expect(standalone('{"cvv":"9876"}', '9876')).toHaveLength(1);
    expect(standalone('x\u0003amex00059876\u0001', '9876')).toHaveLength(1);
    expect(standalone('cvv=9876;', '9876')).toHaveLength(1);
    expect(standalone('0190a8a2-9876-7b3e-9f00-000000000000', '9876')).toEqual([]);
    expect(standalone('a3f09876c1d2e3f4a5b6c7d8e9f0a1b2c3d4', '9876')).toEqual([]);
  });
});

describe('POST /v1/tokens', () => {
  it('tokenizes with the public key alone and returns the seed result', async () => {
    const r = await tokenize(card());
    expect(r.status).toBe(201);
    expect(r.body.data).toEqual({
      token: expect.stringMatching(/^tok_/),
      brand: 'visa',
      lastFourDigits: '1111',
      firstSixDigits: '411111',
      expirationMonth: '12',
      expirationYear: '2030',
    });
  });

  it('a card on file tokenized again with the public key answers as a new card does: status, message, shape', async () => {
    const first = await tokenize(card());
    expect(first.status).toBe(201);
    // a stranger holding only the public key and the card number
    const probe = await tokenize(card({ holderName: 'MALLORY', expirationMonth: '01', expirationYear: '2031', cvv: '999' }));
    const fresh = await tokenize(card({ number: '5555555555554444', holderName: 'MALLORY' }));
    expect({ status: probe.status, message: probe.body.message }).toEqual({ status: fresh.status, message: fresh.body.message });
    expect(Object.keys(probe.body.data).sort()).toEqual(Object.keys(fresh.body.data).sort());
    expect(probe.body.data.token).not.toBe(first.body.data.token);
    expect(probe.body.data).toMatchObject({ expirationMonth: '01', expirationYear: '2031' });
  });

  it('tokenizing a card on file under another holder and expiry never changes the existing token', async () => {
    const first = await tokenize(card());
    await tokenize(card({ holderName: 'MALLORY', expirationMonth: '01', expirationYear: '2031', cvv: '999' }));
    // the merchant's next charge with its own token is still Ana's card, expiring 12/2030
    const charge = await env.call('POST', '/v1/charges', chargeBody(1000, { payment_method: 'credit_card', payment_details: { token: first.body.data.token, installments: 1 } }));
    expect(charge.status).toBe(201);
    expect(charge.body.data.card.holder_name).toBe('Ana Souza');
    const row = await env.rt.deps.db.get<{ encrypted: string; exp_month: string; exp_year: string }>(
      'SELECT encrypted, exp_month, exp_year FROM card_tokens WHERE token = ?',
      [first.body.data.token],
    );
    expect(row).toMatchObject({ exp_month: '12', exp_year: '2030' });
    expect(JSON.parse(env.rt.deps.keyring.decrypt(row!.encrypted))).toMatchObject({ holderName: 'Ana Souza', expirationMonth: '12', expirationYear: '2030' });
  });

  it('the same card with the same holder and expiry is the same token, answered as a first tokenization (201)', async () => {
    const a = await tokenize(card());
    const b = await tokenize(card({ cvv: '999' }));
    expect(b.status).toBe(201);
    expect(b.body.message).toBe(a.body.message);
    expect(b.body.data).toEqual(a.body.data);
    expect(await env.rt.deps.db.all('SELECT token FROM card_tokens')).toHaveLength(1);
    const other = await env.newMerchant('Outra');
    const c = await tokenize(card(), basic(other.public_key, ''));
    expect(c.status).toBe(201);
    expect(c.body.data.token).not.toBe(a.body.data.token);
  });

  it('two tokens of one card number share the number fingerprint, kept out of every answer', async () => {
    const a = await tokenize(card());
    const b = await tokenize(card({ holderName: 'Ana S Souza' }));
    expect(b.body.data.token).not.toBe(a.body.data.token);
    const rows = await env.rt.deps.db.all<{ fingerprint: string }>('SELECT fingerprint FROM card_tokens ORDER BY token');
    expect(rows).toHaveLength(2);
    expect(rows[0]!.fingerprint).toBe(rows[1]!.fingerprint);
    expect(JSON.stringify([a.body, b.body])).not.toContain(rows[0]!.fingerprint);
  });

  it('concurrent tokenizations of one card make one token', async () => {
    const all = await Promise.all(Array.from({ length: 8 }, () => tokenize(card())));
    expect(all.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect(new Set(all.map((r) => r.body.data.token)).size).toBe(1);
  });

  it.each([
    [{ number: '411111111111' }, 'card.number', 'at least 13 digits'],
    [{ number: '41111111111111111111' }, 'card.number', 'at most 19 digits'],
    [{ number: '4111111111111112' }, 'card.number', 'check digit'],
    [{ number: '9999999999999995' }, 'card.number', 'brand'],
    [{ cvv: '12' }, 'card.cvv', 'at least 3 digits'],
    [{ cvv: '12345' }, 'card.cvv', 'at most 4 digits'],
    [{ holderName: '  ' }, 'card.holderName', 'must not be empty'],
    // lengths per brand and CVV per brand
    [{ number: '3782822463100003' }, 'card.number', 'amex card has 15 digits'],
    [{ number: '378282246310005', cvv: '123' }, 'card.cvv', '4 digits'],
    [{ cvv: '1234' }, 'card.cvv', '3 digits'],
    [{ number: '5555555555554444', cvv: '9876' }, 'card.cvv', '3 digits'],
    [{ number: '41111111111111113' }, 'card.number', 'visa card has 13, 16 or 19 digits'],
    [{ number: '411111111111116' }, 'card.number', 'visa card has 13, 16 or 19 digits'],
    [{ number: '555555555555442' }, 'card.number', 'mastercard card has 16 digits'],
    [{ number: '305693090259049' }, 'card.number', 'diners card has 14 digits'],
    [{ number: '63629700004570135' }, 'card.number', 'elo card has 16 digits'],
    [{ expirationMonth: '13' }, 'card.expirationMonth', '01 to 12'],
    [{ expirationYear: '30' }, 'card.expirationYear', '4 digits'],
    [{ expirationYear: '2025', expirationMonth: '12' }, 'card.expirationYear', 'expired'],
  ])('refuses %j on %s', async (over, field, msg) => {
    const r = await tokenize(card(over));
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('validation_error');
    expect(r.body.details[0].field).toBe(field);
    expect(r.body.details[0].message).toContain(msg);
    expect(JSON.stringify(r.body)).not.toContain('4111111111111112');
  });

  it('accepts each brand at its own lengths', async () => {
    for (const [number, cvv, brand] of [
      ['378282246310005', '1234', 'amex'],
      ['30569309025904', '123', 'diners'],
      ['6362970000457013', '123', 'elo'],
      ['6062825624254001', '123', 'hipercard'],
      ['4222222222222', '123', 'visa'],
      ['4111111111111111', '123', 'visa'],
      ['5555555555554444', '123', 'mastercard'],
      ['3530111333300000', '123', 'jcb'],
      ['6011111111111117', '123', 'discover'],
    ]) {
      const r = await tokenize(card({ number: number!, cvv: cvv! }));
      expect(r.status, `${number} ${JSON.stringify(r.body)}`).toBe(201);
      expect(r.body.data.brand).toBe(brand);
    }
  });

  it('refuses an invalid or inactive public key', async () => {
    expect((await tokenize(card(), basic('pk_test_nope', ''))).status).toBe(401);
    const k = await env.call('POST', '/v1/api-keys', { name: 'tmp' });
    await env.call('DELETE', `/v1/api-keys/${k.body.data.id}`);
    expect((await tokenize(card(), basic(k.body.data.public_key, ''))).status).toBe(403);
  });

  it('stores number, holder and expiry encrypted, and never the CVV', async () => {
    // an Amex: the only brand with a 4-digit CVV
    expect((await tokenize(card({ number: '378282246310005', cvv: '9876', holderName: 'Zefa Quirino' }))).status).toBe(201);
    await env.rt.close();
    for (const f of readdirSync(env.dir)) {
      const p = join(env.dir, f);
      if (!statSync(p).isFile()) continue;
      const bytes = readFileSync(p).toString('latin1');
      expect(bytes, f).not.toContain('378282246310005');
      // four digits turn up by chance inside ids, hashes and ciphertexts (a UUID's '-9876-'):
      // the CVV counts wherever it stands apart from such a run
      expect(standalone(bytes, '9876'), f).toEqual([]);
      expect(bytes, f).not.toContain('Zefa Quirino');
    }
    env.rt = await (await import('../../src/server/runtime.js')).openRuntime({ dataDir: env.dir, clock: env.clock });
  });

  it('the stored blob decrypts back with the keyring', async () => {
    const r = await tokenize(card());
    const row = await env.rt.deps.db.get<{ encrypted: string }>('SELECT encrypted FROM card_tokens WHERE token = ?', [r.body.data.token]);
    expect(JSON.parse(env.rt.deps.keyring.decrypt(row!.encrypted))).toEqual({
      number: '4111111111111111',
      holderName: 'Ana Souza',
      expirationMonth: '12',
      expirationYear: '2030',
    });
  });

  it('a blob altered by one bit, or made under another master key, does not decrypt', async () => {
    const r = await tokenize(card());
    const row = await env.rt.deps.db.get<{ encrypted: string }>('SELECT encrypted FROM card_tokens WHERE token = ?', [r.body.data.token]);
    const raw = Buffer.from(row!.encrypted, 'base64');
    raw[raw.length - 1]! ^= 1;
    expect(() => env.rt.deps.keyring.decrypt(raw.toString('base64'))).toThrow(/authenticate/);
    const other = new Keyring(Buffer.alloc(32, 7));
    expect(() => other.decrypt(row!.encrypted)).toThrow(/authenticate/);
  });
});
