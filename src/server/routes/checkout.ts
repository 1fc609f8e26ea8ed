/**
 * The hosted checkout: GET /checkout/{id} (the page, a raw route), its assets under
 * /checkout/assets/, and the public pay and status operations of the endpoint table. The page
 * module (and the QR code library behind PIX) are loaded on first use only.
 */
import type { Hono } from 'hono';
import type { checkoutEndpoints } from '../../contract/resources/checkout.js';
import type { AppDeps, AppEnv, Handlers, RequestContext } from '../context.js';
import { ApiError } from '../errors.js';
import { UUID_RE } from '../../domain/ids.js';


/** A cross-site request to the public operations is refused: the page is same-origin with them. */
function assertSameOrigin(ctx: RequestContext): void {
  const site = ctx.req.headers.get('sec-fetch-site');
  const origin = ctx.req.headers.get('origin');
  const own = new Set([new URL(ctx.baseUrl).origin, new URL(ctx.req.url).origin]);
  if (site === 'cross-site' || (origin !== null && !own.has(origin))) {
    throw new ApiError('forbidden', 'Checkout operations are only accepted from the checkout page itself');
  }
}

export const checkoutHandlers: Handlers<typeof checkoutEndpoints> = {
  'checkout.pay': async (ctx, { params, body }) => {
    const { payLink } = await import('../services/checkout.js');
    assertSameOrigin(ctx);
    // the client's pay budget was spent by the pipeline before the body was read (takePublicBodyToken)
    return payLink(ctx.deps, params.id, body, { client: ctx.client, baseUrl: ctx.baseUrl });
  },
  'checkout.chargeStatus': async (ctx, { params }) => {
    const { linkChargeStatus, takeCheckoutToken } = await import('../services/checkout.js');
    takeCheckoutToken(ctx.deps, 'pollPerIp', ctx.client);
    return linkChargeStatus(ctx.deps, params.id, params.charge_id);
  },
};

function htmlResponse(r: { status: number; html: string; headers: Record<string, string> }, head: boolean): Response {
  return new Response(head ? null : r.html, { status: r.status, headers: r.headers });
}

export function checkoutRoutes(app: Hono<AppEnv>, deps: AppDeps): void {
  app.get('/checkout/assets/:name', async (c) => {
    const { ASSETS } = await import('../checkout/assets.js');
    const a = ASSETS.get(c.req.param('name'));
    const common = { 'X-Content-Type-Options': 'nosniff', 'Cross-Origin-Resource-Policy': 'same-origin' };
    if (!a) return new Response('Not found\n', { status: 404, headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', ...common } });
    return new Response(c.req.method === 'HEAD' ? null : a.body, {
      status: 200,
      headers: { 'Content-Type': a.type, 'Cache-Control': 'public, max-age=31536000, immutable', ETag: `"${a.name}"`, ...common },
    });
  });

  app.get('/checkout/:id', async (c) => {
    const { renderCheckoutPage, renderStatePage } = await import('../checkout/page.js');
    const { loadPublicLink } = await import('../services/checkout.js');
    const head = c.req.method === 'HEAD';
    const id = c.req.param('id');
    const link = UUID_RE.test(id) ? await loadPublicLink(deps, id.toLowerCase()) : null;
    if (!link) return htmlResponse(renderStatePage('not_found'), head);
    if (link.status !== 'active') return htmlResponse(renderStatePage(link.status, link), head);
    return htmlResponse(renderCheckoutPage(link, { sandbox: deps.mode === 'sandbox' }), head);
  });
}
