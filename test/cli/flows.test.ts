import { createServer, type IncomingMessage } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { cliHome } from '../helpers/cli.js';

const home = cliHome();
afterAll(() => home.cleanup());

const customer = ['--customer.name', 'Ana Souza', '--customer.email', 'ana@example.com', '--customer.tax-id', '52998224725', '--customer.phone', '+5511987654321', '--customer.type', 'individual'];
const items = (amount: number) => ['--items', JSON.stringify([{ name: 'Curso', quantity: 1, unit_price: amount, tangible: false }])];

function tokenize(number = '4111111111111111'): string {
  const r = home.run(['tokens', 'create', '--card.number', number, '--card.holder-name', 'Ana Souza', '--card.expiration-month', '12', '--card.expiration-year', '2031', '--card.cvv', '123']);
  expect(r.code, r.stderr).toBe(0);
  return r.json().token;
}

describe('money flows through the binary (embedded sandbox)', () => {
  it('a card charge is captured; a declined test card exits 1 with --wait', () => {
    const token = tokenize();
    const ok = home.run(['charges', 'create', '--amount', '10000', '--product-type', 'digital', '--payment-method', 'credit_card', '--payment-details.token', token, '--payment-details.installments', '3', ...customer, ...items(10000), '--wait']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.json()).toMatchObject({ status: 'captured', amount: 10000, installments: 3 });
    const declined = tokenize('4000000000000002');
    const bad = home.run(['charges', 'create', '--amount', '5000', '--product-type', 'digital', '--payment-method', 'credit_card', '--payment-details.token', declined, '--payment-details.installments', '1', ...customer, ...items(5000), '--wait']);
    expect(bad.code).toBe(1);
    expect(bad.json().status).toBe('failed');
    expect(bad.stderr).toContain('ended failed');
  });

  it('settles with the sandbox clock, then pays out once per --idempotency-key', () => {
    home.run(['sandbox', 'advance', '--days', '35']); // D+30 moved to a business day: at most D+34
    const wallet = home.run(['wallets', 'list', '--owner-type', 'merchant']).json()[0];
    expect(wallet.balance).toBeGreaterThan(1000);
    const args = ['withdrawals', 'create', '--type', 'pix', '--wallet-id', wallet.id, '--amount', '1000', '--pix-key', '52998224725', '--pix-key-type', 'cpf', '--idempotency-key', 'cli-payout-1', '--yes'];
    const a = home.run(args);
    expect(a.code, a.stderr).toBe(0);
    const b = home.run(args);
    expect(b.code, b.stderr).toBe(0);
    expect(b.json().id).toBe(a.json().id);
    const after = home.run(['wallets', 'list', '--owner-type', 'merchant']).json()[0];
    expect(after.balance).toBe(wallet.balance - 1000);
    const missing = home.run(['withdrawals', 'create', '--type', 'pix', '--wallet-id', wallet.id, '--amount', '1000', '--pix-key', '52998224725', '--pix-key-type', 'cpf', '--yes']);
    expect(missing.code).toBe(2); // a missing required flag is a usage error, before any request
    expect(missing.stderr).toContain('--idempotency-key');
  });

  it('a PIX charge --wait returns once another process pays it', async () => {
    const waiting = home.runAsync(['charges', 'create', '--amount', '2500', '--product-type', 'digital', '--payment-method', 'pix', ...customer, ...items(2500), '--wait', '--timeout', '30']);
    let id: string | undefined;
    for (let i = 0; i < 100 && !id; i++) {
      await new Promise((r) => setTimeout(r, 200));
      const list = home.run(['charges', 'list', '--payment-method', 'pix', '--status', 'pending']);
      id = list.json()[0]?.id;
    }
    expect(id).toBeTruthy();
    const pay = home.run(['sandbox', 'pay', id!]);
    expect(pay.code, pay.stderr).toBe(0);
    const done = await waiting;
    expect(done.code, done.stderr).toBe(0);
    expect(done.json()).toMatchObject({ id, status: 'captured' });
    expect(done.stderr).toContain('mpay sandbox pay');
  });

  it('uploads a document file and downloads the same bytes', () => {
    const sm = home.run(['submerchants', 'create', '--trade-name', 'Loja', '--legal-name', 'Loja LTDA', '--tax-id', '11222333000181', '--email', 'loja@example.com']);
    expect(sm.code, sm.stderr).toBe(0);
    const png = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.alloc(64, 7)]);
    const f = join(home.dir, 'contrato.png');
    writeFileSync(f, png);
    const up = home.run(['submerchants', 'upload', sm.json().id, '--file', f]);
    expect(up.code, up.stderr).toBe(0);
    expect(up.json()).toMatchObject({ mimeType: 'image/png', fileSize: png.length });
    const out = join(home.dir, 'back.png');
    const down = home.run(['files', 'download', up.json().key, '--out', out]);
    expect(down.code, down.stderr).toBe(0);
    expect(readFileSync(out).equals(png)).toBe(true);
    expect(home.run(['files', 'download', 'nope.png', '--out', out]).code).toBe(4);
  });
});

describe('webhooks from the binary', () => {
  const got: { headers: IncomingMessage['headers']; body: string }[] = [];
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      got.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  let url = '';
  beforeAll(async () => {
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hooks`;
  });
  afterAll(() => receiver.close());

  it('an embedded command delivers its events, signed, before it exits', async () => {
    // async runs: the receiver lives in this process, so its event loop must stay free
    const ep = await home.runAsync(['webhooks', 'create', '--url', url, '--events', 'submerchant.created']);
    expect(ep.code, ep.stderr).toBe(0);
    const secret = ep.json().secret;
    const before = got.length;
    const sm = await home.runAsync(['submerchants', 'create', '--trade-name', 'Hook', '--legal-name', 'Hook LTDA', '--tax-id', '11444777000161', '--email', 'hook@example.com']);
    expect(sm.code, sm.stderr).toBe(0);
    const mine = got.slice(before);
    expect(mine).toHaveLength(1);
    const payload = new Webhook(secret).verify(mine[0]!.body, mine[0]!.headers as Record<string, string>) as { type: string; data: { id: string } };
    expect(payload.type).toBe('submerchant.created');
    expect(payload.data.id).toBe(sm.json().id);
    const logs = await home.runAsync(['webhooks', 'logs', '--event-name', 'submerchant.created']);
    expect(logs.json()[0]).toMatchObject({ status: 'delivered', response_status_code: 204 });
  });

  it('mpay server start delivers with its worker', async () => {
    const creds = home.run(['admin', 'merchants', 'create', '--name', 'Hooks', '--json']).json();
    const s = await home.startServer();
    try {
      const env = { MPAY_PUBLIC_KEY: creds.public_key, MPAY_SECRET_KEY: creds.secret_key };
      const ep = await home.runAsync(['--base-url', s.url, 'webhooks', 'create', '--url', url, '--events', '*'], { env });
      expect(ep.code, ep.stderr).toBe(0);
      const before = got.length;
      await home.runAsync(['--base-url', s.url, 'submerchants', 'create', '--trade-name', 'Srv', '--legal-name', 'Srv LTDA', '--tax-id', '11222333000181', '--email', 'srv@example.com'], { env });
      for (let i = 0; i < 50 && got.length === before; i++) await new Promise((r) => setTimeout(r, 100));
      expect(got.length).toBeGreaterThan(before);
      expect(JSON.parse(got[got.length - 1]!.body).type).toBe('submerchant.created');
    } finally {
      s.child.kill('SIGTERM');
      expect(await s.exited).toBe(0);
    }
  });
});
