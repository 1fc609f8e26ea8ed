/** Readiness and errors when the store cannot serve: 503 with Retry-After, never a 500. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PgDb } from '../../src/store/postgres.js';
import { StoreUnavailable, type Db } from '../../src/store/db.js';
import { ForwardingDb } from '../helpers/faulty.js';
import { testEnv, type TestEnv } from '../helpers/server.js';

/** The store the runtime is given: the backend's, or, once cut off, one that cannot be reached. */
class SwitchDb extends ForwardingDb {
  constructor(public current: Db) {
    super();
  }
  protected target(): Db {
    return this.current;
  }
  changeToken() {
    return this.current.changeToken?.();
  }
}

let env: TestEnv;
let store: SwitchDb;
beforeEach(async () => {
  env = await testEnv({ wrapDb: (db) => (store = new SwitchDb(db)) });
});
afterEach(async () => env.close());

describe('health and readiness', () => {
  it('/healthz and /readyz answer 200 without credentials while the store answers', async () => {
    for (const p of ['/healthz', '/readyz']) {
      const res = await env.rt.app.request(p);
      expect(res.status).toBe(200);
    }
  });

  it('a database that cannot be reached: /readyz and requests are 503 with Retry-After, /healthz stays 200', async () => {
    const real = store.current;
    const gone = new PgDb('postgres://nobody@127.0.0.1:1/none', { connectTimeoutMs: 2000 });
    store.current = gone;
    try {
      await expect(gone.get('SELECT 1')).rejects.toBeInstanceOf(StoreUnavailable);
      await expect(gone.tx(async () => 1)).rejects.toBeInstanceOf(StoreUnavailable);
      const ready = await env.rt.app.request('/readyz');
      expect(ready.status).toBe(503);
      expect(ready.headers.get('retry-after')).toBe('1');
      expect((await ready.json()).error).toBe('service_unavailable');
      const r = await env.call('GET', '/v1/merchant');
      expect(r.status).toBe(503);
      expect((await env.rt.app.request('/healthz')).status).toBe(200);
    } finally {
      store.current = real;
      await gone.close();
    }
  });
});
