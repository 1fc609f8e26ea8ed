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
} as const;

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.usage,
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

export function exitCodeFor(err: unknown): number {
  if (err instanceof CliError) return err.exitCode;
  const e = err as SdkLikeError;
  if (e?.name === 'ConnectionError') return EXIT.unreachable;
  if (typeof e?.status === 'number') return exitCodeForStatus(e.status) || EXIT.refused;
  return EXIT.refused;
}

/** One or a few lines a person can act on; never a stack trace. */
export function describeError(err: unknown): string {
  if (err instanceof CliError) return `error: ${err.message}`;
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
  if (e?.name === 'ConnectionError') return `error: ${e.message}`;
  return `error: ${e?.message ?? String(err)}`;
}
