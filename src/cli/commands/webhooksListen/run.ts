/**
 * `mpay webhooks listen`: a local receiver with a temporary webhook endpoint on the current
 * target (src/cli/webhookListener.ts does the work). Prints each event as it arrives — a line per
 * event on a terminal, JSONL when piped — verifies it, optionally forwards it to the
 * developer's app, and deletes the endpoint on Ctrl-C / SIGTERM.
 *
 * Embedded target: events are written to the outbox by whichever mpay process changes
 * something on the data directory. That process delivers due webhooks before it exits (within
 * a short bound), and this process runs a DeliveryWorker on the same data directory too, so
 * an event reaches the listener even when its producer exited before delivering it.
 */
import type { IO } from '../../io.js';
import type { RunEnv } from '../shape.js';
import { jq, painter, resolveFormat } from '../../output.js';
import { openTarget as realOpenTarget, type Globals, type Target } from '../../target.js';
import { CliError, EXIT, usage } from '../../errors.js';
import { checkHttpUrl, listItems } from '../../checks.js';
import { EVENT_NAMES } from '../../../contract/events.js';
import type { ListenEvent, ReceivedEvent, ForwardedEvent } from '../../webhookListener.js';
import { exitForSignal, onStopSignals, type SignalSource } from '../../signals.js';

export interface ListenOptions {
  events?: string[];
  forwardTo?: string;
  port?: string;
  host?: string;
  publicUrl?: string;
  printSecret?: boolean;
}

export interface ListenDeps {
  openTarget?: (g: Globals, io: IO) => Promise<Target>;
  /** where stop signals come from (tests pass an EventEmitter) */
  signals?: NodeJS.EventEmitter;
}

/** Event names as the service takes them (and as `webhooks create --events` checks them). */
const EVENT_CHOICES: readonly string[] = ['*', ...EVENT_NAMES];

/** --events as `webhooks create` checks it; not given: every event. */
function parseEvents(raw: string[] | undefined): string[] {
  if (!raw?.length) return ['*'];
  return [...new Set(listItems('--events', raw, EVENT_CHOICES, 1))];
}

const checkUrl = (flag: string, v: string | undefined) => v === undefined || checkHttpUrl(flag, v);

const hhmmss = (iso: string) => {
  const d = new Date(iso);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
};

export async function webhooksListen(g: Globals, o: ListenOptions, io: IO, deps: ListenDeps = {}): Promise<number> {
  const events = parseEvents(o.events);
  checkUrl('--forward-to', o.forwardTo);
  checkUrl('--public-url', o.publicUrl);
  if (o.port !== undefined && (!/^\d+$/.test(o.port) || Number(o.port) > 65535)) throw usage(`--port must be a number from 0 to 65535, got '${o.port}'`);
  const format = resolveFormat(g, io);
  const lines = format === 'table' ? 'table' : 'jsonl';
  const paint = await painter(g, io);

  // Stop signals are caught before anything is printed: whoever reads our first line may stop
  // us at once, and the endpoint must still be removed.
  let stopRequested: string | null = null;
  let onStop: (() => void) | null = null;
  const unhook = onStopSignals((sig) => {
    stopRequested ??= sig;
    onStop?.();
  }, deps.signals as SignalSource | undefined);

  let target: Target | undefined;
  let worker: { stop(): Promise<void> } | undefined;
  try {
    target = await (deps.openTarget ?? realOpenTarget)(g, io);
    const client = target.client;
    const { startListener } = await import('../../webhookListener.js');
    let listener;
    try {
      listener = await startListener({
        client,
        events,
        host: o.host,
        port: o.port === undefined ? 0 : Number(o.port),
        publicUrl: o.publicUrl,
        forwardTo: o.forwardTo,
      });
    } catch (e) {
      if ((e as Error).name === 'ConnectionError' || (e as NodeJS.ErrnoException).code) throw e;
      throw new CliError((e as Error).message, EXIT.refused);
    }
    const l = listener;
    if (target.runtime) {
      const { DeliveryWorker } = await import('../../../server/webhooks/worker.js');
      const w = new DeliveryWorker(target.runtime.deps, { pollMs: 250 });
      w.start();
      worker = w;
    }
    onStop = () => void l.close().catch(() => undefined);
    if (stopRequested) onStop();

    if (o.printSecret) io.out(l.secret + '\n');
    if (!g.quiet) {
      io.err(
        `Listening on ${l.url} for ${l.events.join(', ')}; endpoint ${l.endpointId}${l.registeredUrl !== l.url ? ` at ${l.registeredUrl}` : ''} on ${target.kind === 'embedded' ? `the embedded sandbox (${target.dataDir})` : target.baseUrl}` +
          `${o.forwardTo ? `; forwarding to ${o.forwardTo}` : ''}. Ctrl-C stops and removes the endpoint.\n`,
      );
    }

    // With forwarding, an event's line waits for the app's answer so it can show it.
    const waiting = new Map<string, ReceivedEvent>();
    // --jq: each line through jq, in the order the events came
    let filtered: Promise<void> = Promise.resolve();
    const print = (r: ReceivedEvent, f?: ForwardedEvent) => {
      const id = r.event?.id ?? r.webhookId ?? null;
      if (lines === 'jsonl') {
        const rec: Record<string, unknown> = { received_at: r.receivedAt, id, type: r.event?.type ?? null, verified: r.verified };
        if (r.error) rec.error = r.error;
        if (f) {
          rec.forward_status = f.status;
          rec.forward_ms = f.durationMs;
          if (f.error) rec.forward_error = f.error;
        }
        rec.event = r.event;
        if (typeof format !== 'object') io.out(JSON.stringify(rec) + '\n');
        else {
          // an event the filter fails on is named on stderr; the listener goes on
          filtered = filtered.then(() =>
            jq(rec, format.jq).then(
              (text) => io.out(text),
              (e: unknown) => io.err(`warning: event ${String(id)}: ${(e as Error).message}\n`),
            ),
          );
        }
        return;
      }
      const mark = r.verified ? paint.green('✓ verified') : paint.red(`✗ ${r.error ?? 'not verified'}`);
      const fwd = f ? `  → ${f.status === null ? paint.red(f.error ?? 'unreachable') : f.status < 300 ? paint.green(String(f.status)) : paint.red(String(f.status))} ${paint.dim(`${f.durationMs} ms`)}` : '';
      io.out(`${paint.dim(hhmmss(r.receivedAt))}  ${(r.event?.type ?? '?').padEnd(24)} ${id ?? '?'}  ${mark}${fwd}\n`);
    };
    for await (const ev of l as AsyncIterable<ListenEvent>) {
      if (ev.type === 'received') {
        if (o.forwardTo && ev.verified) waiting.set(ev.event?.id ?? ev.webhookId ?? '', ev);
        else print(ev);
      } else if (ev.type === 'forwarded') {
        const r = waiting.get(ev.eventId ?? '');
        waiting.delete(ev.eventId ?? '');
        if (r) print(r, ev);
      } else if (!g.quiet) {
        io.err(`warning: ${ev.error.message}\n`);
      }
    }
    for (const r of waiting.values()) print(r);
    await filtered;
    try {
      await l.close();
    } catch (e) {
      throw new CliError((e as Error).message, EXIT.refused);
    }
    if (!g.quiet) io.err(`${stopRequested ?? 'stopped'}: endpoint ${l.endpointId} removed\n`);
    return exitForSignal(stopRequested);
  } finally {
    unhook();
    await worker?.stop();
    await target?.close();
  }
}

/** The command's entry: its options, with the target opener and IO injected. */
export async function run(opts: ListenOptions, env: RunEnv): Promise<number> {
  return webhooksListen(env.globals, opts, env.io, { openTarget: env.openTarget });
}
