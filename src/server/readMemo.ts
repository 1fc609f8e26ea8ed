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
 * answers of the states before. The stages before the handler still run for every request —
 * routing, authentication, rate limits, due work, the parameter and query checks — and the
 * request log; the handler and the shape stage do not (the kept bytes are the envelope the shape
 * stage made, checked then when responses are validated). An answer built from a newer state
 * than its token (a commit between the token's read and the handler's) is kept under a token no
 * later request can present, so it is never served.
 *
 * Not every GET is a function of the stored rows alone (some answer with the time, a signed
 * URL, a computed quote), so an endpoint says it is one (`memo: true` in the contract's endpoint
 * table). PostgreSQL has no change token:
 * nothing is remembered there. `mpay server start --no-read-memo` (MPAY_READ_MEMO=off) turns it
 * off, e.g. to measure the store itself.
 */
/**
 * Kept keys (characters) and answers (bytes), in all, before the memo starts again from empty.
 * An answer is kept encoded (UTF-8): served again, it is written as it is, neither encoded nor
 * measured for Content-Length again. For a page of 20 charges (~28 kB) those two cost ~8 µs, a
 * fifth of a list request's CPU (bench/server's list row; a CPU profile of the server under it).
 */
const MAX_HELD = 16 * 1024 * 1024;
/** A query string longer than this is answered, not kept (no list query needs as much). */
export const MAX_MEMO_SEARCH = 512;

/**
 * The answers made at one database state: the state of `token`, the newest one an answer was
 * kept at. An answer kept at another token empties the memo first, so nothing from an earlier
 * state stays in memory (nor the customer data in it) once the database has moved on.
 */
export class ReadMemo {
  private readonly answers = new Map<string, Uint8Array | string>();
  private token: string | undefined;
  /** keys' characters and answers' lengths (bytes of an encoded answer) held */
  private held = 0;

  constructor(private readonly maxHeld = MAX_HELD) {}

  /** The body kept under `key` at this same `token`. */
  get(key: string, token: string): Uint8Array | string | undefined {
    return token === this.token ? this.answers.get(key) : undefined;
  }

  set(key: string, token: string, body: Uint8Array | string): void {
    if (token !== this.token) {
      this.answers.clear();
      this.held = 0;
      this.token = token;
    }
    const old = this.answers.get(key);
    if (old !== undefined) this.held -= key.length + old.length;
    if (this.held + key.length + body.length > this.maxHeld) {
      this.answers.clear();
      this.held = 0;
    }
    this.answers.set(key, body);
    this.held += key.length + body.length;
  }

  get size(): number {
    return this.answers.size;
  }
}
