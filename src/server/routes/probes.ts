/** The pages a load balancer and a client generator read: health, readiness, the OpenAPI document. */
import type { PageRoute } from './index.js';
import { storeReady } from '../services/health.js';

const json = (value: unknown) => ({ status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(value) });

export const probePages: readonly PageRoute[] = [
  { method: 'GET', path: '/healthz', handle: async () => json({ success: true, message: 'ok', data: { status: 'ok' } }) },
  {
    method: 'GET',
    path: '/readyz',
    handle: async ({ deps }) => {
      await storeReady(deps);
      return json({ success: true, message: 'ready', data: { status: 'ready' } });
    },
  },
  {
    method: 'GET',
    path: '/openapi.json',
    handle: async ({ deps, origin }) => {
      let doc = deps.caches.openapi.get('document');
      if (!doc) {
        // the whole contract's schemas, built only for this page
        const { buildOpenApi } = await import('../../contract/openapi.js');
        deps.caches.openapi.set('document', (doc = buildOpenApi({ sandbox: deps.mode !== 'production' })));
      }
      return json({ ...doc, servers: [{ url: deps.publicBaseUrl ?? origin() }] });
    },
  },
];
