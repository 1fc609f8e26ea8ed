/**
 * The service: one request pipeline (src/server/pipeline) built from the contract's endpoint
 * table and the pages, served alike by the node:http server (src/server/http.ts), the SDK's
 * in-process transport (src/server/inProcess.ts) and `fetch` / `request` for Web Requests.
 */
import type { AppDeps } from './context.js';
import { createPipeline } from './pipeline/index.js';
import type { Answer, CoreRequest } from './pipeline/request.js';
import { toWebResponse, WebRequest } from './pipeline/web.js';

export interface App {
  /** a request, whoever received it, through the pipeline */
  handle(req: CoreRequest): Promise<Answer>;
  /** a Web Request through the pipeline (a function of its own: it may be passed around unbound) */
  fetch: (req: Request) => Promise<Response>;
  /** a request to a path of this app (http://localhost unless the input names an origin) */
  request: (input: string | Request, init?: RequestInit) => Promise<Response>;
}

export function createApp(deps: AppDeps): App {
  const handle = createPipeline(deps, deps.due);
  const fetch = async (req: Request) => toWebResponse(await handle(new WebRequest(req)));
  return {
    handle,
    fetch,
    request: (input, init) => fetch(input instanceof Request ? input : new Request(/^https?:\/\//.test(input) ? input : `http://localhost${input}`, init)),
  };
}
