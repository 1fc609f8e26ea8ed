import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { checkLedger, checkStatements, tokenize, chargeBody } from '../helpers/money.js';
import { DUE_BATCH } from '../../src/server/pipeline/due.js';

let env: TestEnv;
beforeEach(async () => {
  env = await testEnv();
});
afterEach(async () => env.close());

const DAY = 86_400_000;

// a request settles one batch of due receivables, then writes its own entry;
// the rest of the batch is booked later, dated at their (earlier) settlement dates
describe('statements reconcile whatever order due work and requests interleave in', () => {
  it('more due receivables than one batch, then a request that writes an entry, then the rest', async () => {
    const token = await tokenize(env);
    for (let i = 0; i < DUE_BATCH + 5; i++) {
      const r = await env.call('POST', '/v1/charges', chargeBody(1000 + i, { payment_method: 'credit_card', payment_details: { token, installments: 1 } }));
      expect(r.status).toBe(201);
      if (i === 49) env.clock.advance(DAY); // two capture days, so two settlement days
    }
    env.clock.advance(40 * DAY); // every receivable is due; no request has run the due work yet
    // one request: its due work settles one batch, then it writes its own entry at "now"
    const adj = await env.call('POST', '/v1/sandbox/wallet/adjustments', { direction: 'debit', amount: 500 });
    expect(adj.status, JSON.stringify(adj.body)).toBe(201);
    await env.call('GET', '/v1/merchant'); // the next request settles the rest, dated earlier
    const pending = await env.rt.deps.db.get<{ n: number }>("SELECT COUNT(*) AS n FROM receivables WHERE status = 'pending'");
    expect(pending!.n).toBe(0);
    expect(await checkStatements(env)).toBeGreaterThan(2);
    await checkLedger(env);
  });
});
