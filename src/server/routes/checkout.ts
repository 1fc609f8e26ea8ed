/**
 * The hosted checkout: GET /checkout/{id} (the page, a raw route), its assets under
 * /checkout/assets/, and the public pay and status operations of the endpoint table. The page
 * module (and the QR code library behind PIX) are loaded on first use only.
 */
import type { Hono } from 'hono';
import type { checkoutEndpoints } from '../../contract/resources/checkout.js';
import type { AppDeps, AppEnv, Handlers } from '../context.js';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const checkoutHandlers: Handlers<typeof checkoutEndpoints> = {
  'checkout.pay': async (ctx, { params, body }) => {
    const { payLink } = await import('../services/checkout.js');
    return payLink(ctx, params.id!, body);
  },
  'checkout.chargeStatus': async (ctx, { params }) => {
    const { linkChargeStatus } = await import('../services/checkout.js');
    return linkChargeStatus(ctx, params.id!, params.charge_id!);
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
