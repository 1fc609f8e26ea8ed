import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedTransport, HttpTransport, MpayClient, Tokenizer, ValidationError, AuthenticationError, ApiError, ConnectionError, type OperationId, type Transport } from '../../src/sdk/index.js';
import { listen, type RunningServer } from '../../src/server/http.js';
import { inProcessHandler } from '../../src/server/inProcess.js';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { CPF, cardCharge, chargeBody, tokenize } from '../helpers/money.js';
import { localDate } from '../../src/domain/calendar.js';

let env: TestEnv;
let server: RunningServer;
beforeAll(async () => {
  env = await testEnv();
  server = await listen(env.rt, '127.0.0.1', 0);
});
afterAll(async () => {
  await server.close();
  await env.close();
});

const transports: Record<string, () => Transport> = {
  embedded: () => new EmbeddedTransport(env.rt.app.fetch),
  // what the CLI and mpay/embedded use: API endpoints answered without Web Request/Response
  'embedded (in-process)': () => new EmbeddedTransport(env.rt.app.fetch, 'embedded', 'http://127.0.0.1:4010', inProcessHandler(env.rt.app, 'http://127.0.0.1:4010')),
  http: () => new HttpTransport(server.url),
};

describe.each(Object.keys(transports))('SDK over the %s transport', (name) => {
  const client = () => new MpayClient({ transport: transports[name]!(), publicKey: env.merchant.public_key, secretKey: env.merchant.secret_key });

  it('calls typed operations and returns data and pagination', async () => {
    const created = await client().call('apiKeys.create', { body: { name: `sdk-${name}` } });
    expect(created.status).toBe(201);
    expect(created.data.secret_key).toMatch(/^sk_test_/);
    const list = await client().call('apiKeys.list', { query: { per_page: 1 } });
    expect(list.data).toHaveLength(1);
    expect(list.pagination?.perPage).toBe(1);
  });

  it('walks every page', async () => {
    const seen: string[] = [];
    for await (const page of client().paginate('apiKeys.list', { query: { per_page: 1 } })) seen.push(...page.data.map((k) => k.id));
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBeGreaterThanOrEqual(2);
  });

  it('makes a boleto and pays it with typed fields; a wrong amount is a typed error naming what is due', async () => {
    const address = { street: 'Av. Paulista', number: '1000', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP', zip_code: '01310-100' };
    const c = await client().call('charges.create', {
      body: {
        amount: 10_000,
        product_type: 'digital',
        customer: { name: 'Ana Souza', email: 'ana@example.com', tax_id: '52998224725', phone: '+5511987654321', type: 'individual', address },
        items: [{ name: 'Curso', quantity: 1, unit_price: 10_000, tangible: false }],
        payment_method: 'boleto',
        payment_details: { due_date: localDate(env.clock.now()), fine: 200 },
      },
    });
    expect(c.status).toBe(201);
    expect(c.data.boleto?.digitable_line).toMatch(/^\d{47}$/);
    expect(c.data.due?.fine).toBe(200);
    const wrong = await client()
      .call('charges.sandboxPay', { params: { id: c.data.id }, body: { amount: 9_999 } })
      .catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(ApiError);
    expect((wrong as ApiError).status).toBe(422);
    expect((wrong as ApiError).message).toContain('10000 cents');
    const paid = await client().call('charges.sandboxPay', { params: { id: c.data.id }, body: { amount: 10_000 } });
    expect(paid.data).toMatchObject({ status: 'captured', paid_amount: 10_000 });
  });

  it('chargebacks: the sandbox opens one, a contest and the decision move it, a second accept is a typed 409', async () => {
    const charge = (await cardCharge(env, 8000)).body.data;
    const cb = await client().call('sandbox.chargebacks.create', { params: { id: charge.id }, body: { amount: 3000, reason: 'duplicate' } });
    expect(cb.status).toBe(201);
    expect(cb.data).toMatchObject({ charge_id: charge.id, amount: 3000, reason: 'duplicate', status: 'open' });
    const listed = await client().call('chargebacks.list', { query: { charge_id: charge.id } });
    expect(listed.data.map((x) => x.id)).toEqual([cb.data.id]);
    const contested = await client().call('chargebacks.contest', { params: { id: cb.data.id }, body: { text: 'losing_evidence' } });
    expect(contested.data.status).toBe('under_review');
    const decided = await client().call('sandbox.chargebacks.decide', { params: { id: cb.data.id } });
    expect(decided.data).toMatchObject({ status: 'lost', fee_amount: 1500 });
    await expect(client().call('chargebacks.accept', { params: { id: cb.data.id } })).rejects.toMatchObject({ status: 409, code: 'invalid_state' });
  });

  it('PIX returns: a refund with its return id, a MED of type med accepted with one, and the refund window closed as a typed 422', async () => {
    const made = await client().call('charges.create', { body: chargeBody(6000, { payment_method: 'pix' }) as never });
    await client().call('charges.sandboxPay', { params: { id: made.data.id }, body: {} });
    await client().call('charges.refund', { params: { id: made.data.id }, body: { amount: 1000 } });
    const [refund] = (await client().call('charges.refunds', { params: { id: made.data.id } })).data;
    expect(refund!.return_id).toMatch(/^D99999999\d{12}[A-Za-z0-9]{11}$/);
    const med = await client().call('sandbox.chargebacks.med', { params: { id: made.data.id }, body: { reason: 'fraud' } });
    expect(med.status).toBe(201);
    expect(med.data).toMatchObject({ type: 'med', amount: 5000, return_id: null });
    const accepted = await client().call('chargebacks.accept', { params: { id: med.data.id } });
    expect(accepted.data.return_id).toMatch(/^D99999999/);
    const late = (await client().call('charges.create', { body: chargeBody(2000, { payment_method: 'pix' }) as never })).data;
    await client().call('charges.sandboxPay', { params: { id: late.id }, body: {} });
    // the server's clock 91 days on for this call alone: the other tests share this env
    const days91 = 91 * 86_400_000;
    env.clock.advance(days91);
    try {
      await expect(client().call('charges.refund', { params: { id: late.id }, body: {} })).rejects.toMatchObject({ status: 422, code: 'refund_window_closed' });
    } finally {
      env.clock.advance(-days91);
    }
  });

  it('raises typed errors', async () => {
    await expect(client().call('apiKeys.create', { body: { name: '' } })).rejects.toBeInstanceOf(ValidationError);
    await expect(client().call('apiKeys.revoke', { params: { id: '00000000-0000-4000-8000-000000000000' } })).rejects.toMatchObject({
      status: 404,
      code: 'not_found',
    });
    const bad = new MpayClient({ transport: transports[name]!(), publicKey: env.merchant.public_key, secretKey: 'sk_test_wrong' });
    await expect(bad.call('merchant.get')).rejects.toBeInstanceOf(AuthenticationError);
  });

  it('callById: an id known only at run time calls its operation; a known id keeps its types', async () => {
    const ids: OperationId[] = ['apiKeys.create', 'apiKeys.list'];
    const [create, list] = ids;
    // an OperationId: any input (the service validates it), the union of the operations' data back
    const made = await client().callById(create!, { body: { name: `by-id-${name}` } });
    expect(made.status).toBe(201);
    expect(made.data).toMatchObject({ name: `by-id-${name}`, secret_key: expect.stringMatching(/^sk_test_/) });
    await expect(client().callById(create!, { body: { name: 42 } })).rejects.toMatchObject({ name: 'ValidationError', field: 'name' });
    const page = await client().callById(list!, { query: { per_page: 1 } });
    expect(page.data).toHaveLength(1);
    // an id written in the code: typed input and answer, as with call()
    const typed = await client().callById('apiKeys.list', { query: { per_page: 1 } });
    expect(typed.data.map((k) => k.public_key)).toHaveLength(1);
    // @ts-expect-error a known id's body is checked: apiKeys.create takes { name: string }
    await expect(client().callById('apiKeys.create', { body: { name: 42 } })).rejects.toBeInstanceOf(ValidationError);
    // @ts-expect-error and so is its query
    await expect(client().callById('apiKeys.list', { query: { per_page: 1, nope: true } })).rejects.toMatchObject({ field: 'nope' });
  });

  it('exchange answers a refusal with its envelope instead of throwing', async () => {
    const refused = await client().exchange('apiKeys.create', { body: { name: '' } });
    expect(refused.status).toBe(400);
    expect(refused.envelope).toMatchObject({ success: false, error: 'validation_error' });
    const ok = await client().exchange('apiKeys.create', { body: { name: `exchange-${name}` } });
    expect(ok.status).toBe(201);
    expect(ok.envelope.success).toBe(true);
    expect(ok.envelope.data?.secret_key).toMatch(/^sk_test_/);
    // @ts-expect-error a known id's body is checked here too
    await client().exchange('apiKeys.create', { body: { title: 'x' } });
  });

  it('authorises a card charge (capture false), captures part of it once, and voids another: typed operations', async () => {
    const token = await tokenize(env);
    const sale = (amount: number) =>
      client().call('charges.create', {
        body: {
          amount,
          product_type: 'digital',
          customer: { name: 'Ana Souza', email: 'ana@example.com', tax_id: CPF, phone: '+5511987654321', type: 'individual' },
          items: [{ name: 'Curso', quantity: 1, unit_price: amount, tangible: false }],
          payment_method: 'credit_card',
          payment_details: { token, installments: 1 },
          capture: false,
        },
      });
    const a = (await sale(10000)).data;
    expect(a).toMatchObject({ status: 'authorized', captured_amount: null });
    const captured = await client().call('charges.capture', { params: { id: a.id }, body: { amount: 6000 } });
    expect(captured.data).toMatchObject({ status: 'captured', captured_amount: 6000, fee_amount: 179 });
    await expect(client().call('charges.capture', { params: { id: a.id }, body: {} })).rejects.toMatchObject({ status: 409, code: 'invalid_state' });
    const b = (await sale(5000)).data;
    await expect(client().call('charges.capture', { params: { id: b.id }, body: { amount: 5001 } })).rejects.toMatchObject({ name: 'ValidationError', field: 'amount' });
    const voided = await client().call('charges.void', { params: { id: b.id } });
    expect(voided.data).toMatchObject({ status: 'voided', void_reason: 'requested' });
  });

  it('Tokenizer validates before sending and tokenizes with the public key', async () => {
    const t = new Tokenizer({ publicKey: env.merchant.public_key, transport: transports[name]!() });
    const card = { number: '5555555555554444', holderName: 'Ana', expirationMonth: '01', expirationYear: '2031', cvv: '123' };
    const r = await t.tokenize({ card });
    expect(r).toMatchObject({ brand: 'mastercard', lastFourDigits: '4444', firstSixDigits: '555555' });
    await expect(t.tokenize({ card: { ...card, number: '555555555555' } })).rejects.toMatchObject({ name: 'ValidationError', field: 'card.number' });
    await expect(t.tokenize({ card: { ...card, cvv: '12' } })).rejects.toMatchObject({ field: 'card.cvv' });
    await expect(t.tokenize({ card: { ...card, holderName: '' } })).rejects.toMatchObject({ field: 'card.holderName' });
    // a wrong type is reported as such (the SDK shares the contract's schemas and their messages)
    const month = t.tokenize({ card: { ...card, expirationMonth: 12 as unknown as string } });
    await expect(month).rejects.toMatchObject({ name: 'ValidationError', field: 'card.expirationMonth', message: 'card.expirationMonth: must be a string, 01 to 12, got a number' });
    await expect(t.tokenize({ card: { ...card, cvv: undefined as unknown as string } })).rejects.toMatchObject({ message: 'card.cvv: is required' });
    // and the service says the same over the wire
    const wire = client().callById('apiKeys.create' as OperationId, { body: { name: 42 } });
    await expect(wire).rejects.toMatchObject({ name: 'ValidationError', field: 'name', message: 'Invalid request body: name: must be a string, got a number' });
    const wrong = new Tokenizer({ publicKey: 'pk_test_unknown', transport: transports[name]!() });
    await expect(wrong.tokenize({ card })).rejects.toBeInstanceOf(AuthenticationError);
    await expect(wrong.tokenize({ card })).rejects.toBeInstanceOf(ApiError);
  });
});

describe('the two transports exchange the same bytes', () => {
  it('gives the same status, content type and body for the same request', async () => {
    const send = (t: Transport) =>
      t.send({ method: 'GET', path: '/v1/api-keys?per_page=2', headers: { authorization: env.auth(), accept: 'application/json' } });
    const [a, b] = await Promise.all([send(transports.embedded!()), send(transports.http!())]);
    expect(a.status).toBe(b.status);
    expect(a.headers['content-type']).toBe(b.headers['content-type']);
    expect(Buffer.from(a.body).toString()).toBe(Buffer.from(b.body).toString());
  });

  it('an unreachable server is a ConnectionError', async () => {
    const c = new MpayClient({ transport: new HttpTransport('http://127.0.0.1:1'), publicKey: 'pk', secretKey: 'sk' });
    await expect(c.call('merchant.get')).rejects.toBeInstanceOf(ConnectionError);
  });
});
