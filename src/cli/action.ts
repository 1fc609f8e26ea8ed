/**
 * What every command action gets (the IO, an injected target opener, the exit code it sets), and
 * the wrapper that turns an action's result or error into that exit code.
 */
import type { Command } from 'commander';
import { EXIT, reportError, type ErrorFormat } from './errors.js';
import type { IO } from './io.js';
import type { Globals, OpenOptions, Target } from './target.js';

export interface CliDeps {
  io: IO;
  /** replaces target resolution (tests inject a client here) */
  openTarget?: (g: Globals, io: IO, opts?: OpenOptions) => Promise<Target>;
  /** set by actions: the process exit code */
  exitCode: number;
  /** -o / --json as read from the command line: how errors are reported */
  errorFormat?: ErrorFormat;
}

export type ActionResult = number | void;

/** Wraps an action so its exit code lands in deps and errors never escape as stack traces. */
export function action<A extends unknown[]>(deps: CliDeps, fn: (...args: A) => Promise<ActionResult>) {
  return async (...args: A) => {
    try {
      deps.exitCode = (await fn(...args)) ?? EXIT.ok;
    } catch (e) {
      deps.exitCode = reportError(deps.io, deps.errorFormat, e);
    }
  };
}

export function globalsOf(cmd: Command): Globals {
  return cmd.optsWithGlobals() as Globals;
}
