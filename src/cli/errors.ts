/** Exit codes of the contract. */
export const EXIT = {
  ok: 0,
  /** the service refused (4xx other than below, 5xx) */
  refused: 1,
  /** usage: bad flags, missing input that cannot be prompted */
  usage: 2,
  /** authentication or permission (401, 403) */
  auth: 3,
  notFound: 4,
  /** the service could not be reached */
  unreachable: 5,
  /** interrupted (Ctrl-C, SIGINT/SIGTERM), like a shell's 128 + SIGINT */
  interrupted: 130,
} as const;

/** The `error` code of a CLI-side error in a JSON report, by exit code. */
const CODE_FOR_EXIT: Record<number, string> = {
  [EXIT.refused]: 'failed',
  [EXIT.usage]: 'usage_error',
  [EXIT.auth]: 'authentication_error',
  [EXIT.notFound]: 'not_found',
  [EXIT.unreachable]: 'connection_error',
  [EXIT.interrupted]: 'interrupted',
};

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.usage,
    /** the `error` code of the JSON report (by default one per exit code) */
    readonly code: string = CODE_FOR_EXIT[exitCode] ?? 'error',
  ) {
    super(message);
  }
}

export const usage = (message: string) => new CliError(message, EXIT.usage);

export function exitCodeForStatus(status: number): number {
  if (status < 400) return EXIT.ok;
  if (status === 401 || status === 403) return EXIT.auth;
  if (status === 404) return EXIT.notFound;
  return EXIT.refused;
}

interface SdkLikeError {
  name?: string;
  status?: number;
  code?: string;
  message?: string;
  details?: { field: string; message: string }[];
  requestId?: string;
}

/** Ctrl-C inside a prompt (inquirer's errors, the wizard's readline use the same names). */
export const promptInterrupted = (err: unknown) => ['ExitPromptError', 'AbortPromptError'].includes((err as Error | undefined)?.name ?? '');

/**
 * A Ctrl-C in a prompt that asked in another language than the CLI's (a confirmation in
 * Portuguese): `line` is what a person reads instead of `error: interrupted (Ctrl-C)`; a JSON
 * report keeps the contract's words. Any other error is returned as it is.
 */
export function interruptionSaying(err: unknown, line: string): unknown {
  return promptInterrupted(err) ? Object.assign(err as Error, { line }) : err;
}

export function exitCodeFor(err: unknown): number {
  if (err instanceof CliError) return err.exitCode;
  if (promptInterrupted(err)) return EXIT.interrupted;
  const e = err as SdkLikeError;
  if (e?.name === 'ConnectionError' || e?.name === 'NotMpayApiError') return EXIT.unreachable;
  if (typeof e?.status === 'number') return exitCodeForStatus(e.status) || EXIT.refused;
  return EXIT.refused;
}

/** One or a few lines a person can act on; never a stack trace. */
export function describeError(err: unknown): string {
  if (err instanceof CliError) return (err as { line?: string }).line ?? `error: ${err.message}`;
  if (promptInterrupted(err)) return (err as { line?: string }).line ?? 'error: interrupted (Ctrl-C)';
  const e = err as SdkLikeError;
  if (typeof e?.status === 'number') {
    const lines = [`error: ${e.message} (${e.code ?? 'error'}, HTTP ${e.status})`];
    const shown = new Set<string>();
    for (const d of e.details ?? []) {
      const line = `  ${d.field}: ${d.message}`;
      if (!shown.has(line) && !e.message?.includes(`${d.field}: ${d.message}`)) lines.push(line);
      shown.add(line);
    }
    if (e.requestId) lines.push(`  request id: ${e.requestId}`);
    return lines.join('\n');
  }
  if (e?.name === 'ConnectionError' || e?.name === 'NotMpayApiError') return `error: ${e.message}`;
  return `error: ${e?.message ?? String(err)}`;
}

/** An error as a script reads it (`-o json` / `jsonl`): one JSON object on stderr. */
export interface ErrorReport {
  error: string;
  message: string;
  status: number | null;
  request_id: string | null;
  details: { field: string; message: string }[];
}

export function errorReport(err: unknown): ErrorReport {
  if (err instanceof CliError) return { error: err.code, message: err.message, status: null, request_id: null, details: [] };
  if (promptInterrupted(err)) return { error: 'interrupted', message: 'interrupted (Ctrl-C)', status: null, request_id: null, details: [] };
  const e = err as SdkLikeError;
  if (typeof e?.status === 'number') {
    return {
      error: e.code ?? 'error',
      message: e.message ?? '',
      status: e.status,
      request_id: e.requestId ?? null,
      details: (e.details ?? []).map((d) => ({ field: d.field, message: d.message })),
    };
  }
  if (e?.name === 'ConnectionError') return { error: 'connection_error', message: e.message ?? '', status: null, request_id: null, details: [] };
  if (e?.name === 'NotMpayApiError') return { error: 'not_mpay_api', message: e.message ?? '', status: null, request_id: null, details: [] };
  return { error: 'error', message: e?.message ?? String(err), status: null, request_id: null, details: [] };
}

/** The output flags that decide how errors are reported (the global -o / --json). */
export interface ErrorFormat {
  output?: string;
  json?: boolean;
}

export const jsonErrors = (f: ErrorFormat | undefined): boolean => f?.output === 'json' || f?.output === 'jsonl' || (!f?.output && !!f?.json);

/**
 * -o / --json read from the raw command line, for errors raised before or while commander
 * parses it (unknown option, unknown command). Stops at `--`.
 */
export function errorFormatOf(argv: readonly string[]): ErrorFormat {
  const f: ErrorFormat = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') break;
    if (a === '--json') f.json = true;
    else if (a === '-o' || a === '--output') f.output = argv[++i];
    else if (a.startsWith('--output=')) f.output = a.slice('--output='.length);
    else if (/^-o[^-]/.test(a)) f.output = a.slice(2);
  }
  return f;
}

/**
 * Reports an error on stderr and returns its exit code — the one place every command's errors
 * go through: lines for people, or with -o json / jsonl one JSON object
 * ({error, message, status, request_id, details}). `context` prefixes the message
 * ("smoke failed at step …").
 */
export function reportError(io: { err(s: string): void }, format: ErrorFormat | undefined, err: unknown, context?: string): number {
  if (jsonErrors(format)) {
    const r = errorReport(err);
    if (context) r.message = `${context}: ${r.message}`;
    io.err(JSON.stringify(r) + '\n');
  } else {
    const text = describeError(err);
    io.err((context ? `error: ${context}: ${text.replace(/^error: /, '')}` : text) + '\n');
  }
  return exitCodeFor(err);
}

/** A commander usage message ("error: unknown option '--x'\n(Did you mean --y?)") as a report. */
export function reportUsage(io: { err(s: string): void }, format: ErrorFormat | undefined, text: string): void {
  if (!jsonErrors(format)) {
    io.err(text);
    return;
  }
  const message = text.trim().replace(/^error: /, '').replace(/\s*\n\s*/g, ' ');
  io.err(JSON.stringify({ error: 'usage_error', message, status: null, request_id: null, details: [] } satisfies ErrorReport) + '\n');
}
