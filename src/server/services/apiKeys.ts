/**
 * A merchant's API keys: create (at most MAX_ACTIVE_API_KEYS active at once), list, revoke
 * (never the last active one). Both limits are counts over the merchant's keys, checked and
 * acted on under a lock of the merchant's row, so they hold however many requests and replicas
 * run at once: on PostgreSQL two revocations of different keys would otherwise each count the
 * other's key as still active (READ COMMITTED) and both commit; on SQLite BEGIN IMMEDIATE
 * already serializes every writer.
 */
import type { ApiKey } from '../../contract/resources/apiKeys.js';
import { json } from '../../store/db.js';
import type { BodyFor, Page, PageRequest, QueryFor, ServiceContext } from './context.js';
import { ApiError, notFound } from '../errors.js';
import { listPage } from '../lists.js';
import { generateKeyPair, lockMerchant } from './merchants.js';

interface KeyRow {
  id: string;
  name: string;
  public_key: string;
  is_active: number;
  allowed_ips: string;
  created_at: string;
}

/** Active API keys a merchant may hold at once (rate limits are per merchant, not per key). */
export const MAX_ACTIVE_API_KEYS = 20;

const COLS = 'id, name, public_key, is_active, allowed_ips, created_at';

function toRecord(r: KeyRow): ApiKey {
  return {
    id: r.id,
    name: r.name,
    public_key: r.public_key,
    is_active: !!r.is_active,
    allowed_ips: json.from<string[]>(r.allowed_ips, []),
    created_at: r.created_at,
  };
}

/** Creates a key pair; its secret is returned only here. */
export async function createApiKey(ctx: ServiceContext, body: BodyFor<'apiKeys.create'>): Promise<ApiKey & { secret_key: string }> {
  const keys = generateKeyPair(ctx.deps.mode);
  const id = ctx.deps.ids();
  const ts = ctx.now().toISOString();
  await ctx.db.tx(async (q) => {
    await lockMerchant(q, ctx.merchantId);
    const active = await q.get<{ n: number }>('SELECT COUNT(*) AS n FROM api_keys WHERE merchant_id = ? AND is_active = 1', [ctx.merchantId]);
    if (Number(active?.n) >= MAX_ACTIVE_API_KEYS) {
      throw new ApiError('business_rule', `A merchant may hold at most ${MAX_ACTIVE_API_KEYS} active API keys; revoke one first (DELETE /v1/api-keys/{id})`);
    }
    await q.run(
      `INSERT INTO api_keys (id, merchant_id, name, public_key, secret_hash, is_active, allowed_ips, created_at)
       VALUES (?, ?, ?, ?, ?, 1, ?, ?)`,
      [id, ctx.merchantId, body.name, keys.public_key, ctx.deps.keyring.hashSecret(keys.secret_key), JSON.stringify(body.allowed_ips ?? []), ts],
    );
  });
  const row = await ctx.db.get<KeyRow>(`SELECT ${COLS} FROM api_keys WHERE id = ?`, [id]);
  return { ...toRecord(row!), secret_key: keys.secret_key };
}

export function listApiKeys(ctx: ServiceContext, query: QueryFor<'apiKeys.list'>, page: PageRequest): Promise<Page<ApiKey>> {
  return listPage(ctx.db, {
    from: 'api_keys',
    select: COLS,
    filters: [['merchant_id = ?', ctx.merchantId], ['is_active = ?', query.is_active === undefined ? undefined : query.is_active ? 1 : 0]],
    page,
    map: toRecord,
  });
}

/** Revokes a key (an inactive key is answered unchanged); the merchant's last active key is a 409. */
export function revokeApiKey(ctx: ServiceContext, id: string): Promise<ApiKey> {
  return ctx.db.tx(async (q) => {
    await lockMerchant(q, ctx.merchantId);
    const row = await q.get<KeyRow>(`SELECT ${COLS} FROM api_keys WHERE id = ? AND merchant_id = ?`, [id, ctx.merchantId]);
    if (!row) throw notFound('API key');
    if (!row.is_active) return toRecord(row);
    const active = await q.get<{ n: number }>('SELECT COUNT(*) AS n FROM api_keys WHERE merchant_id = ? AND is_active = 1', [ctx.merchantId]);
    if (Number(active?.n) <= 1) {
      throw new ApiError('conflict', 'Cannot revoke the last active API key; create another key first');
    }
    await q.run('UPDATE api_keys SET is_active = 0, revoked_at = ? WHERE id = ?', [ctx.now().toISOString(), row.id]);
    return toRecord({ ...row, is_active: 0 });
  });
}
