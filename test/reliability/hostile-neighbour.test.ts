/**
 * A hostile neighbour: on one `mpay server start` with its production limits (the defaults), one
 * merchant — and anonymous clients of its hosted checkout — at once floods wrong secrets (its own
 * key and made-up ones), invalid and valid checkout payments and status polls, 1 MiB uploads, and
 * reads its largest statement page after page, all from the same address as a second merchant
 * (a NAT, a load balancer without --trust-proxy). Meanwhile the second merchant works as usual:
 * a charge read every 20 ms, a list every 100 ms, a PIX charge every 200 ms, each timed from the
 * moment it was due. It must get no error at all; its p99 is the figure (docs/reliability.md).
 * Each flood alone keeps that p99 within ~100 ms of its p99 alone. All of them at once saturate
 * the server's one event loop (some 800 requests a second and a gigabyte of refused uploads read
 * and thrown away, so that each client can read its 429), and every merchant's requests queue
 * behind them: the test holds that p99 under a second as a guard against a request that holds
 * the loop, and reports it.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, FormData, request } from 'undici';
import { expect, it } from 'vitest';
import { openSqlite } from '../../src/store/sqlite.js';
import { realPng } from '../helpers/files.js';
import { chargeBody } from '../helpers/money.js';
import { pjBody } from '../helpers/onboarding.js';
import { onSchedule, percentile } from '../helpers/schedule.js';
import { basic } from '../helpers/server.js';
import { seedWalletEntries } from '../helpers/walletSeed.js';
import { adminMerchant, memTempDir, report, startScanServer } from './helpers.js';

const ENTRIES = Number(process.env.HOSTILE_STATEMENT_ENTRIES ?? 100_000);
const ATTACK_MS = Number(process.env.HOSTILE_MS ?? 8_000);
/** which floods run (all by default): logins, checkout, uploads, statement */
const PARTS = new Set((process.env.HOSTILE_PARTS ?? 'logins,checkout,uploads,statement').split(','));
const ms = (x: number) => `${x.toFixed(1)} ms`;
const buyer = { name: 'Ana Souza', email: 'ana@example.com', tax_id: '529.982.247-25', phone: '(11) 98765-4321' };

it(`a merchant flooding logins, checkout, uploads and a statement of ${ENTRIES} entries leaves another merchant no error (p99 reported)`, async () => {
  const tmp = memTempDir('mpay-hostile-');
  // the production defaults: every limit on
  const { dataDir, m: hostile, url, server, exited } = await startScanServer(tmp, 'Loja Hostil', []);
  const mine = new Agent({ connections: 8 });
  const theirs = new Agent({ connections: 24 });
  try {
    const quiet = await adminMerchant(tmp, 'Loja Vizinha');
    const store = await openSqlite(join(dataDir, 'mpay.db'));
    const seeded = await seedWalletEntries(store, hostile.wallet_id, ENTRIES);
    await store.close();

    const call = async (dispatcher: Agent, method: string, path: string, o: { auth?: string; body?: unknown; form?: FormData; headers?: Record<string, string> } = {}) => {
      const res = await request(`${url}${path}`, {
        method: method as 'GET',
        dispatcher,
        headers: {
          ...(o.auth ? { authorization: o.auth } : {}),
          ...(o.body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...o.headers,
        },
        body: o.form ?? (o.body === undefined ? undefined : typeof o.body === 'string' ? o.body : JSON.stringify(o.body)),
      });
      const text = await res.body.text();
      return { status: res.statusCode, text };
    };
    const q = basic(quiet.public_key, quiet.secret_key);
    const h = basic(hostile.public_key, hostile.secret_key);

    // the quiet merchant's own data
    const made = await call(mine, 'POST', '/v1/charges', { auth: q, body: chargeBody(4500, { payment_method: 'pix' }) });
    expect(made.status, made.text).toBe(201);
    const chargePath = `/v1/charges/${JSON.parse(made.text).data.id}`;
    // the hostile merchant's link and submerchant
    const link = await call(theirs, 'POST', '/v1/payment-links', {
      auth: h,
      body: { title: 'Isca', product_type: 'digital', allowed_payment_methods: ['pix'], amount: 1000 },
    });
    expect(link.status, link.text).toBe(201);
    const linkId = JSON.parse(link.text).data.id as string;
    const sub = await call(theirs, 'POST', '/v1/submerchants', { auth: h, body: pjBody() });
    expect(sub.status, sub.text).toBe(201);
    const subId = JSON.parse(sub.text).data.id as string;

    let n = 0;
    const work = (until: () => boolean, errors: string[]) =>
      onSchedule(20, until, async () => {
        const i = n++;
        const r =
          i % 10 === 5
            ? await call(mine, 'POST', '/v1/charges', { auth: q, body: chargeBody(1000 + (i % 100), { payment_method: 'pix' }), headers: { 'idempotency-key': `quiet-${i}` } })
            : i % 5 === 0
              ? await call(mine, 'GET', '/v1/charges?per_page=20', { auth: q })
              : await call(mine, 'GET', chargePath, { auth: q });
        if (r.status !== 200 && r.status !== 201) errors.push(`${r.status} ${r.text.slice(0, 120)}`);
      });

    // warm, then the quiet merchant alone
    for (let i = 0; i < 30; i++) expect((await call(mine, 'GET', chargePath, { auth: q })).status).toBe(200);
    const aloneErrors: string[] = [];
    const t0 = performance.now();
    const alone = await work(() => performance.now() - t0 > 3_000, aloneErrors);
    expect(aloneErrors).toEqual([]);

    // the attack, for ATTACK_MS
    const until = performance.now() + ATTACK_MS;
    const going = () => performance.now() < until;
    const counts: Record<string, Record<number, number>> = {};
    const count = (what: string, status: number) => {
      counts[what] ??= {};
      counts[what][status] = (counts[what][status] ?? 0) + 1;
    };
    const loop = async (what: string, once: (i: number) => Promise<{ status: number }>) => {
      const part = what.startsWith('checkout') ? 'checkout' : what === 'upload' ? 'uploads' : what.startsWith('statement') ? 'statement' : 'logins';
      if (!PARTS.has(part)) return;
      for (let i = 0; going(); i++) count(what, (await once(i)).status);
    };
    const from = new Date(Date.parse(seeded[0]!.created_at) - 86_400_000).toISOString().slice(0, 10);
    const statement = `/v1/wallets/${hostile.wallet_id}/statement?start_date=${from}&end_date=9999-12-31&per_page=100`;
    const png = Buffer.concat([realPng(), Buffer.alloc(1 << 20)]);
    const quietErrors: string[] = [];
    const attack = Promise.all([
      // wrong secrets for its own key, and made-up keys, from the shared address
      ...[0, 1, 2].map((w) => loop('wrong secret', (i) => call(theirs, 'GET', '/v1/merchant', { auth: basic(hostile.public_key, `sk_test_guess_${w}_${i}`) }))),
      loop('made-up key', (i) => call(theirs, 'GET', '/v1/merchant', { auth: basic(`pk_test_${'f'.repeat(24)}${String(i).padStart(8, '0')}`, 'sk_test_x') })),
      // invalid payments, valid PIX payments and status polls at its checkout, anonymous
      ...[0, 1].map(() => loop('checkout invalid', () => call(theirs, 'POST', `/checkout/${linkId}/pay`, { body: { attempt_id: 'x', payment_method: 'boleto' } }))),
      loop('checkout pix', (i) => call(theirs, 'POST', `/checkout/${linkId}/pay`, { body: { attempt_id: `attack-${i}-abcdef`, payment_method: 'pix', customer: buyer } })),
      loop('checkout poll', () => call(theirs, 'GET', `/checkout/${linkId}/charges/01a00000-0000-7000-8000-000000000000`)),
      // 1 MiB uploads
      ...[0, 1].map(() =>
        loop('upload', () => {
          const form = new FormData();
          form.append('file', new Blob([png], { type: 'image/png' }), 'doc.png');
          return call(theirs, 'POST', `/v1/submerchants/${subId}/upload`, { auth: h, form });
        }),
      ),
      // its largest statement, page after page
      loop('statement page', async (i) => call(theirs, 'GET', `${statement}&page=${1 + (i % Math.ceil(ENTRIES / 100))}`, { auth: h })),
    ]);
    const busy = await work(() => !going(), quietErrors);
    await attack;

    const line = Object.entries(counts)
      .map(([what, by]) => `${what} ${Object.entries(by).map(([s, c]) => `${c}×${s}`).join('/')}`)
      .join('; ');
    report(
      `hostile neighbour (${(ATTACK_MS / 1000).toFixed(0)} s, statement of ${ENTRIES} entries, every limit at its default): ${line} → the other merchant: ${busy.length} requests, ${quietErrors.length} errors, p50 ${ms(percentile(busy, 50))}, p99 ${ms(percentile(busy, 99))}, max ${ms(Math.max(...busy))} (alone: p50 ${ms(percentile(alone, 50))}, p99 ${ms(percentile(alone, 99))})`,
    );
    expect(quietErrors).toEqual([]);
    expect(percentile(busy, 99)).toBeLessThan(percentile(alone, 99) + 1000);
    // the attack really ran into the limits
    if (PARTS.has('logins')) expect(counts['wrong secret']?.[429] ?? 0).toBeGreaterThan(0);
    if (PARTS.has('uploads')) expect(counts.upload?.[429] ?? 0).toBeGreaterThan(0);
  } finally {
    await mine.close();
    await theirs.close();
    server.kill('SIGTERM');
    await exited;
    rmSync(tmp, { recursive: true, force: true });
  }
}, 300_000);
