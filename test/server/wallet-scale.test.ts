/**
 * A page of a wallet's entries or of its statement reads as much of the store on a wallet of
 * 150,000 entries, at any depth, as on a wallet of 100 (docs/api.md, "Wallets"): totals come
 * from the wallet's entry count and its per-hour sums, the rows from a seek. Timed against the
 * small wallet's first page in the same rounds, interleaved, so the machine's load weighs on
 * both alike; bench/scale/wallet.mjs measures the same at 300,000 entries.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { seedWalletEntries } from '../helpers/walletSeed.js';
import type { NewMerchant } from '../../src/server/services/merchants.js';

let env: TestEnv;
let small: NewMerchant;
const BIG = 150_000;
beforeAll(async () => {
  // the answers' shapes are checked by the other suites; here each schema built per answer to
  // check it would weigh more than the reads being timed
  env = await testEnv({ validateResponses: false });
  small = await env.newMerchant('Pequena');
  const end = env.clock.now().getTime();
  await seedWalletEntries(env.rt.deps.db, env.merchant.wallet_id, BIG, end);
  await seedWalletEntries(env.rt.deps.db, small.wallet_id, 100, end);
}, 120_000);
afterAll(async () => env.close());

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

it('a deep page of entries or of the statement costs what the first page of a small wallet costs', async () => {
  const year = 'start_date=2000-01-01&end_date=9999-12-31';
  const big = env.merchant.wallet_id;
  const lastPage = Math.ceil(BIG / 20);
  const cases: Record<string, [NewMerchant, string]> = {
    'small wallet, entries page 1': [small, `/v1/wallets/${small.wallet_id}/entries`],
    'small wallet, statement page 1': [small, `/v1/wallets/${small.wallet_id}/statement?${year}`],
    'entries page 1': [env.merchant, `/v1/wallets/${big}/entries`],
    [`entries page ${lastPage - 10}`]: [env.merchant, `/v1/wallets/${big}/entries?page=${lastPage - 10}`],
    'statement page 1': [env.merchant, `/v1/wallets/${big}/statement?${year}`],
    [`statement page ${Math.floor(lastPage / 2)}`]: [env.merchant, `/v1/wallets/${big}/statement?${year}&page=${Math.floor(lastPage / 2)}`],
    [`statement page ${lastPage} (the last)`]: [env.merchant, `/v1/wallets/${big}/statement?${year}&page=${lastPage}`],
  };
  const times: Record<string, number[]> = {};
  for (let round = 0; round < 15; round++) {
    for (const [name, [m, path]] of Object.entries(cases)) {
      const t = performance.now();
      const r = await env.call('GET', path, undefined, { authorization: env.auth(m) });
      const ms = performance.now() - t;
      expect(r.status, `${name}: ${JSON.stringify(r.body).slice(0, 300)}`).toBe(200);
      expect(Array.isArray(r.body.data) ? r.body.data : r.body.data.entries, name).toHaveLength(20);
      if (round > 0) (times[name] ??= []).push(ms);
    }
  }
  const base = Math.max(median(times['small wallet, entries page 1']!), median(times['small wallet, statement page 1']!));
  const report = Object.entries(times).map(([name, xs]) => `${name}: ${median(xs).toFixed(2)} ms`).join('; ');
  // A guard against reading the matches (an OFFSET over 150,000 entries costs tens of ms here),
  // with room for a loaded machine; the figures themselves come from bench:wallet, and
  // wallet-entries-filters.test.ts counts the rows a page reads.
  for (const [name, xs] of Object.entries(times)) expect(median(xs), `${name}; ${report}`).toBeLessThan(4 * base + 10);
});
