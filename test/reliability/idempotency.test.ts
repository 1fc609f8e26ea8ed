/**
 * 200 concurrent identical POST /v1/charges with one Idempotency-Key, over real HTTP to
 * listen(): exactly one charge (one set of receivables, one pending and one captured event),
 * every response the same charge, 0 × 5xx.
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

const N = 200;
let dir: string;
let rt: Runtime;
let server: RunningServer;
let m: NewMerchant;
beforeAll(async () => {
  dir = memTempDir('mpay-idem-');
  rt = await openRuntime({ dataDir: dir, rateLimit: null, validateResponses: true });
  m = await rt.deps.db.tx((q) => createMerchant(q, rt.deps, 'Loja Idem', new Date()));
  // one client opening N connections at once is the point here: no per-client connection cap
  server = await listen(rt, '127.0.0.1', 0, { maxPerClient: 0 });
});
afterAll(async () => {
  await server.close();
  await rt.close();
  rmSync(dir, { recursive: true, force: true });
});

it(`${N} concurrent identical idempotent POSTs → 1 effect, 0 × 5xx`, async () => {
  const agent = new Agent({ connections: N, pipelining: 0 });
  const tok = await request(`${server.url}/v1/tokens`, {
    method: 'POST',
    dispatcher: agent,
    headers: { authorization: basic(m.public_key, ''), 'content-type': 'application/json' },
    body: JSON.stringify({ card: { number: '4111111111111111', holderName: 'Ana Souza', expirationMonth: '12', expirationYear: '2030', cvv: '123' } }),
  });
  const token = ((await tok.body.json()) as any).data.token as string;
  const body = JSON.stringify(chargeBody(4990, { payment_method: 'credit_card', payment_details: { token, installments: 3 } }));
  const results = await Promise.all(
    Array.from({ length: N }, async () => {
      const res = await request(`${server.url}/v1/charges`, {
        method: 'POST',
        dispatcher: agent,
        headers: { authorization: basic(m.public_key, m.secret_key), 'content-type': 'application/json', 'idempotency-key': 'order-42' },
        body,
      });
      const json = (await res.body.json()) as any;
      return { status: res.statusCode, replayed: res.headers['idempotent-replayed'] === 'true', id: json?.data?.id as string | undefined, error: json?.error };
    }),
  );
  await agent.close();
  const fiveXX = results.filter((r) => r.status >= 500).length;
  const ids = new Set(results.map((r) => r.id));
  const charges = await rt.deps.db.all<{ id: string }>('SELECT id FROM charges WHERE merchant_id = ?', [m.merchant_id]);
  const receivables = await rt.deps.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM receivables WHERE merchant_id = ?', [m.merchant_id]);
  const events = await rt.deps.db.all<{ type: string }>("SELECT type FROM events WHERE merchant_id = ? AND type LIKE 'charge.%'", [m.merchant_id]);
  const statuses = Object.entries(results.reduce<Record<number, number>>((a, r) => ((a[r.status] = (a[r.status] ?? 0) + 1), a), {}))
    .map(([s, n]) => `${n} × ${s}`)
    .join(', ');
  report(`idempotency ${N} concurrent → ${charges.length} effect (${statuses}; ${results.filter((r) => r.replayed).length} replayed), ${fiveXX} × 5xx`);
  expect(fiveXX).toBe(0);
  expect(charges).toHaveLength(1);
  expect(ids).toEqual(new Set([charges[0]!.id]));
  expect(results.filter((r) => r.status === 201)).toHaveLength(N);
  expect(results.filter((r) => !r.replayed)).toHaveLength(1);
  expect(Number(receivables!.n)).toBe(3);
  expect(events.map((e) => e.type).sort()).toEqual(['charge.captured', 'charge.pending']);
}, 120_000);
