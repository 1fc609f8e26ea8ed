/**
 * The hosted checkout: GET /checkout/{id} (the page) and its assets under /checkout/assets/,
 * and the public pay and status operations of the endpoint table. The page module (and the QR
 * code library behind PIX) are loaded on first use only.
 */
import type { checkoutEndpoints } from '../../contract/resources/checkout.js';
import { UUID_RE } from '../../domain/ids.js';
import { RawAnswer, type Handlers, type RequestContext } from '../context.js';
import { ApiError } from '../errors.js';
import { requestHash, withIdempotency } from '../idempotency.js';
import { JSON_TYPE } from '../pipeline/request.js';
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
   * A payment, exactly once per attempt_id: a retry of the same attempt replays the first answer.
   * The client's pay budget was spent before the body was read (the pipeline's limit stage); a
   * payment the link takes also takes a share of the link's budget, which a refused payment
   * gives back.
   */
  'checkout.pay': async (ctx, { params, body }) => {
    const { checkPayment, payLink, paymentMessage } = await import('../services/checkout.js');
    assertSameOrigin(ctx);
    const payment = await checkPayment(ctx.deps, params.id, body);
    // a space: never a valid Idempotency-Key header, so never one of the merchant's keys
    const key = `checkout ${params.id} ${body.attempt_id}`;
    const hash = requestHash(ctx.deps, 'POST', `/checkout/${params.id}/pay`, new TextEncoder().encode(JSON.stringify(body)));
    const outcome = await withIdempotency(ctx.deps, payment.link.row.merchant_id, key, hash, async () => {
      assertLinkPayable(payment.link.row, payment.link.now);
      const giveBack = ctx.limits.admitLinkPayment(params.id, ctx.client);
      let data: Awaited<ReturnType<typeof payLink>>;
      try {
        data = await payLink(ctx.deps, payment, body, { client: ctx.client, baseUrl: ctx.baseUrl });
      } catch (e) {
        giveBack();
        throw e;
      }
      const out = { success: true as const, message: paymentMessage(data), data };
      if (ctx.deps.validateResponses) {
        // loaded only where answers are checked (tests): the contract's schemas are built on demand
        const [{ envelope }, { checkoutPayment }] = await Promise.all([import('../../contract/common.js'), import('../../contract/resources/checkout.js')]);
        envelope(checkoutPayment).parse(out);
      }
      const text = JSON.stringify(out);
      return { value: text, keep: { status: 201, body: text } };
    });
    const headers = { 'content-type': JSON_TYPE, 'Cache-Control': 'no-store' };
    if (outcome.replayed) return new RawAnswer(outcome.response.status, { ...headers, 'Idempotent-Replayed': 'true' }, outcome.response.body);
    return new RawAnswer(201, headers, outcome.value);
  },

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
