import type { AppDeps, Principal, RequestContext } from '../context.js';
import type { Db } from '../../store/db.js';
import type { Limits } from './limits.js';
import type { CoreRequest } from './request.js';

/**
 * A request's context, as a class: an object literal with getters would give each request its
 * own hidden class in V8 (test/structure/accessors.test.ts keeps them out of src/server).
 */
export class PipelineContext implements RequestContext {
  db: Db;
  readonly merchantId: string;
  readonly apiKeyId: string;
  readonly walletId: string | undefined;
  status: number | undefined = undefined;
  message: string | undefined = undefined;
  /** the merchant's clock (an own function, as in serviceContext: it works unbound) */
  readonly now: () => Date;

  constructor(
    readonly deps: AppDeps,
    principal: Principal,
    readonly requestId: string,
    readonly clientIp: string,
    readonly client: string,
    readonly request: CoreRequest,
    readonly limits: Limits,
  ) {
    this.db = deps.db;
    this.merchantId = principal.merchantId;
    this.apiKeyId = principal.apiKeyId;
    this.walletId = principal.walletId;
    const offset = principal.clockOffsetMs;
    this.now = () => new Date(deps.clock.now().getTime() + offset);
  }

  get baseUrl(): string {
    return this.deps.publicBaseUrl ?? this.request.origin();
  }
}
