/**
 * Serving over HTTP until a stop signal: what `mpay server start` runs, and what `mpay links open`
 * and `mpay files open` run for the embedded sandbox on a free loopback port. Loaded only by
 * those commands.
 */
import { CliError, EXIT } from './errors.js';
import { onStopSignals, type StopSignal } from './signals.js';
import type { ConnectionLimits } from '../server/connections.js';
import type { Runtime } from '../server/runtime.js';

export interface Serving {
  /** the origin it listens on, e.g. http://127.0.0.1:43817 */
  url: string;
  /** resolves with the signal once everything is stopped (the runtime itself stays open) */
  stopped: Promise<StopSignal>;
}

/**
 * Calls `stop` on the first SIGINT or SIGTERM; resolves with that signal once it has run. The
 * handlers are in place when this returns, so whoever is told the URL may stop us at once.
 */
export function untilStopped(stop: (sig: StopSignal) => Promise<void>): Promise<StopSignal> {
  return new Promise<StopSignal>((done) => {
    let stopping = false;
    const unhook = onStopSignals((sig) => {
      if (stopping) return;
      stopping = true;
      unhook();
      void stop(sig).finally(() => done(sig));
    });
  });
}

export interface ServeRuntimeOptions {
  host: string;
  port: number;
  /** connection limits (src/server/connections.ts); unset ones take their defaults */
  limits?: Partial<ConnectionLimits>;
  /** keep the runtime's public origin (`--public-url`) instead of the address it listens on */
  keepPublicUrl?: boolean;
  /** one structured line per problem of the background work */
  log?: (entry: Record<string, unknown>) => void;
  /** called first on a stop signal, before anything stops */
  onStopping?: (sig: StopSignal) => void;
}

/**
 * The runtime's app over HTTP, with the background work of server mode: webhook deliveries,
 * and time-based moves (settlements, expirations, payout progress) for every merchant as they
 * come due. Until SIGINT or SIGTERM; the caller closes the runtime afterwards.
 */
export async function serveRuntime(rt: Runtime, o: ServeRuntimeOptions): Promise<Serving> {
  const { listen } = await import('../server/http.js');
  let server: Awaited<ReturnType<typeof listen>>;
  try {
    server = await listen(rt, o.host, o.port, o.limits);
  } catch (e) {
    throw new CliError(`cannot listen on ${o.host}:${o.port}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, EXIT.refused);
  }
  // links the API hands out (checkout_url, file urls) point at where it is served
  if (!o.keepPublicUrl) rt.deps.publicBaseUrl = server.url;
  const { DeliveryWorker } = await import('../server/webhooks/worker.js');
  const { runDueWork } = await import('../server/due.js');
  const worker = new DeliveryWorker(rt.deps, { pollMs: 250 });
  worker.start();
  rt.deps.onEvent = () => worker.kick();
  let sweeping = false;
  const sweeper = setInterval(() => {
    if (sweeping) return;
    sweeping = true;
    runDueWork(rt.deps)
      .catch((e) => o.log?.({ level: 'error', message: `due work failed: ${(e as Error).message}` }))
      .finally(() => (sweeping = false));
  }, 1_000);
  const stopped = untilStopped(async (sig) => {
    o.onStopping?.(sig);
    clearInterval(sweeper);
    await worker.stop();
    await server.close();
    while (sweeping) await new Promise((r) => setTimeout(r, 10));
    rt.deps.onEvent = undefined;
  });
  return { url: server.url, stopped };
}
