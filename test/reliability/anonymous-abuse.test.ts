/**
 * Anonymous abuse over real HTTP to listen(), with the default rate limits and
 * `--trust-proxy 127.0.0.1` so that each party has its own address: while anonymous parties
 * flood the publishable-key operation with refused tokenizations, the checkout with deep JSON
 * and with payments the link refuses, the API with wrong secrets (also from the merchant's own
 * address, as a neighbour behind the same NAT would), and a max_uses link with PIX holds (from
 * one IPv4 address and from ten addresses of one IPv6 /64), the merchant's own secret-key
 * traffic gets no 429 and no 5xx, and a real card buyer still pays the link. Figures: the
 * merchant's request latency and /healthz during the attack.
 */
import { rmSync } from 'node:fs';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openRuntime, type Runtime } from '../../src/server/runtime.js';
import { listen, type RunningServer } from '../../src/server/http.js';
import { createMerchant, type NewMerchant } from '../../src/server/services/merchants.js';
import { basic } from '../helpers/server.js';
import { chargeBody } from '../helpers/money.js';
import { memTempDir, report } from './helpers.js';

let dir: string;
let rt: Runtime;
let server: RunningServer;
let m: NewMerchant;
let agent: Agent;
/** the merchant's own connections (its requests never queue behind the attackers' in the client) */
let own: Agent;
/** the connections of a neighbour behind the merchant's NAT (its requests run alongside the merchant's) */
let neighbour: Agent;
beforeAll(async () => {
  dir = memTempDir('mpay-abuse-');
  rt = await openRuntime({ dataDir: dir, validateResponses: true, trustProxy: ['127.0.0.1'] });
  m = await rt.deps.db.tx((q) => createMerchant(q, rt.deps, 'Loja Alvo', new Date()));
  server = await listen(rt, '127.0.0.1', 0);
  agent = new Agent({ connections: 64 });
  own = new Agent({ connections: 4 });
  neighbour = new Agent({ connections: 4 });
});
afterAll(async () => {
  await agent.close();
  await own.close();
  await neighbour.close();
  await server.close();
  await rt.close();
  rmSync(dir, { recursive: true, force: true });
});

async function call(method: string, path: string, opts: { auth?: string; ip: string; body?: string; headers?: Record<string, string>; dispatcher?: Agent }) {
  const started = performance.now();
  const res = await request(`${server.url}${path}`, {
    method: method as 'GET',
    dispatcher: opts.dispatcher ?? agent,
    headers: {
      'x-forwarded-for': opts.ip,
      ...(opts.auth ? { authorization: opts.auth } : {}),
      ...(opts.body !== undefined ? { 'content-type': 'application/json', origin: server.url } : {}),
      ...opts.headers,
    },
    body: opts.body,
  });
  const text = await res.body.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.statusCode, json, ms: performance.now() - started };
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : 0;
};
const tally = (xs: { status: number }[]) =>
  Object.entries(xs.reduce<Record<number, number>>((a, r) => ((a[r.status] = (a[r.status] ?? 0) + 1), a), {}))
    .map(([s, n]) => `${n}×${s}`)
    .join(' ');

it("public-key, checkout and wrong-secret floods leave the merchant's secret-key traffic unaffected", async () => {
  const sk = basic(m.public_key, m.secret_key);
  const pk = basic(m.public_key, '');
  const merchantIp = '192.0.2.10';
  const link = await call('POST', '/v1/payment-links', {
    auth: sk,
    ip: merchantIp,
    body: JSON.stringify({ title: 'Ingresso', product_type: 'digital', allowed_payment_methods: ['credit_card', 'pix'], amount: 5000, max_uses: 3 }),
  });
  expect(link.status).toBe(201);
  const linkId = link.json.data.id as string;
  const tok = await call('POST', '/v1/tokens', {
    auth: sk,
    ip: merchantIp,
    body: JSON.stringify({ card: { number: '4111111111111111', holderName: 'Ana Souza', expirationMonth: '12', expirationYear: '2030', cvv: '123' } }),
  });
  const token = tok.json.data.token as string;
  const buyer = { name: 'Ana Souza', email: 'ana@example.com', tax_id: '52998224725', phone: '(11) 98765-4321' };
  const deep = '['.repeat(500_000) + ']'.repeat(500_000);

  // the merchant's own traffic: 100 reads, 20 card charges, /healthz every 10th request
  const merchantRun = async (tag: string) => {
    const out: { status: number; ms: number }[] = [];
    const healthMs: number[] = [];
    for (let i = 0; i < 100; i++) {
      out.push(await call('GET', '/v1/charges', { auth: sk, ip: merchantIp, dispatcher: own }));
      if (i % 5 === 0) {
        const body = JSON.stringify(chargeBody(1000, { payment_method: 'credit_card', payment_details: { token, installments: 1 } }));
        out.push(await call('POST', '/v1/charges', { auth: sk, ip: merchantIp, body, headers: { 'idempotency-key': `${tag}-${i}` }, dispatcher: own }));
      }
      if (i % 10 === 0) healthMs.push((await call('GET', '/healthz', { ip: merchantIp, dispatcher: own })).ms);
    }
    return { out, healthMs };
  };
  // baseline: the same traffic with nobody else around, in this run
  const base = await merchantRun('baseline');
  expect(base.out.every((r) => r.status === 200 || r.status === 201)).toBe(true);

  const attack = Promise.all([
    // 1. refused tokenizations with the public key (as from a checkout page), one address
    Promise.all(Array.from({ length: 300 }, () => call('POST', '/v1/tokens', { auth: pk, ip: '198.51.100.1', body: '{}' }))),
    // 2. deep JSON at the checkout, unauthenticated
    Promise.all(Array.from({ length: 60 }, () => call('POST', `/checkout/${linkId}/pay`, { ip: '198.51.100.2', body: deep }))),
    // 3. wrong secrets for the merchant's public key from a few addresses
    Promise.all(Array.from({ length: 300 }, (_, i) => call('GET', '/v1/merchant', { auth: basic(m.public_key, `sk_test_guess${i}`), ip: `198.51.100.${10 + (i % 5)}` }))),
    // 4. PIX holds on the max_uses link from one address
    Promise.all(
      Array.from({ length: 3 }, (_, i) =>
        call('POST', `/checkout/${linkId}/pay`, { ip: '198.51.100.3', body: JSON.stringify({ attempt_id: `hold-${i}-abcdef`, payment_method: 'pix', customer: buyer }) }),
      ),
    ),
    // 5. wrong secrets from the merchant's own address (a neighbour behind the same NAT)
    Promise.all(Array.from({ length: 200 }, (_, i) => call('GET', '/v1/merchant', { auth: basic(m.public_key, `sk_test_nat${i}`), ip: merchantIp, dispatcher: neighbour }))),
    // 6. payments the link refuses (a wrong amount), 9 from each of 4 addresses
    Promise.all(
      Array.from({ length: 36 }, (_, i) =>
        call('POST', `/checkout/${linkId}/pay`, {
          ip: `198.51.100.${20 + (i % 4)}`,
          body: JSON.stringify({ attempt_id: `refused-${i}-abcdef`, payment_method: 'pix', amount: 1, customer: buyer }),
        }),
      ),
    ),
    // 7. PIX holds from ten addresses of one IPv6 /64
    Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        call('POST', `/checkout/${linkId}/pay`, {
          ip: `2001:db8:abc:1::${(i + 1).toString(16)}`,
          body: JSON.stringify({ attempt_id: `hold6-${i}-abcdef`, payment_method: 'pix', customer: buyer }),
        }),
      ),
    ),
  ]);
  const [[tokens, deepJson, guesses, holds, natGuesses, refused, holds6], during] = await Promise.all([attack, merchantRun('abuse')]);
  const merchant = during.out;
  const health = during.healthMs;
  const buyerPays = await call('POST', `/checkout/${linkId}/pay`, {
    ip: '203.0.113.77',
    body: JSON.stringify({ attempt_id: 'real-buyer-attempt', payment_method: 'credit_card', token, customer: buyer }),
  });

  const fiveXX = [...tokens, ...deepJson, ...guesses, ...holds, ...natGuesses, ...refused, ...holds6, ...merchant].filter((r) => r.status >= 500).length;
  report(
    `anonymous abuse: tokens {} ${tally(tokens)}; deep JSON ${tally(deepJson)}; wrong secrets ${tally(guesses)}, from the merchant's address ${tally(natGuesses)}; ` +
      `refused payments ${tally(refused)}; PIX holds ${tally(holds)}, from one /64 ${tally(holds6)}; ` +
      `merchant ${merchant.length} requests ${tally(merchant)} p50 ${pct(merchant.map((r) => r.ms), 50).toFixed(1)} ms (alone ${pct(base.out.map((r) => r.ms), 50).toFixed(1)} ms, ` +
      `×${(pct(merchant.map((r) => r.ms), 50) / pct(base.out.map((r) => r.ms), 50)).toFixed(1)}) max ${Math.max(...merchant.map((r) => r.ms)).toFixed(1)} ms; ` +
      `/healthz max ${Math.max(...health).toFixed(1)} ms (alone ${Math.max(...base.healthMs).toFixed(1)} ms); card buyer ${buyerPays.status}; ${fiveXX} × 5xx`,
  );
  expect(fiveXX).toBe(0);
  expect(merchant.every((r) => r.status === 200 || r.status === 201)).toBe(true);
  expect(tokens.filter((r) => r.status === 429).length).toBeGreaterThan(0);
  expect(tokens.every((r) => r.status === 400 || r.status === 429)).toBe(true);
  expect(deepJson.every((r) => r.status === 413 || r.status === 429)).toBe(true);
  expect(guesses.filter((r) => r.status === 429).length).toBeGreaterThan(0);
  expect(guesses.every((r) => r.status === 401 || r.status === 429)).toBe(true);
  expect(holds.map((r) => r.status).sort()).toEqual([201, 409, 409]);
  expect(natGuesses.every((r) => r.status === 401 || r.status === 429)).toBe(true);
  expect(refused.every((r) => r.status === 400)).toBe(true);
  // one /64 is one client: it holds one use, whichever of its addresses asks
  expect(holds6.filter((r) => r.status === 201)).toHaveLength(1);
  expect(holds6.every((r) => r.status === 201 || r.status === 409)).toBe(true);
  expect(buyerPays.status).toBe(201);
  expect(buyerPays.json.data.status).toBe('captured');
}, 120_000);
