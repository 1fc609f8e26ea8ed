// Messages a user acts on: what answered when it is not mpay, which resource was not found, the
// default that made a tax id wrong, one message (the right one) for a bad customer CPF, and
// webhook flags checked before anything is sent.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliHome } from '../helpers/cli.js';

const home = cliHome();
afterAll(() => home.cleanup());
beforeAll(() => {
  expect(home.run(['merchant', 'get']).code).toBe(0);
});

describe('a server that is not mpay', () => {
  let server: Server;
  let url = '';
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url?.startsWith('/v1/merchant')) res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      else if (req.url?.startsWith('/v1/api-keys')) res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"up"}');
      else res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>Not Found</body></html>');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  const keys = { MPAY_PUBLIC_KEY: 'pk_test_x', MPAY_SECRET_KEY: 'sk_test_y' };

  // the server runs in this process: the CLI runs asynchronously so that it can answer
  it('answering 200 with text: says the target is not an mpay API, and what it answered', async () => {
    const r = await home.runAsync(['--base-url', url, 'merchant', 'get'], { env: keys });
    expect(r.code).toBe(5);
    expect(r.stderr).toBe(`error: ${url} is not an mpay API: GET /v1/merchant answered HTTP 200 (text/plain) "ok"\n`);
  });

  it('answering 200 with JSON that is not the envelope, or 404 with a page: the same', async () => {
    const j = await home.runAsync(['--base-url', url, 'keys', 'list'], { env: keys });
    expect(j.code).toBe(5);
    expect(j.stderr).toContain(`${url} is not an mpay API: GET /v1/api-keys answered HTTP 200 (application/json) {"status":"up"}`);
    const p = await home.runAsync(['--base-url', url, 'charges', 'list'], { env: keys });
    expect(p.code).toBe(5);
    expect(p.stderr).toContain('answered HTTP 404 (text/html) "<html><body>Not Found</body></html>"');
  });

  it('with -o json: one JSON error with the code not_mpay_api', async () => {
    const r = await home.runAsync(['--base-url', url, 'merchant', 'get', '-o', 'json'], { env: keys });
    expect(r.code).toBe(5);
    expect(JSON.parse(r.stderr)).toMatchObject({ error: 'not_mpay_api', status: null });
  });
});

describe('not found names the resource', () => {
  it('sandbox pay with an id that is not one: "Charge not found"', () => {
    const r = home.run(['sandbox', 'pay', 'nope']);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/^error: Charge not found \(not_found, HTTP 404\)/);
  });
});

describe('submerchants create without --entity-type', () => {
  it('an 11-digit tax id: says pj is the default and suggests --entity-type pf', () => {
    const r = home.run(['submerchants', 'create', '--trade-name', 'Loja', '--legal-name', 'Ana Souza', '--tax-id', '12345678900', '--email', 'ana@example.com']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('entity_type is pj');
    expect(r.stderr).toMatch(/--entity-type was not given: pj is the default/);
    expect(r.stderr).toContain('--entity-type pf');
  });

  it('a valid CPF: the same hint', () => {
    const r = home.run(['submerchants', 'create', '--trade-name', 'Loja', '--legal-name', 'Ana Souza', '--tax-id', '52998224725', '--email', 'ana@example.com']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/--entity-type was not given: pj is the default.*--entity-type pf/s);
  });

  it('with --entity-type given, no hint', () => {
    const r = home.run(['submerchants', 'create', '--trade-name', 'Loja', '--legal-name', 'Ana Souza', '--tax-id', '12345678900', '--email', 'ana@example.com', '--entity-type', 'pf']);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toContain('was not given');
  });
});

describe('a bad customer CPF', () => {
  const charge = (taxId: string, type = 'individual') =>
    home.run([
      'charges', 'create', '--amount', '10000', '--product-type', 'digital', '--payment-method', 'pix',
      '--customer.name', 'Ana Souza', '--customer.email', 'ana@example.com', '--customer.tax-id', taxId,
      '--customer.phone', '+5511987654321', '--customer.type', type,
      '--items', '[{"name":"Curso","quantity":1,"unit_price":10000,"tangible":false}]', '-o', 'json',
    ]);

  it('11 digits with wrong check digits: one message, about the check digits', () => {
    const r = charge('12345678900');
    expect(r.code).toBe(1);
    const e = JSON.parse(r.stderr);
    expect(e.details).toEqual([{ field: 'customer.tax_id', message: 'is not a valid CPF (the check digits do not match)' }]);
  });

  it('the wrong length for an individual, and a CNPJ for an individual: one message each', () => {
    expect(JSON.parse(charge('1234').stderr).details).toEqual([{ field: 'customer.tax_id', message: 'must be a CPF of 11 digits for an individual customer' }]);
    expect(JSON.parse(charge('11.222.333/0001-81').stderr).details).toEqual([
      { field: 'customer.tax_id', message: 'is a CNPJ, but the customer type is individual, which needs a CPF; use type company for a company' },
    ]);
    expect(JSON.parse(charge('52998224725', 'company').stderr).details).toEqual([
      { field: 'customer.tax_id', message: 'is a CPF, but the customer type is company, which needs a CNPJ; use type individual for a person' },
    ]);
  });
});

describe('webhook flags are checked before sending, as webhooks listen checks them', () => {
  it.each([
    [['webhooks', 'create', '--url', 'notaurl', '--events', 'charge.captured'], /--url must be an http\(s\) URL, got 'notaurl'/],
    [['webhooks', 'create', '--url', 'ftp://example.com/h', '--events', 'charge.captured'], /--url must be an http\(s\) URL/],
    [['webhooks', 'create', '--url', 'https://example.com/h', '--events', 'nope'], /--events: 'nope' is not one of \*, charge\.pending/],
    [['webhooks', 'listen', '--forward-to', 'notaurl'], /--forward-to must be an http\(s\) URL, got 'notaurl'/],
    [['webhooks', 'listen', '--events', 'nope'], /--events: 'nope' is not one of \*, charge\.pending/],
    [['webhooks', 'create', '--url', 'https://example.com/h', '--events', '*,charge.captured'], /--events: '\*' cannot be combined with event names/],
    [['webhooks', 'listen', '--events', '*,charge.captured'], /--events: '\*' cannot be combined with event names/],
    [['webhooks', 'create', '--url', 'https://example.com/h', '--events', ''], /--events must list at least 1 value, got ''/],
    [['webhooks', 'listen', '--events', ''], /--events must list at least 1 value, got ''/],
    [['webhooks', 'listen', '--events', ' , '], /--events must list at least 1 value, got ' , '/],
  ])('%j: exit 2', (args, message) => {
    const r = home.run(args);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toContain('request id');
    expect(home.run(['webhooks', 'list', '-o', 'json']).json()).toEqual([]);
  });
});
