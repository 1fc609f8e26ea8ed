/**
 * PIN guesses from two replicas at once, on the current backend (one SQLite file shared by two
 * processes, or one PostgreSQL database): with the secret key but not the PIN, 200 parallel
 * guesses — each its own withdrawal, or its own PIN change — compare at most PIN_MAX_ATTEMPTS
 * PINs in the window, pay nothing and change no PIN. The right PIN is among them: it is sent
 * while the rest are in flight, once the sender has seen 5 answers (so the window's attempts
 * are all taken by then), and it is refused like any other guess. And the other way round: the
 * right PIN sent many times at once (a batch of payouts) is accepted every time.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PIN_MAX_ATTEMPTS } from '../../src/domain/pin.js';
import { openRuntime, type Runtime } from '../../src/server/runtime.js';
import { credit } from '../../src/server/services/ledger.js';
import { createMerchant, type NewMerchant } from '../../src/server/services/merchants.js';
import { backend, testStore, type TestStore } from '../helpers/backend.js';
import { inReplicas, requestWorker, type WorkerRequest, type WorkerResult } from '../helpers/replicas.js';
import { basic } from '../helpers/server.js';

const PIN = '4829';
const PER_PROCESS = 100;
const FUNDS = 400_000;

let worker: Awaited<ReturnType<typeof requestWorker>>;
beforeAll(async () => {
  worker = await requestWorker('request-worker');
}, 60_000);
afterAll(() => worker.cleanup());

/** Distinct wrong 4-digit PINs: 0000, 0001, … skipping the right one. */
function wrongPins(n: number, skip = 0): string[] {
  const out: string[] = [];
  for (let i = skip; out.length < n; i++) {
    const p = String(i).padStart(4, '0');
    if (p !== PIN) out.push(p);
  }
  return out;
}

async function race(store: TestStore, m: NewMerchant, make: (pin: string, i: number) => WorkerRequest): Promise<WorkerResult[]> {
  const auth = basic(m.public_key, m.secret_key);
  const batches = [wrongPins(PER_PROCESS, 0), wrongPins(PER_PROCESS - 1, 5000)];
  const jobs = batches.map((pins, p) => ({
    auth,
    requests: pins.map((pin, i) => make(pin, p * 1000 + i)),
    // the right PIN goes out with the rest in flight, once this replica has 5 answers
    ...(p === 1 ? { late: { after: PIN_MAX_ATTEMPTS, request: make(PIN, 9999) } } : {}),
  }));
  return (await inReplicas(worker.file, store, jobs)).flat();
}

async function setup(): Promise<{ store: TestStore; rt: Runtime; m: NewMerchant; pinHash: string }> {
  const store = await testStore();
  const rt = await openRuntime({ dataDir: store.dir, db: await store.open(), rateLimit: null });
  const m = await rt.deps.db.tx((q) => createMerchant(q, rt.deps, 'Loja PIN', new Date()));
  await rt.deps.db.tx((q) =>
    credit(q, rt.deps.ids, { walletId: m.wallet_id, amount: FUNDS, referenceType: 'test', referenceId: rt.deps.ids(), description: 'funding', at: new Date() }),
  );
  const set = await rt.app.request('/v1/merchant/pin', {
    method: 'PUT',
    headers: { authorization: basic(m.public_key, m.secret_key), 'content-type': 'application/json' },
    body: JSON.stringify({ pin: PIN }),
  });
  expect(set.status).toBe(200);
  const row = await rt.deps.db.get<{ pin_hash: string }>('SELECT pin_hash FROM merchants WHERE id = ?', [m.merchant_id]);
  return { store, rt, m, pinHash: row!.pin_hash };
}

/** How the race ended: attempts the store counted in the window, answers by code. */
async function outcome(rt: Runtime, m: NewMerchant, results: WorkerResult[]) {
  const row = await rt.deps.db.get<{ n: number; pin_hash: string }>('SELECT pin_failed_attempts AS n, pin_hash FROM merchants WHERE id = ?', [m.merchant_id]);
  const by = (code: string | null, status?: number) => results.filter((r) => r.error === code && (status === undefined || r.status === status)).length;
  return {
    compared: Number(row!.n),
    pinHash: row!.pin_hash,
    invalidPin: by('invalid_pin'),
    locked: by('pin_locked'),
    ok: results.filter((r) => r.status < 300).length,
    fiveXX: results.filter((r) => r.status >= 500).length,
  };
}

it(`200 parallel withdrawals, each a PIN guess, from two replicas (${backend}) → at most ${PIN_MAX_ATTEMPTS} compared, 0 payouts`, async () => {
  const { store, rt, m, pinHash } = await setup();
  try {
    const results = await race(store, m, (pin, i) => ({
      method: 'POST',
      path: '/v1/withdrawals',
      body: {
        type: 'pix',
        wallet_id: m.wallet_id,
        amount: 400_000,
        pix_key: 'ana@example.com',
        pix_key_type: 'email',
        holder_document_type: 'cpf',
        holder_document: '52998224725',
        idempotency_key: `guess-${i}`,
        pin,
      },
    }));
    const o = await outcome(rt, m, results);
    expect(results).toHaveLength(2 * PER_PROCESS);
    expect(o.fiveXX).toBe(0);
    expect(o.ok).toBe(0);
    expect(o.compared).toBeLessThanOrEqual(PIN_MAX_ATTEMPTS);
    expect(o.invalidPin).toBeLessThan(PIN_MAX_ATTEMPTS);
    expect(o.invalidPin + o.locked).toBe(2 * PER_PROCESS);
    // the right PIN, sent last, was refused as locked
    expect(results.at(-1)).toEqual({ status: 422, error: 'pin_locked' });
    expect(Number((await rt.deps.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM withdrawals'))!.n)).toBe(0);
    expect(Number((await rt.deps.db.get<{ b: number }>('SELECT balance AS b FROM wallets WHERE id = ?', [m.wallet_id]))!.b)).toBe(FUNDS);
    expect(o.pinHash).toBe(pinHash);
  } finally {
    await rt.close();
    await store.cleanup();
  }
}, 120_000);

it(`200 parallel PIN changes, each a guess of current_pin, from two replicas (${backend}) → at most ${PIN_MAX_ATTEMPTS} compared, 0 PIN changes`, async () => {
  const { store, rt, m, pinHash } = await setup();
  try {
    const results = await race(store, m, (pin) => ({ method: 'PUT', path: '/v1/merchant/pin', body: { pin: '7351', current_pin: pin } }));
    const o = await outcome(rt, m, results);
    expect(o.fiveXX).toBe(0);
    expect(o.ok).toBe(0);
    expect(o.compared).toBeLessThanOrEqual(PIN_MAX_ATTEMPTS);
    expect(o.invalidPin).toBeLessThan(PIN_MAX_ATTEMPTS);
    expect(o.invalidPin + o.locked).toBe(2 * PER_PROCESS);
    expect(results.at(-1)).toEqual({ status: 422, error: 'pin_locked' });
    expect(o.pinHash).toBe(pinHash);
  } finally {
    await rt.close();
    await store.cleanup();
  }
}, 120_000);

it(`80 parallel withdrawals with the right PIN from two replicas (${backend}) → every one paid`, async () => {
  const { store, rt, m } = await setup();
  try {
    const body = (i: number): WorkerRequest => ({
      method: 'POST',
      path: '/v1/withdrawals',
      body: {
        type: 'pix',
        wallet_id: m.wallet_id,
        amount: 1000,
        pix_key: 'ana@example.com',
        pix_key_type: 'email',
        holder_document_type: 'cpf',
        holder_document: '52998224725',
        idempotency_key: `batch-${i}`,
        pin: PIN,
      },
    });
    const auth = basic(m.public_key, m.secret_key);
    const results = (await inReplicas(worker.file, store, [0, 1].map((p) => ({ auth, requests: Array.from({ length: 40 }, (_, i) => body(p * 100 + i)) })))).flat();
    expect(results.filter((r) => r.status !== 201)).toEqual([]);
    expect(Number((await rt.deps.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM withdrawals'))!.n)).toBe(80);
  } finally {
    await rt.close();
    await store.cleanup();
  }
}, 120_000);
