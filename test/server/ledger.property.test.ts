import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { WindowDueInBatches } from '../helpers/due.js';
import { addSubmerchant, chargeBody, checkLedger, checkStatements, tokenize } from '../helpers/money.js';

type Split = { kind: 'none' } | { kind: 'sub'; sub: number } | { kind: 'pct'; parts: number[] } | { kind: 'amt'; parts: number[] };
type Op =
  | { t: 'card'; amount: number; installments: number; split: Split; declined: boolean }
  | { t: 'pix'; amount: number; split: Split; pay: boolean }
  | { t: 'advance'; days: number }
  | { t: 'time'; hours: number }
  | { t: 'anticipateAmount'; amount: number; sub: number | null }
  | { t: 'anticipatePick'; count: number; sub: number | null }
  | { t: 'refund'; pick: number }
  | { t: 'withdraw'; amount: number; fail: boolean; sub: number | null };

const split: fc.Arbitrary<Split> = fc.oneof(
  fc.constant({ kind: 'none' as const }),
  fc.record({ kind: fc.constant('sub' as const), sub: fc.integer({ min: 0, max: 1 }) }),
  fc.record({ kind: fc.constant('pct' as const), parts: fc.array(fc.integer({ min: 1, max: 100 }), { minLength: 1, maxLength: 3 }) }),
  fc.record({ kind: fc.constant('amt' as const), parts: fc.array(fc.integer({ min: 1, max: 100 }), { minLength: 1, maxLength: 3 }) }),
);

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ t: fc.constant('card' as const), amount: fc.integer({ min: 100, max: 500_000 }), installments: fc.integer({ min: 1, max: 12 }), split, declined: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('pix' as const), amount: fc.integer({ min: 1, max: 500_000 }), split, pay: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('advance' as const), days: fc.integer({ min: 1, max: 120 }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('time' as const), hours: fc.integer({ min: 1, max: 24 * 40 }) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('anticipateAmount' as const), amount: fc.integer({ min: 1, max: 300_000 }), sub: fc.option(fc.integer({ min: 0, max: 1 })) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('anticipatePick' as const), count: fc.integer({ min: 1, max: 4 }), sub: fc.option(fc.integer({ min: 0, max: 1 })) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('refund' as const), pick: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({ t: fc.constant('withdraw' as const), amount: fc.integer({ min: 100, max: 200_000 }), fail: fc.boolean(), sub: fc.option(fc.integer({ min: 0, max: 1 })) }),
  },
);

/** Turns weights into split rules over [merchant, sub0, sub1] that add up exactly. */
function splitRules(s: Split, amount: number, subs: string[]): Record<string, unknown> {
  if (s.kind === 'none') return {};
  if (s.kind === 'sub') return { submerchant_id: subs[s.sub] };
  const parties = [null, ...subs].slice(0, s.parts.length);
  const total = s.parts.reduce((a, b) => a + b, 0);
  if (s.kind === 'pct') {
    const pcts = s.parts.map((p) => Math.floor((p * 10000) / total) / 100);
    pcts[0] = Math.round((100 - pcts.slice(1).reduce((a, b) => a + b, 0)) * 100) / 100;
    return { split_rules: parties.map((id, i) => ({ submerchant_id: id, percentage: pcts[i] })) };
  }
  const amts = s.parts.map((p) => Math.floor((p * amount) / total));
  amts[0]! += amount - amts.reduce((a, b) => a + b, 0);
  if (amts.some((a) => a < 1)) return {};
  return { split_rules: parties.map((id, i) => ({ submerchant_id: id, amount: amts[i] })) };
}

async function checkConservation(env: TestEnv): Promise<void> {
  const { db } = env.rt.deps;
  // every captured charge: its receivables add up to its amount and fee
  const charges = await db.all<{ id: string; amount: number; fee_amount: number; net_amount: number }>(
    "SELECT id, amount, fee_amount, net_amount FROM charges WHERE status IN ('captured', 'refunded')",
  );
  for (const c of charges) {
    const s = await db.get<{ g: number; f: number; n: number }>(
      'SELECT SUM(gross_amount) AS g, SUM(fee_amount) AS f, SUM(net_amount) AS n FROM receivables WHERE charge_id = ?',
      [c.id],
    );
    expect([s!.g, s!.f, s!.n]).toEqual([c.amount, c.fee_amount, c.net_amount]);
  }
  const orphans = await db.get<{ n: number }>("SELECT COUNT(*) AS n FROM receivables r JOIN charges c ON c.id = r.charge_id WHERE c.status NOT IN ('captured', 'refunded')");
  expect(orphans!.n).toBe(0);
  // a wallet holds the net of its paid receivables and approved anticipations, less what refunds took back
  const wallets = await db.all<{ id: string; balance: number }>('SELECT id, balance FROM wallets');
  for (const w of wallets) {
    const paid = await db.get<{ n: number }>("SELECT COALESCE(SUM(net_amount), 0) AS n FROM receivables WHERE wallet_id = ? AND status = 'paid'", [w.id]);
    const ant = await db.get<{ n: number }>("SELECT COALESCE(SUM(total_net_amount), 0) AS n FROM anticipations WHERE wallet_id = ? AND status = 'approved'", [w.id]);
    const refunded = await db.get<{ n: number }>(
      `SELECT COALESCE(SUM(r.net_amount - CASE WHEN r.status = 'anticipated' THEN COALESCE(r.anticipation_fee_amount, 0) ELSE 0 END), 0) AS n
         FROM receivables r JOIN charges c ON c.id = r.charge_id
        WHERE r.wallet_id = ? AND c.status = 'refunded' AND r.status IN ('paid', 'anticipated')`,
      [w.id],
    );
    const debited = await db.get<{ n: number }>("SELECT COALESCE(SUM(amount), 0) AS n FROM wallet_entries WHERE wallet_id = ? AND reference_type = 'refund'", [w.id]);
    expect(debited!.n).toBe(refunded!.n);
    // withdrawals: debited at once, credited back when the payout fails
    const wd = await db.get<{ n: number }>(
      "SELECT COALESCE(SUM(CASE WHEN direction = 'credit' THEN amount ELSE -amount END), 0) AS n FROM wallet_entries WHERE wallet_id = ? AND reference_type IN ('withdrawal', 'withdrawal_reversal')",
      [w.id],
    );
    expect(w.balance).toBe(paid!.n + ant!.n - refunded!.n + Number(wd!.n));
  }
  const stray = await db.get<{ n: number }>("SELECT COUNT(*) AS n FROM receivables r JOIN charges c ON c.id = r.charge_id WHERE r.status = 'cancelled' AND c.status <> 'refunded'");
  expect(stray!.n).toBe(0);
  // due work settles at most one batch per request: a request settles min(BATCH, due) of what is
  // due at its instant (the clock does not move during it), no more and no less
  const before = await dueLeft(env);
  const clock = (await env.call('GET', '/v1/merchant')).body.data.clock as string;
  const after = await dueLeft(env);
  expect(after.clock).toBe(clock);
  expect(after.n).toBe(Math.max(0, before.n - BATCH));
}

/** Receivables due but not settled at the merchant's clock, read from the store (no request, so no due work runs). */
async function dueLeft(env: TestEnv): Promise<{ n: number; clock: string }> {
  const { db } = env.rt.deps;
  const m = await db.get<{ clock_offset_ms: number }>('SELECT clock_offset_ms FROM merchants WHERE id = ?', [env.merchant.merchant_id]);
  const clock = new Date(env.clock.now().getTime() + Number(m!.clock_offset_ms)).toISOString();
  const due = await db.get<{ n: number }>("SELECT COUNT(*) AS n FROM receivables WHERE status = 'pending' AND settlement_date <= ?", [clock]);
  return { n: Number(due!.n), clock };
}

/**
 * Due work in batches this small (the runtime's due policy) makes a few random requests interleave with
 * settlement the way >100 due receivables do with the production batch: a request settles one
 * batch, writes its own entry at "now", and a later request settles receivables dated earlier.
 */
const BATCH = 2;

describe('ledger invariants under random sequences of money operations', () => {
  it('hold after every operation', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 14 }), async (ops) => {
        const env = await testEnv({ due: new WindowDueInBatches(BATCH) });
        try {
          const parties = [await addSubmerchant(env), await addSubmerchant(env)];
          const subs = parties.map((p) => p.id);
          const walletsOf = parties.map((p) => p.wallet_id);
          let wseq = 0;
          const approved = await tokenize(env, '5555555555554444');
          const declined = await tokenize(env, '4000000000000002');
          for (const o of ops) {
            let res: { status: number; body: any } | undefined;
            switch (o.t) {
              case 'card':
                res = await env.call(
                  'POST',
                  '/v1/charges',
                  chargeBody(o.amount, {
                    payment_method: 'credit_card',
                    payment_details: { token: o.declined ? declined : approved, installments: o.installments },
                    ...splitRules(o.split, o.amount, subs),
                  }),
                );
                if (res.status === 201) expect(res.body.data.status).toBe(o.declined ? 'failed' : 'captured');
                else expect(res.status, JSON.stringify(res.body)).toBe(400); // a share too small for its installments
                break;
              case 'pix': {
                res = await env.call('POST', '/v1/charges', chargeBody(o.amount, { payment_method: 'pix', ...splitRules(o.split, o.amount, subs) }));
                if (res.status === 201 && o.pay) res = await env.call('POST', `/v1/sandbox/charges/${res.body.data.id}/pay`);
                else if (res.status !== 201) expect(res.status, JSON.stringify(res.body)).toBe(400);
                break;
              }
              case 'advance':
                res = await env.call('POST', '/v1/sandbox/clock/advance', { days: o.days });
                expect(res.status).toBe(200);
                break;
              case 'time':
                env.clock.advance(o.hours * 3_600_000);
                break;
              case 'anticipateAmount':
                res = await env.call('POST', '/v1/anticipations', { amount: o.amount, ...(o.sub === null ? {} : { submerchant_id: subs[o.sub] }) });
                expect(res.status, JSON.stringify(res.body)).toBe(201);
                break;
              case 'anticipatePick': {
                const owner = o.sub === null ? '' : `&submerchant_id=${subs[o.sub]}`;
                const list = await env.call('GET', `/v1/receivables?status=pending&payment_method=credit_card&per_page=100${owner}`);
                const mine = (list.body.data as Array<{ id: string; submerchant_id: string | null }>).filter((r) =>
                  o.sub === null ? r.submerchant_id === null : r.submerchant_id === subs[o.sub],
                );
                if (!mine.length) break;
                res = await env.call('POST', '/v1/anticipations', {
                  receivable_ids: mine.slice(0, o.count).map((r) => r.id),
                  ...(o.sub === null ? {} : { submerchant_id: subs[o.sub] }),
                });
                expect(res.status, JSON.stringify(res.body)).toBe(201);
                expect(res.body.data.status).toBe('approved');
                break;
              }
              case 'withdraw': {
                const wallet = o.sub === null ? env.merchant.wallet_id : walletsOf[o.sub]!;
                const amount = o.fail ? Math.floor(o.amount / 100) * 100 + 99 : o.amount - (o.amount % 100 === 99 ? 1 : 0); // 99 cents: the payout fails
                res = await env.call('POST', '/v1/withdrawals', {
                  type: 'pix', wallet_id: wallet, amount, pix_key: 'ana@example.com', pix_key_type: 'email',
                  holder_document_type: 'cpf', holder_document: '52998224725', idempotency_key: `w-${++wseq}`,
                  ...(o.sub === null ? {} : { submerchant_id: subs[o.sub] }),
                });
                if (res.status !== 201) expect(res.body.error, JSON.stringify(res.body)).toBe('insufficient_funds');
                break;
              }
              case 'refund': {
                const list = await env.call('GET', '/v1/charges?status=captured&per_page=100');
                const cs = list.body.data as Array<{ id: string }>;
                if (!cs.length) break;
                res = await env.call('POST', `/v1/charges/${cs[o.pick % cs.length]!.id}/refund`);
                if (res.status !== 200) expect(res.body.error, JSON.stringify(res.body)).toBe('insufficient_funds');
                break;
              }
            }
            if (res) expect(res.status).toBeLessThan(500);
            // a clock advance sweeps due work until nothing is left
            if (o.t === 'advance') expect((await dueLeft(env)).n).toBe(0);
            await checkLedger(env);
            await checkConservation(env);
          }
          // enough requests settle everything due: ceil(due / BATCH) of them
          const left = (await dueLeft(env)).n;
          for (let i = 0; i < Math.ceil(left / BATCH); i++) await env.call('GET', '/v1/merchant');
          expect((await dueLeft(env)).n).toBe(0);
          // issue 14 item 1: every statement of every wallet reconciles, whatever the interleaving
          // (a last jump lets failed payouts be reversed and due receivables settle)
          await env.call('POST', '/v1/sandbox/clock/advance', { days: 400 });
          expect((await dueLeft(env)).n).toBe(0);
          await checkConservation(env);
          await checkStatements(env);
        } finally {
          await env.close();
        }
      }),
      { numRuns: 40 },
    );
  }, 240_000);
});
