import type { AuthKind } from '../../contract/endpoint.js';
import { AuthCache, authenticate, WrongSecretError } from '../auth.js';
import type { AppDeps, Principal } from '../context.js';
import { ApiError } from '../errors.js';
import type { Limits } from './limits.js';

type Authenticated = { principal: Principal; token: string | undefined };

/**
 * The authentication stage: the request's key checked (src/server/auth.ts) against the keys
 * read by this app (`AuthCache`, valid while the store's change token reads the same), and a
 * failure counted against the client's and the key's budgets, which may turn its 401 into a 429.
 * A key the cache holds is checked at once, with no promise in between; `token` is then the
 * change token the check saw, for the read memo.
 */
export class Authenticator {
  private readonly cache = new AuthCache();

  constructor(
    private readonly deps: AppDeps,
    private readonly limits: Limits,
  ) {}

  authenticate(kind: AuthKind, authorization: string | undefined, clientIp: string, client: string): Authenticated | Promise<Authenticated> {
    let token: string | undefined;
    try {
      token = this.deps.db.changeToken?.();
      const auth = authenticate(this.deps, kind, authorization, clientIp, this.cache, token);
      if (auth instanceof Promise) return auth.then((principal) => ({ principal, token: undefined }), (err) => this.failed(err, client));
      return { principal: auth, token };
    } catch (err) {
      return this.failed(err, client);
    }
  }

  private failed(err: unknown, client: string): never {
    if (err instanceof ApiError && err.status === 401) throw this.limits.authFailed(err, client, err instanceof WrongSecretError ? err.publicKey : undefined);
    throw err;
  }
}
