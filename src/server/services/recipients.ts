/**
 * Recipients: where a merchant's or a submerchant's payouts go, one primary per owner and type
 * (the partial UNIQUE index on (owner, type) WHERE is_primary keeps it so).
 */
import type { Recipient } from '../../contract/resources/recipients.js';
import { json, UniqueViolation } from '../../store/db.js';
import type { BodyFor, Page, PageRequest, QueryFor, ServiceContext } from './context.js';
import { listPage } from '../lists.js';
import { assertSubmerchantOf } from './onboarding.js';

interface RecipientRow {
  id: string;
  owner_type: Recipient['owner_type'];
  owner_id: string;
  type: Recipient['type'];
  is_primary: number;
  details: string;
  created_at: string;
  updated_at: string;
}

const COLS = 'id, owner_type, owner_id, type, is_primary, details, created_at, updated_at';

function toRecord(r: RecipientRow): Recipient {
  return {
    id: r.id,
    owner_type: r.owner_type,
    owner_id: r.owner_id,
    type: r.type,
    is_primary: !!r.is_primary,
    details: json.from<Recipient['details']>(r.details, {} as Recipient['details']),
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

/**
 * Creates the owner's primary recipient of the type (`created`) or replaces its details. Another
 * process may create the primary between this one's read and insert: it is an update then.
 */
export async function putRecipient(ctx: ServiceContext, body: BodyFor<'recipients.put'>): Promise<{ record: Recipient; created: boolean }> {
  const { type, submerchant_id, ...details } = body;
  const ownerType = submerchant_id ? 'submerchant' : 'merchant';
  const ownerId = submerchant_id ?? ctx.merchantId;
  const save = () =>
    ctx.db.tx(async (q) => {
      if (submerchant_id) await assertSubmerchantOf(q, ctx.merchantId, submerchant_id);
      const ts = ctx.now().toISOString();
      const existing = await q.get<RecipientRow>(
        `SELECT ${COLS} FROM recipients WHERE owner_type = ? AND owner_id = ? AND type = ? AND is_primary = 1${q.dialect.forUpdate}`,
        [ownerType, ownerId, type],
      );
      if (existing) {
        await q.run('UPDATE recipients SET details = ?, updated_at = ? WHERE id = ?', [JSON.stringify(details), ts, existing.id]);
        return { row: { ...existing, details: JSON.stringify(details), updated_at: ts }, created: false };
      }
      const row: RecipientRow = { id: ctx.deps.ids(), owner_type: ownerType, owner_id: ownerId, type, is_primary: 1, details: JSON.stringify(details), created_at: ts, updated_at: ts };
      await q.run(
        'INSERT INTO recipients (id, merchant_id, owner_type, owner_id, type, is_primary, details, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?)',
        [row.id, ctx.merchantId, row.owner_type, row.owner_id, row.type, row.details, row.created_at, row.updated_at],
      );
      return { row, created: true };
    });
  let out;
  try {
    out = await save();
  } catch (e) {
    if (!(e instanceof UniqueViolation)) throw e;
    out = await save();
  }
  return { record: toRecord(out.row), created: out.created };
}

/** The merchant's recipients and its submerchants', newest first. */
export function listRecipients(ctx: ServiceContext, query: QueryFor<'recipients.list'>, page: PageRequest): Promise<Page<Recipient>> {
  return listPage(ctx.db, {
    from: 'recipients',
    select: COLS,
    filters: [
      ['merchant_id = ?', ctx.merchantId],
      ['type = ?', query.type],
      ["owner_type = 'submerchant' AND owner_id = ?", query.submerchant_id],
      ['owner_type = ?', query.owner_type],
    ],
    page,
    map: toRecord,
  });
}
