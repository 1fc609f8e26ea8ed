/**
 * Answers of reads remembered per state of the database.
 *
 * `GET /v1/charges/{id}` and `GET /v1/charges` answer from the stored rows alone: the same
 * merchant, path and query string against the same database state give the same bytes. The
 * store's change token (`Db.changeToken`, the WAL-index header and this connection's commit
 * count) moves with every commit, by this process or any other sharing the file, and never
 * comes back to an earlier value. So an answer kept with the token read before its handler
 * ran can be served again while the token reads the same: nothing was written since, and the
 * store would give the same rows; the first answer kept at a new token empties the memo of the
 * answers of the states before. Everything else in the pipeline (authentication, rate limits,
 * due work, validation, the envelope, the request log) still runs for every request; only the
 * handler's reads are skipped. An answer built from a newer state than its token (a commit
 * between the token's read and the handler's) is kept under a token no later request can
 * present, so it is never served.
 *
 * Not every GET is a function of the stored rows alone (some answer with the time, a signed
 * URL, a computed quote), so an endpoint says it is one (`memo: true` in the contract's endpoint
 * table). PostgreSQL has no change token:
 * nothing is remembered there. `mpay server start --no-read-memo` (MPAY_READ_MEMO=off) turns it
 * off, e.g. to measure the store itself.
 */
/** Kept keys and answers' text, in all (characters), before the memo starts again from empty. */
const MAX_CHARS = 16 * 1024 * 1024;
/** A query string longer than this is answered, not kept (no list query needs as much). */
export const MAX_MEMO_SEARCH = 512;

/**
 * The answers made at one database state: the state of `token`, the newest one an answer was
 * kept at. An answer kept at another token empties the memo first, so nothing from an earlier
 * state stays in memory (nor the customer data in it) once the database has moved on.
 */
export class ReadMemo {
  private readonly answers = new Map<string, string>();
  private token: string | undefined;
  private chars = 0;

  constructor(private readonly maxChars = MAX_CHARS) {}

  /** The body kept under `key` at this same `token`. */
  get(key: string, token: string): string | undefined {
    return token === this.token ? this.answers.get(key) : undefined;
  }

  set(key: string, token: string, body: string): void {
    if (token !== this.token) {
      this.answers.clear();
      this.chars = 0;
      this.token = token;
    }
    const old = this.answers.get(key);
    if (old !== undefined) this.chars -= key.length + old.length;
    if (this.chars + key.length + body.length > this.maxChars) {
      this.answers.clear();
      this.chars = 0;
    }
    this.answers.set(key, body);
    this.chars += key.length + body.length;
  }

  get size(): number {
    return this.answers.size;
  }
}
