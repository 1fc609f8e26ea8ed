import { StoreUnavailable, UniqueViolation, type Db, type Queryable } from '../store/db.js';
import type { ServiceDeps, DueContext } from './context.js';
import { ApiError } from './errors.js';

/** How long an Idempotency-Key lives; the due work deletes it after that (purgeExpiredKeys). */
export const TTL_MS = 24 * 3600 * 1000;
/** Expired keys deleted per due-work call. */
const PURGE_BATCH = 100;
const LOCK_MS = 60 * 1000;
const WAIT_MS = 30 * 1000;

export interface StoredResponse {
  status: number;
  body: string;
}

export type Claim = { kind: 'claimed' } | { kind: 'replay'; response: StoredResponse };

/**
 * What an Idempotency-Key remembers of its request to tell a retry from another request: an
 * HMAC under a key derived from the master key (never a plain hash, which would let anyone
 * holding the database test guesses of the body against it).
 */
export function requestHash(deps: Pick<ServiceDeps, 'keyring'>, method: string, path: string, body: Uint8Array): string {
  return deps.keyring.requestHash(`${method} ${path}\n`, body);
}

interface Row {
  request_hash: string;
  state: string;
  status_code: number | null;
  response_body: string | null;
  locked_until: string;
  expires_at: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Claims an Idempotency-Key for a merchant. The first request claims it and runs; a later one
 * with the same body replays the stored response; with another body it is a 409. A request
 * that arrives while the first is still running waits for it and then replays its response.
 */
export async function claimKey(deps: ServiceDeps, merchantId: string, key: string, hash: string): Promise<Claim> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const now = deps.clock.now();
    const nowIso = now.toISOString();
    try {
      await deps.db.run(CLAIM_SQL, claimRow(merchantId, key, hash, now));
      return { kind: 'claimed' };
    } catch (e) {
      if (!(e instanceof UniqueViolation)) throw e;
    }
    const row = await deps.db.get<Row>(
      'SELECT request_hash, state, status_code, response_body, locked_until, expires_at FROM idempotency_keys WHERE merchant_id = ? AND key = ?',
      [merchantId, key],
    );
    if (!row) continue;
    if (row.expires_at <= nowIso || (row.state === 'processing' && row.locked_until <= nowIso)) {
      // Expired, or abandoned by a process that died: take it over.
      await deps.db.run(
        'DELETE FROM idempotency_keys WHERE merchant_id = ? AND key = ? AND expires_at = ? AND locked_until = ?',
        [merchantId, key, row.expires_at, row.locked_until],
      );
      continue;
    }
    if (row.request_hash !== hash) {
      throw new ApiError(
        'idempotency_conflict',
        'This Idempotency-Key was already used with a different request; use a new key for a new request',
      );
    }
    if (row.state === 'done') {
      return { kind: 'replay', response: { status: row.status_code!, body: row.response_body! } };
    }
    if (Date.now() > deadline) {
      throw new ApiError('conflict', 'A request with this Idempotency-Key is still in progress; retry later');
    }
    await sleep(20);
  }
}

/** The row of a key claimed at `now`: 'processing', locked for LOCK_MS, kept for TTL_MS. */
function claimRow(merchantId: string, key: string, hash: string, now: Date): [string, string, string, string, string, string] {
  return [merchantId, key, hash, new Date(now.getTime() + LOCK_MS).toISOString(), now.toISOString(), new Date(now.getTime() + TTL_MS).toISOString()];
}
const CLAIM_SQL = `INSERT INTO idempotency_keys (merchant_id, key, request_hash, state, locked_until, created_at, expires_at)
         VALUES (?, ?, ?, 'processing', ?, ?, ?)`;
/** A key claimed and answered at once (in the transaction that ran its request): kept 'done' with its answer. */
const DONE_SQL = `INSERT INTO idempotency_keys (merchant_id, key, request_hash, state, locked_until, created_at, expires_at, status_code, response_body)
         VALUES (?, ?, ?, 'done', ?, ?, ?, ?, ?)`;

export async function completeKey(deps: ServiceDeps, merchantId: string, key: string, res: StoredResponse): Promise<void> {
  await deps.db.run(COMPLETE_SQL, [res.status, res.body, merchantId, key]);
}

export async function releaseKey(deps: ServiceDeps, merchantId: string, key: string): Promise<void> {
  await deps.db.run(RELEASE_SQL, [merchantId, key]);
}

/**
 * The one rule for which answers an Idempotency-Key keeps (the API pipeline and the checkout
 * use it alike). Kept and replayed: every 2xx, and the 4xx of a request that ran (404, 422…).
 * Not kept, so that the same key may be used again: a request refused before it ran
 * (malformed, invalid: it can be fixed and resent), conflicts and rate limits (409, 429: worth
 * retrying as they are) and every 5xx or unexpected error.
 */
export function keepsAnswer(err: ApiError): boolean {
  return err.status >= 400 && err.status < 500 && err.status !== 409 && err.status !== 429 && !REFUSED_BEFORE_RUNNING.has(err.code);
}

const REFUSED_BEFORE_RUNNING = new Set<string>(['validation_error', 'invalid_json', 'unsupported_media_type', 'payload_too_large']);

/** The error envelope an ApiError becomes (the wire format of every error answer). */
export function errorBody(err: ApiError): string {
  const body: Record<string, unknown> = { success: false, message: err.message, error: err.code };
  if (err.details?.length) body.details = err.details;
  return JSON.stringify(body);
}

/**
 * Fields of a creation answer that hold a secret shown once (an API secret key, a webhook
 * signing secret). An Idempotency-Key keeps the answer without them, so no secret sits on disk
 * in the clear and a replay is no way to read it again: the replay answers the same resource
 * without its secret (lost it? create a new key or endpoint and revoke the old one).
 */
export const SHOWN_ONCE = ['secret_key', 'secret'] as const;

/** The answer an Idempotency-Key keeps: the envelope without the secrets shown once. */
export function keptAnswer(out: { data?: unknown }): string {
  const data = out.data;
  if (!data || typeof data !== 'object' || Array.isArray(data) || !SHOWN_ONCE.some((f) => f in data)) return JSON.stringify(out);
  const rest: Record<string, unknown> = { ...(data as Record<string, unknown>) };
  for (const f of SHOWN_ONCE) delete rest[f];
  return JSON.stringify({ ...out, data: rest });
}

/**
 * `keptAnswer` of an envelope already serialised: the text itself when no key of it is a field
 * shown once (a charge's answer, every time), without parsing it and serialising it again
 * (a POST /v1/charges pays for the parse otherwise; `npm run bench:server` has the POST row). A text that names one anywhere, nested or not, takes the
 * parse: the answer kept is the same either way.
 */
export function keptText(text: string): string {
  for (const f of SHOWN_ONCE) if (text.includes(`"${f}":`)) return keptAnswer(JSON.parse(text) as { data?: unknown });
  return text;
}

/** What `withIdempotency` gives back: the answer stored earlier (a replay), or the run's own. */
export type IdempotentOutcome<T> = { replayed: true; response: StoredResponse } | { replayed: false; value: T };

/**
 * Runs `run` at most once per (merchant, key): claims the key, replays an answer kept
 * earlier, or runs and keeps the answer by the rule of `keepsAnswer`. `run` returns its value
 * and the answer to keep (which may leave out what must not sit on disk, see `storedAnswer`).
 */
export async function withIdempotency<T>(
  deps: ServiceDeps,
  merchantId: string,
  key: string,
  hash: string,
  run: () => Promise<{ value: T; keep: StoredResponse }>,
): Promise<IdempotentOutcome<T>> {
  const claim = await claimKey(deps, merchantId, key, hash);
  if (claim.kind === 'replay') return { replayed: true, response: claim.response };
  let out: { value: T; keep: StoredResponse };
  try {
    out = await run();
  } catch (err) {
    if (err instanceof ApiError && keepsAnswer(err)) {
      await completeKey(deps, merchantId, key, { status: err.status, body: errorBody(err) });
    } else {
      await releaseKey(deps, merchantId, key).catch(() => undefined);
    }
    throw err;
  }
  await completeKey(deps, merchantId, key, out.keep);
  return { replayed: false, value: out.value };
}

/**
 * Due work: deletes a merchant's Idempotency-Keys whose 24 h are over (server time, as they
 * were claimed), one bounded batch per call, so the table stays bounded and nothing outlives
 * its documented life. Returns how many were deleted.
 */
export async function purgeExpiredKeys(ctx: Pick<DueContext, 'deps' | 'merchantId'>): Promise<number> {
  const { db } = ctx.deps;
  const nowIso = ctx.deps.clock.now().toISOString();
  const due = await db.all<{ key: string }>(
    'SELECT key FROM idempotency_keys WHERE merchant_id = ? AND expires_at <= ? ORDER BY expires_at LIMIT ?',
    [ctx.merchantId, nowIso, PURGE_BATCH],
  );
  if (due.length === 0) return 0;
  const r = await db.run(
    `DELETE FROM idempotency_keys WHERE merchant_id = ? AND expires_at <= ? AND key IN (${due.map(() => '?').join(', ')})`,
    [ctx.merchantId, nowIso, ...due.map((d) => d.key)],
  );
  return r.changes;
}

/**
 * How long the handler's transaction waits, once its work is done, for the answer to keep
 * (ms). The answer is normally ready within the same turn of the event loop (the handler's
 * remaining code is pure); past this the transaction commits without it and the answer is
 * kept in a transaction of its own, as for any other endpoint.
 */
export const ANSWER_WAIT_MS = 250;

/** What the open transaction does with the claim once the run is over. */
type Finish = { keep: StoredResponse } | { release: true } | null;

/**
 * An Idempotency-Key claimed inside the handler's own transaction instead of one of its own
 * before it (`withIdempotencyInTx`), and the answer kept in that same transaction: a POST
 * /v1/charges is one transaction (claim, charge, kept answer), committed by one group commit.
 *
 * `db` is the store the handler must write through. Its first transaction runs the handler's
 * function and then stays open: the handler gets the function's value at once (before the
 * COMMIT; nothing leaves the process before it, since `withIdempotencyInTx` returns only after
 * the COMMIT), finishes its answer, and `withIdempotencyInTx` writes the key with that answer
 * into the still open transaction, which then commits (a key already known refuses that
 * INSERT, and the transaction rolls back). Should the handler use the store again before it
 * is done, or take longer than ANSWER_WAIT_MS, the transaction commits without the answer
 * (the claim 'processing') and the answer is kept afterwards in a transaction of its own. On
 * PostgreSQL a concurrent request with the same key runs its handler too before its INSERT
 * waits for the other's COMMIT and fails: the same answer (a replay), some work thrown away.
 */
class TxClaim {
  /** the key's INSERT found it taken (another request got there first): the handler's transaction rolled back */
  lost = false;
  /** the handler's first transaction committed (with the claim) */
  committed = false;
  /** the first transaction ran the handler's function and waits for the answer to keep */
  open = false;
  /** the answer (or the release of the claim) was written in the first transaction */
  finishedInTx = false;
  /** the first transaction: settles after its COMMIT */
  private first: Promise<unknown> | undefined;
  private finisher: ((f: Finish) => void) | undefined;
  private stopWaiting = false;
  readonly db: Db;

  constructor(deps: ServiceDeps, merchantId: string, key: string, hash: string) {
    const base = deps.db;
    const tx = <T>(fn: (q: Queryable) => Promise<T>): Promise<T> => {
      if (this.first) {
        this.finish(null);
        // the first transaction found the key already known (and rolled back): nothing more of
        // this run may commit; the key's own answer comes instead (withIdempotencyInTx)
        return this.first.then(() => {
          if (this.lost) throw new KeyAlreadyKnown();
          return base.tx(fn);
        });
      }
      let handedOut = false;
      let early!: { resolve: (v: T) => void; reject: (e: unknown) => void };
      const value = new Promise<T>((resolve, reject) => (early = { resolve, reject }));
      const p = base.tx(async (q) => {
        // a store that runs the function again (PostgreSQL retrying a lost lock race) after its
        // value went to the handler: that value may not be what commits; refuse rather than guess
        if (handedOut) throw new StoreUnavailable('the transaction had to run again after its answer was built; retry');
        const claimedAt = deps.clock.now();
        const v = await fn(q);
        const finished = this.stopWaiting ? null : await this.waitForFinish(() => {
          handedOut = true;
          early.resolve(v);
        });
        // the key is written last, as what the transaction commits: the kept answer ('done', one
        // INSERT where a claim and its UPDATE were two), the claim still 'processing' when the
        // answer comes after the COMMIT, or nothing (released). A key already known makes the
        // INSERT fail and the run's transaction with it (rolled back: none of its writes commit)
        try {
          if (finished && 'keep' in finished) {
            await q.run(DONE_SQL, [...claimRow(merchantId, key, hash, claimedAt), finished.keep.status, finished.keep.body]);
          } else {
            // the claim stays 'processing' until the answer is kept after the COMMIT; or, released,
            // is taken and let go at once (the INSERT still tells a key already known)
            await q.run(CLAIM_SQL, claimRow(merchantId, key, hash, claimedAt));
            if (finished) await q.run(RELEASE_SQL, [merchantId, key]);
          }
        } catch (e) {
          if (!(e instanceof UniqueViolation)) throw e;
          this.lost = true;
          // not a UniqueViolation: PostgreSQL would run the transaction again for one, and a
          // key already known stays known (the run's answer is the key's, withIdempotencyInTx)
          throw new KeyAlreadyKnown();
        }
        if (finished) this.finishedInTx = true;
        return v;
      });
      this.commit = p.then((v) => {
        this.committed = true;
        if (!handedOut) early.resolve(v);
      });
      this.commit.catch((e) => early.reject(e));
      this.first = this.commit.catch(() => undefined);
      return value;
    };
    this.db = {
      dialect: base.dialect,
      get: (sql, params) => (this.first ? this.after(() => base.get(sql, params)) : base.get(sql, params)),
      all: (sql, params) => (this.first ? this.after(() => base.all(sql, params)) : base.all(sql, params)),
      run: (sql, params) => tx((q) => q.run(sql, params)),
      tx,
      close: () => base.close(),
      ...(base.changeToken ? { changeToken: () => base.changeToken!() } : {}),
    };
  }

  /** The first transaction, settled after its COMMIT (rejects when it failed or its COMMIT did). */
  commit: Promise<void> | undefined;

  /** A read of the handler after its first transaction: once that one has committed (it may be waiting for the run to finish). */
  private after<T>(read: () => Promise<T>): Promise<T> {
    this.finish(null);
    return this.first!.then(read);
  }

  /** Hands the value to the handler and waits (at most ANSWER_WAIT_MS) for what to write before the COMMIT. */
  private waitForFinish(handOut: () => void): Promise<Finish> {
    return new Promise<Finish>((resolve) => {
      const timer = setTimeout(() => this.finish(null), ANSWER_WAIT_MS);
      this.finisher = (f) => {
        clearTimeout(timer);
        this.open = false;
        resolve(f);
      };
      this.open = true;
      handOut();
    });
  }

  /** What the open transaction writes before its COMMIT: the answer, the release of the claim, or nothing (null). */
  finish(f: Finish): void {
    this.stopWaiting = true;
    const finisher = this.finisher;
    this.finisher = undefined;
    finisher?.(f);
  }
}

/** The handler's transaction found its Idempotency-Key already known and rolled back (TxClaim.lost). */
class KeyAlreadyKnown extends Error {
  constructor() {
    super('this Idempotency-Key is already known: the run rolled back, the key answers');
  }
}

/** Whether a finished claim's transaction found its key already known (rolled back): any other failure of its COMMIT is thrown. */
async function lostAtCommit(claim: TxClaim): Promise<boolean> {
  try {
    await claim.commit;
    return false;
  } catch (e) {
    if (claim.lost) return true;
    throw e;
  }
}

const COMPLETE_SQL = `UPDATE idempotency_keys SET state = 'done', status_code = ?, response_body = ? WHERE merchant_id = ? AND key = ?`;
const RELEASE_SQL = `DELETE FROM idempotency_keys WHERE merchant_id = ? AND key = ? AND state = 'processing'`;

/** Whether the merchant's key is in the store (kept, in progress, or expired and not yet purged). */
async function keyKnown(deps: ServiceDeps, merchantId: string, key: string): Promise<boolean> {
  return (await deps.db.get('SELECT 1 AS known FROM idempotency_keys WHERE merchant_id = ? AND key = ?', [merchantId, key])) !== undefined;
}

/** Stores a kept answer under a key no transaction claimed (the run wrote nothing): false when the key was taken meanwhile. */
async function keepUnclaimed(deps: ServiceDeps, merchantId: string, key: string, hash: string, res: StoredResponse): Promise<boolean> {
  try {
    await deps.db.run(DONE_SQL, [...claimRow(merchantId, key, hash, deps.clock.now()), res.status, res.body]);
    return true;
  } catch (e) {
    if (e instanceof UniqueViolation) return false;
    throw e;
  }
}

/**
 * `withIdempotency` for a run whose writes all go through the store it is given, in
 * transactions (no write outside one, nothing done before its first transaction that a
 * concurrent request with the same key must not also do, nothing after it but building the
 * answer): the key is claimed in the run's first transaction, and the answer kept in it too
 * (see TxClaim), rather than in transactions of their own. Same outcomes as `withIdempotency`:
 * a key already known (kept answer, another request, expired, abandoned) finds the claim's
 * INSERT refused, so the run's transaction rolls back and the key goes the usual way (replay,
 * 409, wait, take over); a run that loses the race for the key likewise, waiting for the
 * winner's answer. The key is not looked up before the run: that read would cost every new
 * key a store read on each POST (the POST row of `npm run bench:server`), for the rare
 * replay's sake (a replay runs the handler's transaction,
 * rolled back at its end, before it replays: nothing of it commits); a run refused before its
 * transaction looks it up then, so a known key's answer (a replay, a 409) still comes first.
 * It returns only once the transaction holding the run's writes, its key and its answer has
 * committed (the answer is sent after that).
 */
export async function withIdempotencyInTx<T>(
  deps: ServiceDeps,
  merchantId: string,
  key: string,
  hash: string,
  run: (db: Db) => Promise<{ value: T; keep: StoredResponse }>,
): Promise<IdempotentOutcome<T>> {
  const usual = () => withIdempotency(deps, merchantId, key, hash, () => run(deps.db));
  const claim = new TxClaim(deps, merchantId, key, hash);
  let out: { value: T; keep: StoredResponse };
  try {
    out = await run(claim.db);
  } catch (err) {
    if (claim.lost) return usual();
    const kept = err instanceof ApiError && keepsAnswer(err) ? { status: err.status, body: errorBody(err) } : undefined;
    if (claim.open) {
      // the handler failed after its transaction's work: the claim is finished in that transaction
      claim.finish(kept ? { keep: kept } : { release: true });
      // a key already known, found at the end of that transaction: its answer comes first
      if (await lostAtCommit(claim)) return usual();
      throw err;
    }
    if (claim.commit) await claim.commit.catch(() => undefined);
    // its transaction found the key already known after the handler had its value (its answer
    // came after the COMMIT): nothing of the run committed, the key's answer comes instead
    if (claim.lost) return usual();
    if (claim.committed) {
      if (!claim.finishedInTx) {
        if (kept) await completeKey(deps, merchantId, key, kept);
        else await releaseKey(deps, merchantId, key).catch(() => undefined);
      }
    } else if (kept ? !(await keepUnclaimed(deps, merchantId, key, hash, kept)) : await keyKnown(deps, merchantId, key)) {
      // refused before its transaction, under a key already known: the key's answer (a replay,
      // the 409 of another body) comes first, as it would have before the run
      return usual();
    }
    throw err;
  }
  if (claim.open) {
    // the answer goes out only once the transaction that holds the charge, its key and this answer is on disk
    claim.finish({ keep: out.keep });
    if (await lostAtCommit(claim)) return usual();
  } else if (claim.commit) await claim.commit.catch(() => undefined);
  // the key found already known at the end of a transaction that did not wait for this answer:
  // nothing of the run committed (its value is not what the store holds); the key's answer
  if (claim.lost) return usual();
  if (claim.committed) {
    if (!claim.finishedInTx) await completeKey(deps, merchantId, key, out.keep);
  } else if (!(await keepUnclaimed(deps, merchantId, key, hash, out.keep))) return usual();
  return { replayed: false, value: out.value };
}
