/**
 * The hosted checkout: GET /checkout/{id} (the page) and its assets under /checkout/assets/,
 * and the public pay and status operations of the endpoint table. The page module (and the QR
 * code library behind PIX) are loaded on first use only.
 */
import type { checkoutEndpoints } from '../../contract/resources/checkout.js';
import { UUID_RE } from '../../domain/ids.js';
import type { Handlers, OwnedOperation, RequestContext } from '../context.js';
import { ApiError } from '../errors.js';
import type { LinkPayment } from '../services/checkout.js';
import { assertLinkPayable } from '../services/paymentLinks.js';
import type { PageRoute } from './index.js';

/** A cross-site request to the public operations is refused: the page is same-origin with them. */
function assertSameOrigin(ctx: RequestContext): void {
  const site = ctx.request.header('sec-fetch-site');
  const origin = ctx.request.header('origin');
  const own = new Set([new URL(ctx.baseUrl).origin, ctx.request.origin()]);
  if (site === 'cross-site' || (origin !== undefined && !own.has(origin))) {
    throw new ApiError('forbidden', 'Checkout operations are only accepted from the checkout page itself');
  }
}

export const checkoutHandlers: Handlers<typeof checkoutEndpoints> = {
  /**
   * A payment, exactly once per attempt_id (the contract's `idempotency`): a retry of the same
   * attempt replays the first answer. The client's pay budget was spent before the body was
   * read; a payment the link takes also takes a share of the link's budget (the limit stage),
   * which a refused payment gives back.
   */
  'checkout.pay': {
    owner: async (ctx, { params, body }) => {
      const { checkPayment } = await import('../services/checkout.js');
      assertSameOrigin(ctx);
      const payment = await checkPayment(ctx.deps, params.id, body);
      return { merchantId: payment.link.row.merchant_id, prepared: payment };
    },
    // a link that takes no payment now spends none of its budget
    limit: (limits, ctx, { params }, payment) => {
      assertLinkPayable(payment.link.row, payment.link.now);
      return limits.admitLinkPayment(params.id, ctx.client);
    },
    handle: async (ctx, { body }, payment) => {
      const { payLink, paymentMessage } = await import('../services/checkout.js');
      const data = await payLink(ctx.deps, payment, body, { client: ctx.client, baseUrl: ctx.baseUrl });
      ctx.message = paymentMessage(data);
      return data;
    },
  } satisfies OwnedOperation<(typeof checkoutEndpoints)[0], LinkPayment>,

  'checkout.chargeStatus': async (ctx, { params }) => {
    const { linkChargeStatus } = await import('../services/checkout.js');
    ctx.limits.checkoutPoll(ctx.client);
    return linkChargeStatus(ctx.deps, params.id, params.charge_id);
  },
};

const html = (r: { status: number; html: string; headers: Record<string, string> }) => ({ status: r.status, headers: { ...r.headers }, body: r.html });

export const checkoutPages: readonly PageRoute[] = [
  {
    method: 'GET',
    path: '/checkout/assets/{name}',
    handle: async ({ params }) => {
      const { ASSETS } = await import('../checkout/assets.js');
      const a = ASSETS.get(params.name!);
      const common = { 'X-Content-Type-Options': 'nosniff', 'Cross-Origin-Resource-Policy': 'same-origin' };
      if (!a) return { status: 404, headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', ...common }, body: 'Not found\n' };
      return { status: 200, headers: { 'Content-Type': a.type, 'Cache-Control': 'public, max-age=31536000, immutable', ETag: `"${a.name}"`, ...common }, body: a.body };
    },
  },
  {
    method: 'GET',
    path: '/checkout/{id}',
    handle: async ({ deps, params }) => {
      const { renderCheckoutPage, renderStatePage } = await import('../checkout/page.js');
      const { loadPublicLink } = await import('../services/checkout.js');
      const id = params.id!;
      const link = UUID_RE.test(id) ? await loadPublicLink(deps, id.toLowerCase()) : null;
      if (!link) return html(renderStatePage('not_found'));
      if (link.status !== 'active') return html(renderStatePage(link.status, link));
      return html(renderCheckoutPage(link, { sandbox: deps.mode === 'sandbox' }));
    },
  },
];
