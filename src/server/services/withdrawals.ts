import { createHash, randomBytes } from 'node:crypto';
import type { Destination, Withdrawal, WithdrawalCreate } from '../../contract/resources/withdrawals.js';
import { withdrawalFee, type WithdrawalType } from '../../domain/payouts.js';
import { COMPLETE_AFTER_MS, PROCESS_AFTER_MS, sandboxPayoutFailure } from '../../domain/sandboxPayouts.js';
import { taxIdKind } from '../../domain/taxid.js';
import { json, UniqueViolation, type Queryable } from '../../store/db.js';
import { tryTransition } from '../../store/transition.js';
import type { Page, PageRequest, QueryFor, ServiceDeps, ServiceContext } from './context.js';
import type { Keyring } from '../keyring.js';
import { ApiError, invalid, notFound } from '../errors.js';
import { emitEvent } from './events.js';
import { credit, debit, refuseWhileNegative } from './ledger.js';
import { checkPin, merchantPricing } from './merchants.js';
import { assertSubmerchantOf } from './onboarding.js';
import { walletOfMerchant } from './wallets.js';
import { listPage } from '../lists.js';

export const SANDBOX_ACQUIRER = 'mpay-sandbox';

export interface WithdrawalRow {
  id: string;
  merchant_id: string;
  submerchant_id: string | null;
  wallet_id: string;
  type: WithdrawalType;
  acquirer_name: string;
  external_id: string | null;
  amount: number;
  fee: number;
  net_amount: number;
  status: Withdrawal['status'];
  recipient_id: string | null;
  recipient_snapshot: string;
  failure_reason: string | null;
  processed_at: string | null;
  completed_at: string | null;
  failed_at: string | null;
  next_action_at: string | null;
  metadata: string;
  idempotency_key: string;
  request_hash: string;
  /** how request_hash was made (migration 630): 'hmac-sha256' now, 'sha256' in rows of older versions */
  request_hash_alg: 'sha256' | 'hmac-sha256';
  created_at: string;
  updated_at: string;
}

export function toRecord(r: WithdrawalRow): Withdrawal {
  return {
    id: r.id,
    merchant_id: r.merchant_id,
    submerchant_id: r.submerchant_id,
    wallet_id: r.wallet_id,
    type: r.type,
    acquirer_name: r.acquirer_name,
    external_id: r.external_id,
    amount: Number(r.amount),
    fee: Number(r.fee),
    netAmount: Number(r.net_amount),
    status: r.status,
    recipient_id: r.recipient_id,
    recipient_snapshot: json.from<Destination>(r.recipient_snapshot, {} as Destination),
    failure_reason: r.failure_reason,
    processed_at: r.processed_at,
    completed_at: r.completed_at,
    failed_at: r.failed_at,
    metadata: json.from<Record<string, unknown>>(r.metadata, {}),
    idempotency_key: r.idempotency_key,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

/** The merchant's withdrawal, by id (404 otherwise). */
export async function getWithdrawal(ctx: ServiceContext, id: string): Promise<Withdrawal> {
  const row = await ctx.db.get<WithdrawalRow>('SELECT * FROM withdrawals WHERE id = ? AND merchant_id = ?', [id, ctx.merchantId]);
  if (!row) throw notFound('Withdrawal');
  return toRecord(row);
}

/** The merchant's withdrawals, newest first. */
export function listWithdrawals(ctx: ServiceContext, query: QueryFor<'withdrawals.list'>, page: PageRequest): Promise<Page<Withdrawal>> {
  return listPage(ctx.db, {
    from: 'withdrawals',
    filters: [['merchant_id = ?', ctx.merchantId], ['status = ?', query.status], ['submerchant_id = ?', query.submerchant_id]],
    page,
    map: toRecord,
  });
}

/**
 * The canonical request (without the PIN) that an idempotency_key stands for: its SHA-256, hex.
 * Rows of older versions hold this digest as their request_hash (request_hash_alg 'sha256').
 */
export function withdrawalRequestDigest(b: WithdrawalCreate): string {
  const canonical = {
    type: b.type,
    wallet_id: b.wallet_id,
    amount: b.amount,
    submerchant_id: b.submerchant_id ?? null,
    recipient_id: b.recipient_id ?? null,
    destination: b.destination ?? null,
    metadata: b.metadata ?? null,
  };
  return createHash('sha256').update(stableJson(canonical)).digest('hex');
}

/**
 * The stored request_hash: the canonical digest keyed with the master key (HMAC-SHA256), so a
 * copy of the database cannot confirm guesses of a request. It keys the digest rather than the
 * request itself so that a row that holds only the digest (`request_hash_alg` 'sha256', written
 * by an older version) can be keyed without its request (keyUnkeyedRequestHashes).
 */
function keyedRequestHash(keyring: Keyring, digest: string): string {
  return keyring.requestHash('withdrawal request\n', digest);
}

/** Rows keyed per statement by keyUnkeyedRequestHashes. */
const REKEY_BATCH = 500;

/**
 * Keys the request_hash of every withdrawal that holds the plain digest (rows of an older
 * version), a batch per statement; the runtime runs it when it opens the store. A row is
 * changed only if it is still unkeyed, so replicas that start together key each row once.
 * Answers how many rows this call keyed.
 */
export async function keyUnkeyedRequestHashes(deps: Pick<ServiceDeps, 'db' | 'keyring'>): Promise<number> {
  let keyed = 0;
  for (;;) {
    const rows = await deps.db.all<{ id: string; request_hash: string }>(
      "SELECT id, request_hash FROM withdrawals WHERE request_hash_alg = 'sha256' ORDER BY id LIMIT ?",
      [REKEY_BATCH],
    );
    if (rows.length === 0) return keyed;
    // one statement per batch, each row's new hash by its id (in a transaction: PostgreSQL runs
    // it again after a deadlock with a replica keying the same rows)
    const res = await deps.db.tx((q) => q.run(
      `UPDATE withdrawals SET request_hash = CASE id ${rows.map(() => 'WHEN ? THEN ?').join(' ')} END, request_hash_alg = 'hmac-sha256'
        WHERE id IN (${rows.map(() => '?').join(', ')}) AND request_hash_alg = 'sha256'`,
      [...rows.flatMap((r) => [r.id, keyedRequestHash(deps.keyring, r.request_hash)]), ...rows.map((r) => r.id)],
    ));
    keyed += res.changes;
  }
}

function stableJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${stableJson(o[k])}`)
    .join(',')}}`;
}

async function byKey(q: Queryable, merchantId: string, key: string): Promise<WithdrawalRow | undefined> {
  return q.get<WithdrawalRow>('SELECT * FROM withdrawals WHERE merchant_id = ? AND idempotency_key = ?', [merchantId, key]);
}

/** The request's hash as `row` was made: keyed, or (a row of an older version not yet keyed) the plain digest. */
interface RequestHashes {
  keyed: string;
  digest: string;
}

function replayOrConflict(row: WithdrawalRow, hash: RequestHashes): { record: Withdrawal; created: false } {
  if (row.request_hash !== (row.request_hash_alg === 'sha256' ? hash.digest : hash.keyed)) {
    throw new ApiError(
      'idempotency_conflict',
      `idempotency_key '${row.idempotency_key}' was already used for withdrawal ${row.id} with a different request; use a new key for a new withdrawal`,
      [{ field: 'idempotency_key', message: 'was already used with a different request' }],
    );
  }
  return { record: toRecord(row), created: false };
}

const RECIPIENT_TYPE_FOR: Record<WithdrawalType, string> = { pix: 'pix', ted: 'bank_account', cryptocurrency: 'crypto' };

/** The destination of a saved recipient, as the withdrawal snapshots it. */
function destinationOf(type: string, details: Record<string, string>): Destination {
  if (type === 'pix') {
    const kind = taxIdKind(details.holder_tax_id ?? '');
    return {
      type: 'pix',
      pix_key: details.pix_key!,
      pix_key_type: details.pix_key_type as never,
      holder_name: details.holder_name,
      ...(kind ? { holder_document_type: kind, holder_document: details.holder_tax_id } : {}),
    };
  }
  if (type === 'bank_account') return { type: 'bank_account', ...details } as Destination;
  return { type: 'crypto', ...details } as Destination;
}

/**
 * POST /v1/withdrawals. Exactly once per (merchant, idempotency_key): the same key with the
 * same request returns the first withdrawal; another request → 409. The insert, the debit of
 * the wallet and the withdrawal.pending event commit together; insufficient funds roll all
 * of it back. A UNIQUE (merchant_id, idempotency_key) constraint settles races between
 * processes that both passed the lookup.
 */
export async function createWithdrawal(ctx: ServiceContext, body: WithdrawalCreate): Promise<{ record: Withdrawal; created: boolean }> {
  await checkPin(ctx, body.pin);
  const digest = withdrawalRequestDigest(body);
  const hash: RequestHashes = { digest, keyed: keyedRequestHash(ctx.deps.keyring, digest) };
  const seen = await byKey(ctx.db, ctx.merchantId, body.idempotency_key);
  if (seen) return replayOrConflict(seen, hash);

  // the fee of the merchant's pricing now (a withdrawal is priced when it is made)
  const fee = withdrawalFee(body.amount, (await merchantPricing(ctx.db, ctx.deps, ctx.merchantId)).withdrawal_fees[body.type]);
  if (fee >= body.amount) {
    throw new ApiError('business_rule', `amount: a ${body.type} withdrawal must be more than its fee of ${fee} cents`, [
      { field: 'amount', message: `must be more than the ${body.type} fee of ${fee} cents` },
    ]);
  }
  try {
    return await ctx.db.tx(async (q) => {
      const again = await byKey(q, ctx.merchantId, body.idempotency_key);
      if (again) return replayOrConflict(again, hash);

      const wallet = await walletOfMerchant(q, ctx.merchantId, body.wallet_id);
      if (!wallet) throw notFound('Wallet');
      let submerchantId: string | null = null;
      if (body.submerchant_id) {
        await assertSubmerchantOf(q, ctx.merchantId, body.submerchant_id);
        if (wallet.owner_type !== 'submerchant' || wallet.owner_id !== body.submerchant_id) {
          throw invalid('wallet_id', `must be the wallet of submerchant ${body.submerchant_id}`);
        }
        submerchantId = body.submerchant_id;
      } else if (wallet.owner_type === 'submerchant') {
        submerchantId = wallet.owner_id;
      }
      if (submerchantId) {
        // money leaves a submerchant's wallet only once its account is approved (KYC done);
        // charges and splits to it may still accrue before that, as on real platforms
        const st = await q.get<{ status: string }>('SELECT status FROM submerchants WHERE id = ?', [submerchantId]);
        if (st?.status !== 'approved') {
          throw new ApiError(
            'submerchant_not_approved',
            `The submerchant ${submerchantId} is ${st?.status ?? 'unknown'}: withdrawals from its wallet need an approved submerchant`,
            [{ field: body.submerchant_id ? 'submerchant_id' : 'wallet_id', message: `submerchant is ${st?.status ?? 'unknown'}, not approved` }],
          );
        }
      }

      // a wallet a chargeback took below zero pays nothing out until settlements cover it
      await refuseWhileNegative(q, wallet.id, 'a withdrawal', 'wallet_id');

      let snapshot: Destination;
      if (body.recipient_id) {
        const rec = await q.get<{ type: string; owner_type: string; owner_id: string; details: string }>(
          'SELECT type, owner_type, owner_id, details FROM recipients WHERE id = ? AND merchant_id = ?',
          [body.recipient_id, ctx.merchantId],
        );
        if (!rec) throw notFound('Recipient');
        const want = RECIPIENT_TYPE_FOR[body.type];
        if (rec.type !== want) throw invalid('recipient_id', `is a ${rec.type} recipient; a ${body.type} withdrawal needs a ${want} recipient`);
        if (rec.owner_type !== wallet.owner_type || rec.owner_id !== wallet.owner_id) {
          throw invalid('recipient_id', `belongs to another owner; use a recipient of the wallet's owner (${wallet.owner_type} ${wallet.owner_id})`);
        }
        snapshot = destinationOf(rec.type, json.from<Record<string, string>>(rec.details, {}));
      } else {
        snapshot = body.destination!;
      }

      const id = ctx.deps.ids();
      const now = ctx.now();
      const ts = now.toISOString();
      const row: WithdrawalRow = {
        id,
        merchant_id: ctx.merchantId,
        submerchant_id: submerchantId,
        wallet_id: wallet.id,
        type: body.type,
        acquirer_name: SANDBOX_ACQUIRER,
        external_id: null,
        amount: body.amount,
        fee,
        net_amount: body.amount - fee,
        status: 'pending',
        recipient_id: body.recipient_id ?? null,
        recipient_snapshot: JSON.stringify(snapshot),
        failure_reason: null,
        processed_at: null,
        completed_at: null,
        failed_at: null,
        next_action_at: new Date(now.getTime() + PROCESS_AFTER_MS).toISOString(),
        metadata: JSON.stringify(body.metadata ?? {}),
        idempotency_key: body.idempotency_key,
        request_hash: hash.keyed,
        request_hash_alg: 'hmac-sha256',
        created_at: ts,
        updated_at: ts,
      };
      await q.run(
        `INSERT INTO withdrawals (id, merchant_id, submerchant_id, wallet_id, type, acquirer_name, external_id, amount, fee, net_amount, status,
           recipient_id, recipient_snapshot, failure_reason, processed_at, completed_at, failed_at, next_action_at, metadata, idempotency_key,
           request_hash, request_hash_alg, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          row.id, row.merchant_id, row.submerchant_id, row.wallet_id, row.type, row.acquirer_name, row.external_id, row.amount, row.fee,
          row.net_amount, row.status, row.recipient_id, row.recipient_snapshot, row.failure_reason, row.processed_at, row.completed_at,
          row.failed_at, row.next_action_at, row.metadata, row.idempotency_key, row.request_hash, row.request_hash_alg, row.created_at, row.updated_at,
        ],
      );
      await debit(q, ctx.deps.ids, {
        walletId: wallet.id,
        amount: body.amount,
        referenceType: 'withdrawal',
        referenceId: id,
        description: `Withdrawal (${body.type})`,
        at: now,
      });
      const record = toRecord(row);
      await emitEvent(q, ctx.deps.ids, { merchantId: ctx.merchantId, type: 'withdrawal.pending', data: record, at: now });
      return { record, created: true };
    });
  } catch (e) {
    if (!(e instanceof UniqueViolation)) throw e;
    const winner = await byKey(ctx.db, ctx.merchantId, body.idempotency_key);
    if (!winner) throw e;
    return replayOrConflict(winner, hash);
  }
}

/** The rail's reference once a withdrawal is processing. */
function externalId(type: WithdrawalType, at: Date): string {
  if (type === 'pix') {
    // PIX end-to-end id: E + ISPB (8) + yyyyMMddHHmm + 11 alphanumerics = 32 characters.
    const stamp = at.toISOString().replace(/[-:T]/g, '').slice(0, 12);
    const tail = randomBytes(11)
      .toString('base64url')
      .replace(/[^A-Za-z0-9]/g, '0')
      .slice(0, 11);
    return `E00000000${stamp}${tail}`;
  }
  if (type === 'ted') return `TED${at.toISOString().slice(0, 10).replace(/-/g, '')}${randomBytes(6).toString('hex').toUpperCase()}`;
  return `0x${randomBytes(32).toString('hex')}`;
}

type StepDeps = Pick<ServiceDeps, 'db' | 'ids' | 'mode'>;

/**
 * One due move of one withdrawal, in its own transaction. Returns false when nothing was due.
 * Status timestamps carry the moment the move came due on the rail's timeline; the reversal
 * entry and the event are booked at `now`.
 */
async function stepWithdrawal(deps: StepDeps, id: string, now: Date): Promise<boolean> {
  const nowIso = now.toISOString();
  return deps.db.tx(async (q) => {
    const row = await q.get<WithdrawalRow>(`SELECT * FROM withdrawals WHERE id = ?${q.dialect.forUpdate}`, [id]);
    if (!row?.next_action_at || row.next_action_at > nowIso) return false;
    const at = new Date(row.next_action_at);
    const atIso = row.next_action_at;
    const snapshot = json.from<Record<string, unknown>>(row.recipient_snapshot, {});
    const magic = deps.mode === 'sandbox' ? sandboxPayoutFailure(row.type, Number(row.amount), snapshot) : undefined;

    if (magic && magic.fails_at === row.status) {
      const moved = await tryTransition(q, 'withdrawal', row.id, row.status, 'failed', {
        failed_at: atIso,
        failure_reason: magic.failure_reason,
        next_action_at: null,
        updated_at: nowIso,
      });
      if (!moved) return false;
      await credit(q, deps.ids, {
        walletId: row.wallet_id,
        amount: Number(row.amount),
        referenceType: 'withdrawal_reversal',
        referenceId: row.id,
        description: `Reversal of failed withdrawal (${magic.failure_reason})`,
        at: now,
      });
      const record = toRecord({ ...row, status: 'failed', failed_at: atIso, failure_reason: magic.failure_reason, next_action_at: null, updated_at: nowIso });
      await emitEvent(q, deps.ids, { merchantId: row.merchant_id, type: 'withdrawal.failed', data: record, at: now });
      return true;
    }
    if (row.status === 'pending') {
      const ext = externalId(row.type, at);
      const next = new Date(at.getTime() + COMPLETE_AFTER_MS).toISOString();
      return tryTransition(q, 'withdrawal', row.id, row.status, 'processing', {
        processed_at: atIso,
        external_id: ext,
        next_action_at: next,
        updated_at: nowIso,
      });
    }
    if (row.status === 'processing') {
      const moved = await tryTransition(q, 'withdrawal', row.id, row.status, 'completed', { completed_at: atIso, next_action_at: null, updated_at: nowIso });
      if (!moved) return false;
      const record = toRecord({ ...row, status: 'completed', completed_at: atIso, next_action_at: null, updated_at: nowIso });
      await emitEvent(q, deps.ids, { merchantId: row.merchant_id, type: 'withdrawal.completed', data: record, at: now });
      return true;
    }
    return false;
  });
}

/** Runs every move of the merchant's withdrawals that is due at `now` (merchant clock). */
export async function advanceWithdrawals(deps: StepDeps, merchantId: string, now: Date): Promise<number> {
  const due = await deps.db.all<{ id: string }>(
    'SELECT id FROM withdrawals WHERE merchant_id = ? AND next_action_at IS NOT NULL AND next_action_at <= ? ORDER BY next_action_at LIMIT 200',
    [merchantId, now.toISOString()],
  );
  let moves = 0;
  for (const { id } of due) {
    while (await stepWithdrawal(deps, id, now)) moves++;
  }
  return moves;
}
