/**
 * The shape of a hand-written command (gh's): its module exports typed options, a `register`
 * that only declares and parses flags, and a `run(opts, env)` that gets its target opener and
 * IO injected — so a test calls `run` without a process, and the process is only `register`.
 */
import type { Command } from 'commander';
import type { Globals, OpenOptions, Target } from '../target.js';
import type { IO } from '../io.js';

export type OpenTarget = (g: Globals, io: IO, opts?: OpenOptions) => Promise<Target>;

/** What every run gets: the global flags, the IO, and how to reach the target. */
export interface RunEnv {
  globals: Globals;
  io: IO;
  openTarget: OpenTarget;
}

/** The RunEnv of a parsed command line: real target resolution unless a test injected one. */
export async function runEnv(globals: Globals, io: IO, injected?: OpenTarget): Promise<RunEnv> {
  return { globals, io, openTarget: injected ?? (await import('../target.js')).openTarget };
}

/** The group command NAME under `parent` (created with its description when missing). */
export function group(parent: Command, name: string, description: string): Command {
  const existing = parent.commands.find((c) => c.name() === name);
  if (existing) return existing;
  const g = parent.command(name).description(description);
  g.helpCommand(false);
  return g;
}
