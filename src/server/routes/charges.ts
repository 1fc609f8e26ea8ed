import type { chargeEndpoints } from '../../contract/resources/charges.js';
import type { Handlers } from '../context.js';
import { AUTHORIZATION_VALID_DAYS } from '../../domain/capture.js';
import { getCharge, listChargeTexts, listRefunds } from '../services/chargeList.js';
import { captureCharge } from '../services/charges/capture.js';
import { createCharge } from '../services/charges/create.js';
import { expireSandboxCharge, paySandboxCharge } from '../services/charges/dueDate.js';
import { refundCharge } from '../services/charges/refunds.js';
import { voidCharge } from '../services/charges/voids.js';

export const chargeHandlers: Handlers<typeof chargeEndpoints> = {
  'charges.create': async (ctx, { body }) => {
    const view = await createCharge(ctx, body);
    const c = view.record;
    if (c.status === 'failed') ctx.message = `Charge failed: ${c.failure_code}`;
    else if (c.status === 'captured') ctx.message = 'Charge captured';
    else if (c.status === 'authorized') ctx.message = `Charge authorized; capture it within ${AUTHORIZATION_VALID_DAYS} days (POST /v1/charges/${c.id}/capture) or void it`;
    else ctx.message = c.payment_method === 'pix' ? 'PIX charge created; waiting for payment' : c.payment_method === 'boleto' ? 'Boleto created; waiting for payment' : 'Charge created; pending';
    return view.json();
  },

  'charges.get': (ctx, { params }) => getCharge(ctx, params.id),

  'charges.list': (ctx, { query, page }) => listChargeTexts(ctx, query, page),

  'charges.refund': async (ctx, { params, body }) => {
    const c = await refundCharge(ctx, params.id, body);
    ctx.message = c.status === 'refunded' ? 'Charge refunded' : `Charge partly refunded: ${c.refunded_amount} of ${c.captured_amount} cents`;
    return c;
  },

  'charges.capture': async (ctx, { params, body }) => {
    const view = await captureCharge(ctx, params.id, body);
    const c = view.record;
    if (c.captured_amount !== c.amount) ctx.message = `Charge captured: ${c.captured_amount} of ${c.amount} cents; the rest of the authorisation is released`;
    return view.json();
  },

  'charges.void': async (ctx, { params }) => (await voidCharge(ctx, params.id)).json(),

  'charges.refunds': (ctx, { params, page }) => listRefunds(ctx, params.id, page),

  'charges.sandboxPay': async (ctx, { params, body }) => {
    const c = await paySandboxCharge(ctx, params.id, body);
    ctx.message = c.payment_method === 'boleto' ? 'Boleto paid' : 'PIX charge paid';
    return c;
  },

  'charges.sandboxExpire': async (ctx, { params }) => (await expireSandboxCharge(ctx, params.id)).json(),
};
