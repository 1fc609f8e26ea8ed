/**
 * Cancelling is one code. Ctrl-C (SIGINT) ends every command with exit 130, as a shell reports
 * a program stopped by Ctrl-C: by default at once; commands with something to undo (webhooks
 * listen, smoke, server start) hook the stop signals with `onStopSignals`, undo, then return
 * `exitForSignal(sig)`. A Ctrl-C inside a prompt (inquirer's ExitPromptError, the wizard's
 * readline) is the same interruption. Answering "no" to a confirmation is not an interruption
 * but a refusal: exit 1, error code `cancelled`.
 */
import { CliError, EXIT } from './errors.js';

export class Interrupted extends CliError {
  constructor(readonly signal: string = 'SIGINT') {
    super(`interrupted by ${signal}`, EXIT.interrupted, 'interrupted');
  }
}

export class Cancelled extends CliError {
  /**
   * `line`: what a person reads, in the language the question was asked in (a confirmation or
   * the wizard in Portuguese); a JSON report keeps the English message.
   */
  constructor(
    what?: string,
    readonly line?: string,
  ) {
    super(what ? `cancelled: ${what} was not done` : 'cancelled', EXIT.refused, 'cancelled');
  }
}

export type StopSignal = 'SIGINT' | 'SIGTERM';

/**
 * The exit code after a clean stop on a signal: Ctrl-C → 130; SIGTERM (how a supervisor stops a
 * service) → 0 after a clean stop.
 */
export const exitForSignal = (sig: string | null | undefined): number => (sig === 'SIGINT' ? EXIT.interrupted : EXIT.ok);

export interface SignalSource {
  on(sig: StopSignal, fn: () => void): unknown;
  off(sig: StopSignal, fn: () => void): unknown;
}

const defaultOnInt = () => process.exit(EXIT.interrupted);
let defaultInstalled = false;
let hooks = 0;

/** For the process: Ctrl-C outside a command's own handling exits 130 (not a signal death). */
export function installDefaultInterrupt(): void {
  if (defaultInstalled) return;
  defaultInstalled = true;
  if (hooks === 0) process.on('SIGINT', defaultOnInt);
}

/**
 * Calls `onStop(sig)` on SIGINT/SIGTERM until the returned function un-hooks it; meanwhile the
 * default "exit 130 at once" is off, so the command can clean up first.
 */
export function onStopSignals(onStop: (sig: StopSignal) => void, source: SignalSource = process): () => void {
  const onInt = () => onStop('SIGINT');
  const onTerm = () => onStop('SIGTERM');
  const real = source === process;
  // the new listener first, then the default off (and back the other way round): Node stops
  // listening for a signal when its last listener goes, and a Ctrl-C caught but not yet
  // dispatched at that moment would be lost, the command going on as if never stopped
  source.on('SIGINT', onInt);
  source.on('SIGTERM', onTerm);
  if (real && hooks++ === 0 && defaultInstalled) process.off('SIGINT', defaultOnInt);
  let done = false;
  return () => {
    if (done) return;
    done = true;
    if (real && --hooks === 0 && defaultInstalled) process.on('SIGINT', defaultOnInt);
    source.off('SIGINT', onInt);
    source.off('SIGTERM', onTerm);
  };
}
