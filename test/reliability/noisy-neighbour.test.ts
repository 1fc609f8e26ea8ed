/**
 * Noisy neighbour: one merchant's 10 webhook endpoints hang (a tarpit that accepts
 * the connection and never answers), 2 events each; another merchant's next event must still
 * be delivered at once, not after the hanging attempts time out. Real HTTP on loopback, the
 * server's DeliveryWorker with its default concurrency.
 */
import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { testEnv, basic, type TestEnv } from '../helpers/server.js';
import { receiver, type Receiver } from '../helpers/receiver.js';
import { emitEvent } from '../../src/server/services/events.js';
import { DeliveryWorker, type AttemptReport } from '../../src/server/webhooks/worker.js';
import { PER_MERCHANT_IN_FLIGHT } from '../../src/server/webhooks/delivery.js';
import type { NewMerchant } from '../../src/server/services/merchants.js';
import { report } from './helpers.js';

const TIMEOUT_MS = 5_000;
let env: TestEnv;
let quietRc: Receiver;
let tarpit: { url: string; open: () => number; peak: () => number; close: () => Promise<void> };
let worker: DeliveryWorker | undefined;

beforeEach(async () => {
  env = await testEnv();
  quietRc = await receiver();
  const sockets = new Set<Socket>();
  let peak = 0;
  const srv = createServer((s) => {
    sockets.add(s);
    peak = Math.max(peak, sockets.size);
    s.on('data', () => undefined); // read the request, never answer
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  tarpit = {
    url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`,
    open: () => sockets.size,
    peak: () => peak,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        srv.close(() => r());
      }),
  };
});
afterEach(async () => {
  await worker?.stop();
  await tarpit.close();
  await quietRc.close();
  await env.close();
});

async function endpoint(m: NewMerchant, url: string): Promise<void> {
  const r = await env.call('POST', '/v1/postbacks/endpoints', { url, events: ['*'] }, { authorization: basic(m.public_key, m.secret_key) });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
}

const emit = (m: NewMerchant, n: number) =>
  env.rt.deps.db.tx((q) => emitEvent(q, env.rt.deps.ids, { merchantId: m.merchant_id, type: 'charge.captured', data: { n }, chargeId: null, at: env.clock.now() }));

it('another merchant’s webhook arrives while one merchant’s 10 endpoints hang', async () => {
  const noisy = env.merchant;
  const quiet = await env.newMerchant('Vizinho');
  for (let i = 0; i < 10; i++) await endpoint(noisy, `${tarpit.url}/hang-${i}`);
  await endpoint(quiet, quietRc.url);

  const attempts: (AttemptReport & { at: number })[] = [];
  worker = new DeliveryWorker(env.rt.deps, { timeoutMs: TIMEOUT_MS, pollMs: 50 });
  worker.onAttempt = (a) => attempts.push({ ...a, at: performance.now() });
  worker.start();

  await emit(noisy, 1);
  await emit(noisy, 2);
  worker.kick();
  // the hanging attempts have taken their slots
  for (let i = 0; i < 100 && tarpit.open() === 0; i++) await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 200));
  expect(tarpit.open()).toBeGreaterThan(0);

  const t0 = performance.now();
  const wall0 = Date.now();
  await emit(quiet, 3);
  worker.kick();
  for (let i = 0; i < 2 * (TIMEOUT_MS / 20) && quietRc.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
  const latency = performance.now() - t0;
  expect(quietRc.requests).toHaveLength(1);
  const arrivedAt = quietRc.requests[0]!.at - wall0;
  // ordering, not timing: it arrived while every hanging attempt was still hanging
  const firstTimeout = attempts.find((a) => a.status === null);
  expect(firstTimeout === undefined || firstTimeout.at > t0 + arrivedAt).toBe(true);
  expect(tarpit.peak()).toBeLessThanOrEqual(PER_MERCHANT_IN_FLIGHT);
  report(
    `noisy neighbour 10 hanging endpoints × 2 events (20 deliveries, attempt timeout ${TIMEOUT_MS} ms) → other merchant's delivery after ${Math.round(
      latency,
    )} ms; hanging attempts in flight at most ${tarpit.peak()} (cap ${PER_MERCHANT_IN_FLIGHT} per merchant, 8 per worker)`,
  );
});
