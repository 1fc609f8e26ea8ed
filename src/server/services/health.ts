import type { ServiceDeps } from './context.js';

/** Whether the store answers (GET /readyz): resolves once it has run a statement, rejects when it cannot. */
export async function storeReady(deps: Pick<ServiceDeps, 'db'>): Promise<void> {
  await deps.db.get('SELECT 1 AS ok');
}
