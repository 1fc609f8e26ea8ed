import type { chargebackEndpoints } from '../../contract/resources/chargebacks.js';
import type { Handlers } from '../context.js';
import {
  acceptChargeback,
  contestChargeback,
  decideSandboxChargeback,
  getChargeback,
  listChargebacks,
  openSandboxChargeback,
  openSandboxMed,
} from '../services/chargebacks.js';

export const chargebackHandlers: Handlers<typeof chargebackEndpoints> = {
  'chargebacks.list': (ctx, { query, page }) => listChargebacks(ctx, query, page),
  'chargebacks.get': (ctx, { params }) => getChargeback(ctx, params.id),
  'chargebacks.accept': (ctx, { params }) => acceptChargeback(ctx, params.id),
  'chargebacks.contest': (ctx, { params, body }) => contestChargeback(ctx, params.id, body),
  'sandbox.chargebacks.create': (ctx, { params, body }) => openSandboxChargeback(ctx, params.id, body),
  'sandbox.chargebacks.med': (ctx, { params, body }) => openSandboxMed(ctx, params.id, body),
  'sandbox.chargebacks.decide': async (ctx, { params }) => {
    const cb = await decideSandboxChargeback(ctx, params.id);
    ctx.message = `Chargeback ${cb.status}`;
    return cb;
  },
};
