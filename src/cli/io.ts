/** All CLI output goes through an IO: data to stdout, everything else to stderr. */
export interface IO {
  out(s: string): void;
  err(s: string): void;
  stdoutTTY: boolean;
  stdinTTY: boolean;
  stderrTTY: boolean;
  /** the terminal's width when stdout is one */
  columns?: number;
  env: NodeJS.ProcessEnv;
  cwd: string;
  readStdin(): Promise<string>;
}

/**
 * The process's IO. process.stdin is made only when a command asks about it or reads it: making
 * it loads Node's file streams, fs/promises and readline (~2 ms of every command, bench/startup).
 * process.stderr likewise, when a command writes to it or asks whether it is a terminal: on a pipe
 * or a terminal it loads Node's net module (bin/mpay.js).
 */
export function processIO(): IO {
  return {
    out: (s) => process.stdout.write(s),
    err: (s) => process.stderr.write(s),
    stdoutTTY: !!process.stdout.isTTY,
    get stdinTTY() {
      return !!process.stdin.isTTY;
    },
    get stderrTTY() {
      return !!process.stderr.isTTY;
    },
    get columns() {
      return process.stdout.isTTY ? process.stdout.columns : undefined;
    },
    env: process.env,
    cwd: process.cwd(),
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const c of process.stdin) chunks.push(c as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
  };
}

/** An IO over strings, for tests. */
export function bufferIO(o: { stdin?: string; tty?: boolean; columns?: number; env?: NodeJS.ProcessEnv; cwd?: string } = {}): IO & { stdout: string; stderr: string } {
  const io = {
    stdout: '',
    stderr: '',
    out(s: string) {
      io.stdout += s;
    },
    err(s: string) {
      io.stderr += s;
    },
    stdoutTTY: !!o.tty,
    stdinTTY: !!o.tty,
    stderrTTY: !!o.tty,
    columns: o.columns,
    env: o.env ?? {},
    cwd: o.cwd ?? process.cwd(),
    readStdin: async () => o.stdin ?? '',
  };
  return io;
}

/** Colors: --color wins, then NO_COLOR / FORCE_COLOR, then whether stdout is a terminal. */
export function useColor(flag: string | undefined, io: IO): boolean {
  if (flag === 'always') return true;
  if (flag === 'never') return false;
  if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '') return false;
  if (io.env.FORCE_COLOR !== undefined && io.env.FORCE_COLOR !== '0') return true;
  return io.stdoutTTY && io.env.TERM !== 'dumb';
}

/** Prompts only on a terminal, and never when MPAY_NO_PROMPT is set. */
export function canPrompt(io: IO): boolean {
  return io.stdinTTY && io.stdoutTTY && !io.env.MPAY_NO_PROMPT;
}
