// Node stops listening for a signal when its last listener goes: a Ctrl-C that arrived but was not
// yet dispatched is then dropped, and the command goes on as if never stopped (a `webhooks
// listen` interrupted while starting kept listening). Handing SIGINT from the default "exit 130"
// to a command's own stop and back must never leave it without a listener.
import { afterAll, describe, expect, it } from 'vitest';
import { installDefaultInterrupt, onStopSignals } from '../../src/cli/signals.js';

const baseline = process.listeners('SIGINT');
afterAll(() => {
  for (const l of process.listeners('SIGINT')) if (!baseline.includes(l)) process.off('SIGINT', l);
});

describe('stop signals', () => {
  it('hooking and unhooking a command\'s stop never leaves SIGINT without a listener of mpay\'s', () => {
    installDefaultInterrupt();
    const ours = () => process.listeners('SIGINT').filter((l) => !baseline.includes(l)).length;
    expect(ours()).toBe(1);
    const seen: number[] = [];
    const off = process.off;
    process.off = process.removeListener = function (this: NodeJS.Process, ev: string | symbol, fn: (...a: unknown[]) => void) {
      const r = off.call(this, ev, fn);
      if (ev === 'SIGINT') seen.push(ours());
      return r;
    } as typeof process.off;
    try {
      const unhook = onStopSignals(() => undefined);
      expect(ours()).toBe(1); // the command's, in place of the default
      unhook();
      expect(ours()).toBe(1); // the default again
    } finally {
      process.off = process.removeListener = off;
    }
    expect(seen.length).toBe(2);
    expect(seen.filter((n) => n === 0)).toEqual([]);
  });
});
