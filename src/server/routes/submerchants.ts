import type { submerchantEndpoints } from '../../contract/resources/submerchants.js';
import { RawAnswer, type Handlers } from '../context.js';
import {
  addAddress,
  addDocument,
  createSubmerchant,
  getSubmerchant,
  listSubmerchantChanges,
  listAddresses,
  listDocuments,
  listPartners,
  listSubmerchants,
  readStoredFile,
  reviewSubmerchant,
  submerchantRequirements,
  updateSubmerchant,
  upsertPartner,
  uploadFile,
} from '../services/submerchants.js';
import { readUpload } from '../pipeline/multipart.js';

export const submerchantHandlers: Handlers<typeof submerchantEndpoints> = {
  'submerchants.create': (ctx, { body }) => createSubmerchant(ctx, body),
  'submerchants.get': (ctx, { params }) => getSubmerchant(ctx, params.id),
  'submerchants.list': (ctx, { query, page }) => listSubmerchants(ctx, query, page),
  'submerchants.update': async (ctx, { params, body }) => {
    const { record, changed } = await updateSubmerchant(ctx, params.id, body, ctx.apiKeyId);
    if (!changed) ctx.message = 'Submerchant unchanged';
    return record;
  },
  'submerchants.changes.list': (ctx, { params, page }) => listSubmerchantChanges(ctx, params.id, page),

  'submerchants.addresses.create': (ctx, { params, body }) => addAddress(ctx, params.id, body),
  'submerchants.addresses.list': (ctx, { params, page }) => listAddresses(ctx, params.id, page),

  'submerchants.partners.create': async (ctx, { params, body }) => {
    const { record, created } = await upsertPartner(ctx, params.id, body);
    if (!created) {
      ctx.status = 200;
      ctx.message = 'Legal representative updated (same document already registered for this submerchant)';
    }
    return record;
  },
  'submerchants.partners.list': (ctx, { params, page }) => listPartners(ctx, params.id, page),

  'submerchants.documents.create': (ctx, { params, body }) => addDocument(ctx, params.id, body),
  'submerchants.documents.list': (ctx, { params, query, page }) => listDocuments(ctx, params.id, query, page),

  // the merchant's upload rate (429) first; the body is read only once the service has checked the target
  'submerchants.upload': async (ctx, { params }) => {
    ctx.limits.upload(ctx.merchantId);
    return uploadFile(ctx, params.id, () => readUpload(ctx.request, ctx.deps.dataDir));
  },

  'files.upload': async (ctx) => {
    ctx.limits.upload(ctx.merchantId);
    return uploadFile(ctx, null, () => readUpload(ctx.request, ctx.deps.dataDir));
  },

  'files.get': async (ctx, { params }) => {
    const f = await readStoredFile(ctx, params.key ?? '');
    const ascii = f.fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
    // at most 10 MiB (the upload limit); the store hands back the whole file
    return new RawAnswer(
      200,
      {
        'Content-Type': f.mime,
        'Content-Length': String(f.size),
        'Content-Disposition': `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(f.fileName)}`,
        'X-Content-Type-Options': 'nosniff',
        'Content-Security-Policy': "default-src 'none'; sandbox",
        'Cache-Control': 'private, no-store',
      },
      f.bytes,
    );
  },

  'submerchants.requirements': (ctx, { params }) => submerchantRequirements(ctx, params.id),
  'sandbox.submerchants.review': (ctx, { params, body }) => reviewSubmerchant(ctx, params.id, body),
};
