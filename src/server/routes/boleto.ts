/**
 * The printable boleto, GET /boleto/{id}: public like the hosted checkout (the charge id is the
 * capability). An id that is not a boleto's — unknown, malformed, a charge of another method,
 * any other resource's — gets the one not-found page. The page module loads on first use.
 */
import { UUID_RE } from '../../domain/ids.js';
import type { PageRoute } from './index.js';

export const boletoPages: readonly PageRoute[] = [
  {
    method: 'GET',
    path: '/boleto/{id}',
    handle: async ({ deps, params }) => {
      const { renderBoletoPage, renderBoletoState } = await import('../checkout/boletoPage.js');
      const { loadPrintableBoleto } = await import('../services/charges/boleto.js');
      const id = params.id!;
      const boleto = UUID_RE.test(id) ? await loadPrintableBoleto(deps, id.toLowerCase()) : null;
      const r = boleto ? renderBoletoPage(boleto, { sandbox: deps.mode === 'sandbox' }) : renderBoletoState('not_found');
      return { status: r.status, headers: { ...r.headers }, body: r.html };
    },
  },
];
