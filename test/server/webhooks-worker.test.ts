import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { dirname, join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { spawn } from 'node:child_process';
import { build } from 'esbuild';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { receiver, type Receiver } from '../helpers/receiver.js';
import { emitEvent } from '../../src/server/services/events.js';
import { deliverDue, DeliveryWorker, WAKE, type Sleep } from '../../src/server/webhooks/worker.js';
import { claimDue } from '../../src/server/webhooks/delivery.js';
import { backend } from '../helpers/backend.js';

let env: TestEnv;
const cleanup: (() => Promise<void>)[] = [];
beforeEach(async () => {
  env = await testEnv();
});
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
  await env.close();
});

async function recv(delayMs = 0): Promise<Receiver> {
  const r = await receiver((_q, res) => {
    const d = typeof delayMs === 'number' ? delayMs : 0;
    if (d) setTimeout(() => res.end('ok'), d).unref();
    else res.end('ok');
  });
  cleanup.push(() => r.close());
  return r;
}

async function endpoint(url: string): Promise<string> {
  const r = await env.call('POST', '/v1/postbacks/endpoints', { url, events: ['*'] });
  expect(r.status).toBe(201);
  return r.body.data.id;
}

async function emitMany(n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    ids.push(
      await env.rt.deps.db.tx((q) =>
        emitEvent(q, env.rt.deps.ids, { merchantId: env.merchant.merchant_id, type: 'charge.captured', data: { id: crypto.randomUUID(), n: i }, at: env.clock.now() }),
      ),
    );
  }
  return ids;
}

async function until(cond: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const deliveredCount = async () =>
  Number((await env.rt.deps.db.get<{ n: number }>("SELECT COUNT(*) AS n FROM webhook_delivery_logs WHERE status = 'delivered'"))!.n);

function exactlyOnce(r: Receiver, ids: string[]): void {
  const seen = r.requests.map((q) => String(q.headers['webhook-id']));
  expect(seen).toHaveLength(ids.length);
  expect(new Set(seen)).toEqual(new Set(ids));
}

describe('two workers on one database', () => {
  it('two DeliveryWorkers sharing one store deliver each event exactly once per endpoint', async () => {
    const [a, b] = [await recv(5), await recv(5)];
    await endpoint(a.url);
    await endpoint(b.url);
    const ids = await emitMany(100);
    const w1 = new DeliveryWorker(env.rt.deps, { pollMs: 5, concurrency: 4, workerId: 'w1' });
    const w2 = new DeliveryWorker(env.rt.deps, { pollMs: 5, concurrency: 4, workerId: 'w2' });
    const by = { w1: 0, w2: 0 };
    w1.onAttempt = () => by.w1++;
    w2.onAttempt = () => by.w2++;
    w1.start();
    w2.start();
    try {
      await until(async () => (await deliveredCount()) >= 200);
    } finally {
      await Promise.all([w1.stop(), w2.stop()]);
    }
    exactlyOnce(a, ids);
    exactlyOnce(b, ids);
    expect(by.w1 + by.w2).toBe(200);
    expect(by.w1).toBeGreaterThan(0);
    expect(by.w2).toBeGreaterThan(0);
    const logs = await env.rt.deps.db.all<{ status: string }>('SELECT status FROM webhook_delivery_logs');
    expect(logs).toHaveLength(200);
    expect(logs.every((l) => l.status === 'delivered')).toBe(true);
  });

  // SQLite-specific: processes share one database *file*. On PostgreSQL the same property is
  // checked with two `mpay server start` replicas (test/e2e/replicas.test.ts).
  it.skipIf(backend === 'postgres')('two worker processes on one database file deliver each event exactly once per endpoint', async () => {
    const [a, b] = [await recv(15), await recv(15)];
    await endpoint(a.url);
    await endpoint(b.url);
    const ids = await emitMany(150);
    const out = join(mkdtempSync(join(tmpdir(), 'mpay-worker-proc-')), 'worker.cjs');
    await build({
      entryPoints: [join(__dirname, '../fixtures/webhook-worker-process.ts')],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      external: ['better-sqlite3'],
      outfile: out,
      logLevel: 'silent',
    });
    const runProc = (id: string) =>
      new Promise<{ workerId: string; attempts: number }>((resolve, reject) => {
        const p = spawn(process.execPath, [out, env.dir, id], {
          env: { ...process.env, NODE_PATH: join(process.cwd(), 'node_modules') },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        p.stdout.on('data', (c: Buffer) => (stdout += c));
        p.stderr.on('data', (c: Buffer) => (stderr += c));
        p.on('exit', (code) => (code === 0 ? resolve(JSON.parse(stdout.trim())) : reject(new Error(`worker ${id} exited ${code}: ${stderr}`))));
      });
    const [p1, p2] = await Promise.all([runProc('p1'), runProc('p2')]);
    rmSync(dirname(out), { recursive: true, force: true });
    exactlyOnce(a, ids);
    exactlyOnce(b, ids);
    expect(p1.attempts + p2.attempts).toBe(300);
    expect(p1.attempts).toBeGreaterThan(0);
    expect(p2.attempts).toBeGreaterThan(0);
    expect(await deliveredCount()).toBe(300);
    const dup = await env.rt.deps.db.get<{ n: number }>(
      "SELECT COUNT(*) AS n FROM (SELECT delivery_id FROM webhook_delivery_logs WHERE status = 'delivered' GROUP BY delivery_id HAVING COUNT(*) > 1) x",
    );
    expect(Number(dup!.n)).toBe(0);
  }, 120_000);

  it.skipIf(backend === 'postgres')('two embedded runs at once deliver each event exactly once', async () => {
    const a = await recv(2);
    await endpoint(a.url);
    const ids = await emitMany(60);
    // one merchant may hold every slot here (the per-merchant share would otherwise be 1 of 3,
    // counted across both runs, and one run could take every event): this is about exactly once
    const [x, y] = await Promise.all([
      deliverDue(env.rt.deps, { deadlineMs: 20_000, concurrency: 3, perMerchant: 6 }),
      deliverDue(env.rt.deps, { deadlineMs: 20_000, concurrency: 3, perMerchant: 6 }),
    ]);
    expect(x.delivered + y.delivered).toBe(60);
    expect(x.delivered).toBeGreaterThan(0);
    expect(y.delivered).toBeGreaterThan(0);
    exactlyOnce(a, ids);
  });

  it('a claim whose process died is taken over after its lease: that attempt is marked interrupted', async () => {
    const a = await recv();
    await endpoint(a.url);
    await emitMany(1);
    await deliverDue(env.rt.deps, { deadlineMs: 0 }); // fans out only
    const [dead] = await claimDue(env.rt.deps, 'crashed-worker', 1, 60_000);
    expect(dead).toBeDefined();
    expect((await deliverDue(env.rt.deps, { deadlineMs: 5_000 })).attempted).toBe(0); // leased
    env.clock.advance(60_001);
    expect((await deliverDue(env.rt.deps, { deadlineMs: 5_000 })).delivered).toBe(1);
    const logs = (await env.call('GET', '/v1/postbacks/delivery-logs')).body.data;
    expect(logs.map((l: { attempt: number; status: string }) => [l.attempt, l.status])).toEqual([
      [2, 'delivered'],
      [1, 'failed'],
    ]);
    expect(logs[1].error_message).toContain('interrupted');
    expect(a.requests).toHaveLength(1);
  });
});

describe('claims', () => {
  it('an idle run takes no write lock; a redelivery request during an attempt in flight is a 409', async () => {
    const a = await recv();
    await endpoint(a.url);
    let txs = 0;
    const db = env.rt.deps.db;
    const counting = new Proxy(db, {
      get(t, k) {
        if (k === 'tx') {
          return (fn: Parameters<typeof db.tx>[0]) => {
            txs++;
            return t.tx(fn);
          };
        }
        const v = Reflect.get(t, k, t);
        return typeof v === 'function' ? v.bind(t) : v;
      },
    });
    const deps = { ...env.rt.deps, db: counting };
    await deliverDue(deps, { deadlineMs: 1000 });
    expect(txs).toBe(0);
    await emitMany(1);
    await deliverDue(deps, { deadlineMs: 0 }); // fan-out only
    expect(txs).toBe(1);
    const [c] = await claimDue(env.rt.deps, 'someone', 5, 60_000);
    const r = await env.call('POST', `/v1/postbacks/delivery-logs/${c!.logId}/retry`);
    expect(r.status).toBe(409);
    expect(r.body.error).toBe('conflict');
    const [log] = (await env.call('GET', '/v1/postbacks/delivery-logs')).body.data;
    expect(log).toMatchObject({ id: c!.logId, status: 'pending', attempt: 1 });
  });
});

describe('DeliveryWorker lifecycle', () => {
  /** A count the test can wait for: `reach(n)` resolves once it is at least n. */
  function counter() {
    let value = 0;
    const waiting: { n: number; resolve: () => void }[] = [];
    return {
      add(): void {
        value++;
        for (const w of waiting.filter((x) => value >= x.n)) {
          waiting.splice(waiting.indexOf(w), 1);
          w.resolve();
        }
      },
      reach: (n: number) => (value >= n ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ n, resolve }))),
    };
  }

  /**
   * The worker's sleep, held by the test: a call ends only when the worker aborts it (kick() or
   * stop()), so the worker looks for work only when told. `calls` holds each call; `slept(n)`
   * resolves at the n-th: the worker has finished a poll and found nothing more to do.
   */
  function heldSleep() {
    const calls: { ms: number; signal: AbortSignal }[] = [];
    const count = counter();
    const sleep: Sleep = (ms, signal) =>
      new Promise((resolve) => {
        calls.push({ ms, signal });
        count.add();
        if (signal.aborted) return resolve();
        signal.addEventListener('abort', () => resolve(), { once: true });
      });
    return { sleep, calls, slept: count.reach };
  }

  /** A receiver that holds every answer until `answer()`; `arrived(n)` resolves once n requests have come in. */
  async function heldRecv() {
    let answer!: () => void;
    const gate = new Promise<void>((r) => (answer = r));
    const arrivals = counter();
    const r = await receiver(async (_q, res) => {
      arrivals.add();
      await gate;
      res.end('ok');
    });
    cleanup.push(() => r.close());
    return { requests: r.requests, url: r.url, answer, arrived: arrivals.reach };
  }

  it('stop() lets the attempt in flight finish and be recorded, then claims nothing more', async () => {
    const a = await heldRecv();
    await endpoint(a.url);
    await emitMany(1);
    const s = heldSleep();
    const w = new DeliveryWorker(env.rt.deps, { sleep: s.sleep });
    w.start();
    expect(w.running).toBe(true);
    // the attempt is in flight (its answer held) and the worker asleep, having found nothing more
    await a.arrived(1);
    await s.slept(1);
    // another event is due when stop() is called: a worker that claimed after it would have sent
    // it before stop() resolves, since stop() waits for the attempts in flight
    await emitMany(1);
    const stopped = w.stop();
    a.answer();
    await stopped;
    expect(w.running).toBe(false);
    expect(await deliveredCount()).toBe(1);
    expect(a.requests).toHaveLength(1);
  });

  it('polls with the injected sleep and looks at once on kick()', async () => {
    const a = await recv();
    await endpoint(a.url);
    const s = heldSleep();
    const attempts = counter();
    const w = new DeliveryWorker(env.rt.deps, { sleep: s.sleep });
    w.onAttempt = () => attempts.add();
    // every other timer is the test's from before the worker starts: time passes when it says
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    try {
      w.start();
      await s.slept(1);
      await emitMany(1);
      // an hour on every timer: the worker still sleeps (its one sleep not woken) and has not looked
      await vi.advanceTimersByTimeAsync(3_600_000);
      expect(s.calls.map((c) => c.signal.aborted)).toEqual([false]);
      expect(a.requests).toHaveLength(0);
    } finally {
      vi.useRealTimers();
    }
    w.kick();
    await attempts.reach(1);
    expect(await deliveredCount()).toBe(1);
    expect(s.calls.every((c) => c.ms === 250)).toBe(true);
    await w.stop();
    expect(a.requests).toHaveLength(1);
  });

  it('wakes with a constant reason: a kick builds no AbortError, however often it comes', async () => {
    const s = heldSleep();
    const w = new DeliveryWorker(env.rt.deps, { sleep: s.sleep });
    w.start();
    await s.slept(1);
    // a request that emits events kicks the worker, asleep or not: a burst of them
    for (let i = 0; i < 5; i++) w.kick();
    await s.slept(2);
    await w.stop();
    const signals = s.calls.map((c) => c.signal);
    expect(signals.every((x) => x.aborted)).toBe(true);
    expect(signals.map((x) => x.reason)).toEqual(signals.map(() => WAKE));
  });

  it('deliverDue stops claiming at its bound and leaves the rest due for the next run', async () => {
    const a = await recv(300);
    await endpoint(a.url);
    const ids = await emitMany(6);
    const first = await deliverDue(env.rt.deps, { deadlineMs: 500, concurrency: 1 });
    expect(first.attempted).toBeGreaterThan(0);
    expect(first.attempted).toBeLessThan(6);
    expect(first.delivered).toBe(first.attempted);
    expect(first.remaining).toBe(6 - first.attempted);
    const second = await deliverDue(env.rt.deps, { deadlineMs: 20_000, concurrency: 6 });
    expect(second.delivered).toBe(6 - first.attempted);
    expect(second.remaining).toBe(0);
    exactlyOnce(a, ids);
  });
});
