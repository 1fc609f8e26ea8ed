/**
 * Answers of the charge reads remembered per state of the database (issue 17).
 *
 * `GET /v1/charges/{id}` and `GET /v1/charges` answer from the stored rows alone: the same
 * merchant, path and query string against the same database state give the same bytes. The
 * store's change token (`Db.changeToken`, the WAL-index header and this connection's commit
 * count) moves with every commit, by this process or any other sharing the file, and never
 * comes back to an earlier value. So an answer kept with the token read before its handler
 * ran can be served again while the token reads the same: nothing was written since, and the
 * store would give the same rows. Everything else in the pipeline (authentication, rate limits,
 * due work, validation, the envelope, the request log) still runs for every request; only the
 * handler's reads are skipped. An answer built from a newer state than its token (a commit
 * between the token's read and the handler's) is kept under a token no later request can
 * present, so it is never served.
 *
 * Not every GET is a function of the stored rows alone (some answer with the time, a signed
 * URL, a computed quote), so the endpoints are listed by name. PostgreSQL has no change token:
 * nothing is remembered there. `mpay server start --no-read-memo` (MPAY_READ_MEMO=off) turns it
 * off, e.g. to measure the store itself.
 */
export const MEMO_ENDPOINTS: ReadonlySet<string> = new Set(['charges.get', 'charges.list']);

/** Kept answers' text, in all, before the memo starts again from empty. */
const MAX_BYTES = 16 * 1024 * 1024;

interface Kept {
  token: string;
  body: string;
}

export class ReadMemo {
  private readonly answers = new Map<string, Kept>();
  private bytes = 0;

  constructor(private readonly maxBytes = MAX_BYTES) {}

  /** The kept body of `key` if it was kept at this same `token`. */
  get(key: string, token: string): string | undefined {
    const kept = this.answers.get(key);
    return kept !== undefined && kept.token === token ? kept.body : undefined;
  }

  set(key: string, token: string, body: string): void {
    const old = this.answers.get(key);
    if (old !== undefined) this.bytes -= old.body.length;
    if (this.bytes + body.length > this.maxBytes) {
      this.answers.clear();
      this.bytes = 0;
    }
    this.answers.set(key, { token, body });
    this.bytes += body.length;
  }

  get size(): number {
    return this.answers.size;
  }
}
