/**
 * Boletos created through two replicas at once on one store (a SQLite file shared by two
 * processes, or one PostgreSQL database): merchants that have no boleto account yet each create
 * boletos through both, all in flight together. Every nosso número is used once, with no gap
 * (no create rolled back), and each merchant got exactly one account, none shared. Then a boleto
 * and a PIX with a due date paid through both replicas at once: each is paid once (one capture,
 * one event, one set of receivables, one wallet credit), every other attempt a 409.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openRuntime } from '../../src/server/runtime.js';
import { createMerchant } from '../../src/server/services/merchants.js';
import { backend, testStore } from '../helpers/backend.js';
import { inReplicas, requestWorker } from '../helpers/replicas.js';
import { chargeBody } from '../helpers/money.js';
import { basic } from '../helpers/server.js';

let worker: Awaited<ReturnType<typeof requestWorker>>;
beforeAll(async () => {
  worker = await requestWorker('boleto-replicas-worker');
}, 60_000);
afterAll(() => worker.cleanup());

const MERCHANTS = 3;
const EACH = 12;

it(`${MERCHANTS} merchants × ${EACH} boletos through two replicas at once (${backend}): unique numbers, one account each`, async () => {
  const store = await testStore();
  const rt = await openRuntime({ dataDir: store.dir, db: await store.open(), rateLimit: null });
  try {
    const auths: string[] = [];
    for (let n = 0; n < MERCHANTS; n++) {
      const m = await rt.deps.db.tx((q) => createMerchant(q, rt.deps, `Loja Boleto ${n}`, new Date()));
      auths.push(basic(m.public_key, m.secret_key));
    }
    const base = chargeBody(10_000) as { customer: Record<string, unknown> };
    const due = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
    const body = {
      ...base,
      customer: { ...base.customer, address: { street: 'Av. Paulista', number: '1000', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP', zip_code: '01310100' } },
      payment_method: 'boleto',
      payment_details: { due_date: due },
    };
    // each replica gets half of every merchant's boletos, the merchants interleaved
    const batch = () => Array.from({ length: EACH / 2 }, () => auths.map((auth) => ({ method: 'POST', path: '/v1/charges', body, auth }))).flat();
    const answers = await inReplicas(worker.file, store, [
      { auth: '', requests: batch() },
      { auth: '', requests: batch() },
    ]);
    expect(answers.flat().filter((r) => r.status !== 201)).toEqual([]);
    const rows = await rt.deps.db.all<{ merchant_id: string; boleto_our_number: number; boleto_barcode: string }>(
      "SELECT merchant_id, boleto_our_number, boleto_barcode FROM charges WHERE payment_method = 'boleto'",
    );
    expect(rows).toHaveLength(MERCHANTS * EACH);
    const numbers = rows.map((r) => Number(r.boleto_our_number)).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: MERCHANTS * EACH }, (_, i) => i + 1));
    const accounts = await rt.deps.db.all<{ id: string; boleto_account: string }>('SELECT id, boleto_account FROM merchants WHERE boleto_account IS NOT NULL');
    expect(accounts).toHaveLength(MERCHANTS);
    expect(new Set(accounts.map((a) => a.boleto_account)).size).toBe(MERCHANTS);
    // every slip carries its merchant's account in the free field
    const accountOf = new Map(accounts.map((a) => [a.id, a.boleto_account]));
    for (const r of rows) expect(r.boleto_barcode.slice(23, 31)).toBe(accountOf.get(r.merchant_id));
  } finally {
    await rt.close();
    await store.cleanup();
  }
}, 120_000);

const PAYS = 8;

it(`a boleto and a PIX with a due date, each paid ${PAYS} times through two replicas at once (${backend}): paid once`, async () => {
  const store = await testStore();
  const rt = await openRuntime({ dataDir: store.dir, db: await store.open(), rateLimit: null });
  try {
    const m = await rt.deps.db.tx((q) => createMerchant(q, rt.deps, 'Loja Paga Uma Vez', new Date()));
    const auth = basic(m.public_key, m.secret_key);
    const base = chargeBody(10_000) as { customer: Record<string, unknown> };
    const due = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
    const customer = { ...base.customer, address: { street: 'Av. Paulista', number: '1000', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP', zip_code: '01310100' } };
    const create = async (payment_method: string) => {
      const r = await rt.app.request('/v1/charges', {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/json' },
        body: JSON.stringify({ ...base, customer, payment_method, payment_details: { due_date: due } }),
      });
      expect(r.status).toBe(201);
      return ((await r.json()) as { data: { id: string } }).data.id;
    };
    const ids = [await create('boleto'), await create('pix')];
    const batch = () => ids.flatMap((id) => Array.from({ length: PAYS / 2 }, () => ({ method: 'POST', path: `/v1/sandbox/charges/${id}/pay`, body: {} })));
    const answers = (await inReplicas(worker.file, store, [
      { auth, requests: batch() },
      { auth, requests: batch() },
    ])).flat();
    expect(answers.filter((a) => a.status === 200)).toHaveLength(ids.length);
    expect(answers.filter((a) => a.status !== 200)).toEqual(Array.from({ length: ids.length * (PAYS - 1) }, () => ({ status: 409, error: 'invalid_state' })));
    for (const id of ids) {
      const events = await rt.deps.db.all<{ type: string }>("SELECT type FROM events WHERE charge_id = ? AND type = 'charge.captured'", [id]);
      expect(events, id).toHaveLength(1);
      const recv = await rt.deps.db.all<{ gross_amount: number }>('SELECT gross_amount FROM receivables WHERE charge_id = ?', [id]);
      expect(recv.map((r) => Number(r.gross_amount)), id).toEqual([10_000]);
    }
    // the PIX is credited at once, once: R$ 100,00 less 0.99 %
    const entries = await rt.deps.db.all<{ amount: number }>("SELECT e.amount FROM wallet_entries e JOIN wallets w ON w.id = e.wallet_id WHERE w.merchant_id = ? AND e.direction = 'credit'", [m.merchant_id]);
    expect(entries.map((e) => Number(e.amount))).toEqual([10_000 - 99]);
  } finally {
    await rt.close();
    await store.cleanup();
  }
}, 120_000);
