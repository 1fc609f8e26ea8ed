/**
 * What a merchant's stored uploads may take (the quota) and how long one attached to no
 * document is kept (the retention): the upload limits that are counted in the store, so
 * across every server process. (The rate of uploads is the pipeline's: src/server/uploadLimits.ts.)
 */
import type { Queryable } from '../../store/db.js';
import type { DueContext, ServiceContext, ServiceDeps } from './context.js';
import { ApiError } from '../errors.js';
import { lockMerchant } from './merchants.js';

export interface UploadRules {
  /** bytes of stored uploads per merchant; null: no quota */
  quotaBytes: number | null;
  /** hours an upload attached to no document is kept */
  retentionHours: number;
}

export const GiB = 1024 * 1024 * 1024;

/**
 * 2 GiB kept per merchant: about 200 files at the 10 MiB limit, or a thousand of documents of a
 * few MiB at a time. A day for an upload to be attached to its document.
 */
export const DEFAULT_UPLOAD_RULES: UploadRules = {
  quotaBytes: 2 * GiB,
  retentionHours: 24,
};

/** The rules in force: `deps.uploadLimits` over the defaults. */
export function uploadRulesOf(deps: Pick<ServiceDeps, 'uploadLimits'>): UploadRules {
  const { quotaBytes, retentionHours } = { ...DEFAULT_UPLOAD_RULES, ...deps.uploadLimits };
  return { quotaBytes, retentionHours };
}

/** A byte count for a message: the bytes, and whole GiB, MiB or KiB beside them when exact. */
export function formatBytes(n: number): string {
  for (const [unit, size] of [['GiB', GiB], ['MiB', 1024 * 1024], ['KiB', 1024]] as const) {
    if (n >= size && n % size === 0) return `${n} bytes (${n / size} ${unit})`;
  }
  return `${n} bytes`;
}

/** The bytes of the merchant's stored uploads, and its quota (null: none). */
async function quotaUse(q: Queryable, ctx: ServiceContext): Promise<{ used: number; quota: number | null }> {
  const quota = uploadRulesOf(ctx.deps).quotaBytes;
  if (quota === null) return { used: 0, quota };
  const row = await q.get<{ used: number | string | null }>('SELECT SUM(size) AS used FROM files WHERE merchant_id = ?', [ctx.merchantId]);
  return { used: Number(row?.used ?? 0), quota };
}

function quotaExceeded(ctx: ServiceContext, why: string): ApiError {
  const message = `${why}; uploads attached to no document are removed ${uploadRulesOf(ctx.deps).retentionHours} h after they were made`;
  return new ApiError('storage_quota_exceeded', `file: ${message}`, [{ field: 'file', message }]);
}

/** Before an upload is read: refuses (422 `storage_quota_exceeded`) a merchant whose uploads already fill its quota. */
export async function refuseAtQuota(ctx: ServiceContext): Promise<void> {
  const { used, quota } = await quotaUse(ctx.db, ctx);
  if (quota !== null && used >= quota) {
    throw quotaExceeded(ctx, `the merchant's uploads already take ${formatBytes(used)}, its whole storage quota of ${formatBytes(quota)}`);
  }
}

/**
 * In the upload's transaction: refuses (422 `storage_quota_exceeded`) a file of `size` bytes
 * that would take the merchant's uploads past its quota. The merchant's row is locked first,
 * so uploads committing at once on several connections are counted one after the other.
 */
export async function checkUploadQuota(q: Queryable, ctx: ServiceContext, size: number): Promise<void> {
  if (uploadRulesOf(ctx.deps).quotaBytes === null) return;
  await lockMerchant(q, ctx.merchantId);
  const { used, quota } = await quotaUse(q, ctx);
  if (quota !== null && used + size > quota) {
    throw quotaExceeded(
      ctx,
      `this file of ${formatBytes(size)} would take the merchant's uploads to ${formatBytes(used + size)}, above its storage quota of ${formatBytes(quota)}`,
    );
  }
}

/**
 * Due work: removes the merchant's uploads that no document points at once they are older
 * than the retention (one batch per call), their bytes from the file store together with their
 * row. A document attaching one at the same time either wins (the upload stays) or finds it
 * gone (422). Returns how many were removed.
 */
export async function purgeUnattachedUploads(ctx: DueContext): Promise<number> {
  const { retentionHours } = uploadRulesOf(ctx.deps);
  const before = new Date(ctx.now().getTime() - retentionHours * 3600_000).toISOString();
  const due = await ctx.db.all<{ key: string; path: string }>(
    'SELECT key, path FROM files WHERE merchant_id = ? AND attached_at IS NULL AND created_at < ? ORDER BY created_at LIMIT ?',
    [ctx.merchantId, before, ctx.deps.due.batch],
  );
  if (!due.length) return 0;
  return ctx.db.tx(async (q) => {
    let removed = 0;
    for (const f of due) {
      const r = await q.run('DELETE FROM files WHERE key = ? AND merchant_id = ? AND attached_at IS NULL', [f.key, ctx.merchantId]);
      if (!r.changes) continue;
      // a database store deletes in this transaction; a directory store at once (a rollback
      // after it leaves a row without bytes, which the next run removes)
      await ctx.deps.files.delete(f.path, q);
      removed++;
    }
    return removed;
  });
}
