import { UniqueViolation, type Db, type Queryable } from '../store/db.js';
import type { AppDeps, DueContext } from './context.js';
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
export function requestHash(deps: Pick<AppDeps, 'keyring'>, method: string, path: string, body: Uint8Array): string {
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
export async function claimKey(deps: AppDeps, merchantId: string, key: string, hash: string): Promise<Claim> {
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

export async function completeKey(deps: AppDeps, merchantId: string, key: string, res: StoredResponse): Promise<void> {
  await deps.db.run(
    `UPDATE idempotency_keys SET state = 'done', status_code = ?, response_body = ? WHERE merchant_id = ? AND key = ?`,
    [res.status, res.body, merchantId, key],
  );
}

export async function releaseKey(deps: AppDeps, merchantId: string, key: string): Promise<void> {
  await deps.db.run(`DELETE FROM idempotency_keys WHERE merchant_id = ? AND key = ? AND state = 'processing'`, [merchantId, key]);
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

/** What `withIdempotency` gives back: the answer stored earlier (a replay), or the run's own. */
export type IdempotentOutcome<T> = { replayed: true; response: StoredResponse } | { replayed: false; value: T };

/**
 * Runs `run` at most once per (merchant, key): claims the key, replays an answer kept
 * earlier, or runs and keeps the answer by the rule of `keepsAnswer`. `run` returns its value
 * and the answer to keep (which may leave out what must not sit on disk, see `storedAnswer`).
 */
export async function withIdempotency<T>(
  deps: AppDeps,
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
 * An Idempotency-Key claimed inside the handler's own transaction instead of one of its own
 * before it (`withIdempotencyInTx`): the claim and the handler's writes commit together, so a
 * POST /v1/charges is two transactions (charge + claim, then the kept answer), not three.
 * `db` is the store the handler must write through: its first transaction (or write) inserts
 * the claim first; a later one waits for the first to finish.
 */
class TxClaim {
  /** the claim committed with the handler's first transaction */
  written = false;
  /** the claim's INSERT found the key taken (another request got there first): the handler's transaction rolled back */
  lost = false;
  private first: Promise<unknown> | undefined;
  readonly db: Db;

  constructor(deps: AppDeps, merchantId: string, key: string, hash: string) {
    const base = deps.db;
    const claimed = <T>(fn: (q: Queryable) => Promise<T>) => async (q: Queryable): Promise<T> => {
      try {
        await q.run(CLAIM_SQL, claimRow(merchantId, key, hash, deps.clock.now()));
      } catch (e) {
        if (e instanceof UniqueViolation) this.lost = true;
        throw e;
      }
      return fn(q);
    };
    const tx = <T>(fn: (q: Queryable) => Promise<T>): Promise<T> => {
      if (this.first) {
        const after = this.first.then(() => base.tx(fn));
        return after;
      }
      const p = base.tx(claimed(fn)).then((v) => {
        this.written = true;
        return v;
      });
      this.first = p;
      return p;
    };
    this.db = {
      dialect: base.dialect,
      get: (sql, params) => base.get(sql, params),
      all: (sql, params) => base.all(sql, params),
      run: (sql, params) => tx((q) => q.run(sql, params)),
      tx,
      close: () => base.close(),
      ...(base.changeToken ? { changeToken: () => base.changeToken!() } : {}),
    };
  }
}

/** Stores a kept answer under a key no transaction claimed (the run wrote nothing): false when the key was taken meanwhile. */
async function keepUnclaimed(deps: AppDeps, merchantId: string, key: string, hash: string, res: StoredResponse): Promise<boolean> {
  try {
    await deps.db.tx(async (q) => {
      await q.run(CLAIM_SQL, claimRow(merchantId, key, hash, deps.clock.now()));
      await q.run(`UPDATE idempotency_keys SET state = 'done', status_code = ?, response_body = ? WHERE merchant_id = ? AND key = ?`, [
        res.status,
        res.body,
        merchantId,
        key,
      ]);
    });
    return true;
  } catch (e) {
    if (e instanceof UniqueViolation) return false;
    throw e;
  }
}

/**
 * `withIdempotency` for a run whose writes all go through the store it is given, in
 * transactions (no write outside one, nothing done before its first transaction that a
 * concurrent request with the same key must not also do): the key is claimed in the run's
 * first transaction rather than in one of its own. Same outcomes as `withIdempotency`: a key
 * already known (kept answer, another request, expired, abandoned) goes the usual way; a run
 * that loses the race for the key is rolled back and waits for the winner's answer.
 */
export async function withIdempotencyInTx<T>(
  deps: AppDeps,
  merchantId: string,
  key: string,
  hash: string,
  run: (db: Db) => Promise<{ value: T; keep: StoredResponse }>,
): Promise<IdempotentOutcome<T>> {
  const known = await deps.db.get<{ state: string }>('SELECT state FROM idempotency_keys WHERE merchant_id = ? AND key = ?', [merchantId, key]);
  const usual = () => withIdempotency(deps, merchantId, key, hash, () => run(deps.db));
  if (known) return usual();
  const claim = new TxClaim(deps, merchantId, key, hash);
  let out: { value: T; keep: StoredResponse };
  try {
    out = await run(claim.db);
  } catch (err) {
    if (claim.lost) return usual();
    if (claim.written) {
      if (err instanceof ApiError && keepsAnswer(err)) await completeKey(deps, merchantId, key, { status: err.status, body: errorBody(err) });
      else await releaseKey(deps, merchantId, key).catch(() => undefined);
    } else if (err instanceof ApiError && keepsAnswer(err)) {
      if (!(await keepUnclaimed(deps, merchantId, key, hash, { status: err.status, body: errorBody(err) }))) return usual();
    }
    throw err;
  }
  if (claim.written) await completeKey(deps, merchantId, key, out.keep);
  else if (!(await keepUnclaimed(deps, merchantId, key, hash, out.keep))) return usual();
  return { replayed: false, value: out.value };
}
