/**
 * Calls `call` every `everyMs` on a schedule of its own until `until()` holds: a call does not
 * wait for the one before, and each is timed from the moment it was due, so a call that could
 * not even start (its client or the server held up) counts that wait. Returns the latencies.
 */
export async function onSchedule(everyMs: number, until: () => boolean, call: () => Promise<void>): Promise<number[]> {
  const latencies: number[] = [];
  const calls: Promise<void>[] = [];
  let due = performance.now();
  while (!until()) {
    due += everyMs;
    // a timer may fire a fraction of a millisecond early
    for (let wait = due - performance.now(); wait > 0; wait = due - performance.now()) await new Promise((r) => setTimeout(r, wait));
    const at = due;
    calls.push(call().then(() => void latencies.push(performance.now() - at)));
  }
  await Promise.all(calls);
  return latencies;
}

/** The p-th percentile (nearest rank) of some numbers. */
export const percentile = (xs: readonly number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.max(0, Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1))]!;
