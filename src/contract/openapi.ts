import * as z from 'zod';
import { endpoints, type AnyEndpoint } from './index.js';
import { errorEnvelope, pagination } from './common.js';
import { ERROR_STATUS } from './errors.js';

function schema(s: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const out = z.toJSONSchema(s, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;
  delete out.$schema;
  return out;
}

/**
 * OpenAPI 3.1 document generated from the endpoint table, without its `servers` (the server
 * adds the URL it is reached at). `sandbox: false` (a production server) leaves out the
 * sandbox-only operations, which do not exist there. It takes a while to make: a server
 * makes it once.
 */
export function buildOpenApi(opts: { sandbox?: boolean } = {}): Record<string, unknown> {
  const sandbox = opts.sandbox ?? true;
  const paths: Record<string, Record<string, unknown>> = {};
  for (const e of endpoints as readonly AnyEndpoint[]) {
    if (e.sandbox && !sandbox) continue;
    const item = (paths[e.path] ??= {});
    const parameters: unknown[] = [];
    for (const m of e.path.matchAll(/\{([a-z_]+)\}/gi)) {
      parameters.push({ name: m[1], in: 'path', required: true, schema: { type: 'string' } });
    }
    if (e.query) {
      const js = schema(e.query, 'input') as { properties?: Record<string, unknown>; required?: string[] };
      for (const [name, s] of Object.entries(js.properties ?? {})) {
        parameters.push({ name, in: 'query', required: js.required?.includes(name) ?? false, schema: s });
      }
    }
    const data = schema(e.response, 'output');
    const success =
      e.list || e.pages
        ? { type: 'object', required: ['success', 'message', 'data', 'pagination'], properties: { success: { const: true }, message: { type: 'string' }, data: e.list ? { type: 'array', items: data } : data, pagination: schema(pagination, 'output') } }
        : { type: 'object', required: ['success', 'message', 'data'], properties: { success: { const: true }, message: { type: 'string' }, data } };
    const status = String(e.status ?? (e.method === 'POST' ? 201 : 200));
    const content = e.raw
      ? { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } }
      : { 'application/json': { schema: success } };
    const op: Record<string, unknown> = {
      operationId: e.id,
      summary: e.summary,
      tags: [e.tag],
      parameters,
      security: e.auth === 'none' ? [] : [{ basic: [] }],
      responses: {
        [status]: { description: e.message, content },
        default: { description: 'Error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
      },
    };
    if (e.sandbox) op['x-sandbox-only'] = true;
    if (e.body) {
      op.requestBody = { required: true, content: { 'application/json': { schema: schema(e.body, 'input') } } };
    } else if (e.multipart) {
      op.requestBody = {
        required: true,
        content: { 'multipart/form-data': { schema: { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary' } } } } },
      };
    }
    item[e.method.toLowerCase()] = op;
  }
  return {
    openapi: '3.1.0',
    info: { title: 'mpay — merchant payments API', version: '1.0.0' },
    paths,
    components: {
      securitySchemes: { basic: { type: 'http', scheme: 'basic', description: 'public_key:secret_key' } },
      schemas: { Error: schema(errorEnvelope, 'output') },
    },
    'x-error-codes': ERROR_STATUS,
  };
}
