import * as z from 'zod';
import { endpoint, type CliPresentation } from '../endpoint.js';
import { listQuery, nonEmpty, timestamp, uuid, qBool } from '../common.js';
import { isIP } from 'node:net';

/** An IPv4/IPv6 address or CIDR range (allowed_ips; also the server's --trust-proxy list). */
export const ipOrCidr = z.string().refine(
  (v) => {
    const [ip, bits, extra] = v.split('/');
    if (extra !== undefined || !ip) return false;
    const fam = isIP(ip);
    if (!fam) return false;
    if (bits === undefined) return true;
    if (!/^\d{1,3}$/.test(bits)) return false;
    return Number(bits) <= (fam === 4 ? 32 : 128);
  },
  { error: 'must be an IPv4/IPv6 address or CIDR, e.g. 203.0.113.7 or 10.0.0.0/8' },
);

export const apiKey = z.object({
  id: uuid(),
  name: z.string(),
  public_key: z.string(),
  secret_key: z.string().optional().describe('returned only in the creation response, once'),
  is_active: z.boolean(),
  allowed_ips: z.array(z.string()),
  created_at: timestamp(),
});
export type ApiKey = z.infer<typeof apiKey>;

export const apiKeyCreate = z.strictObject({
  name: nonEmpty(100),
  allowed_ips: z.array(ipOrCidr).max(50).optional(),
});

/** How the CLI presents this resource (src/contract/presentation.ts). */
export const apiKeyPresentation: CliPresentation = {
  groups: {
    keys: 'API keys: create, list and revoke key pairs (pk_/sk_)',
  },
  fields: {
    allowed_ips: 'IPs or CIDRs the key may be used from (empty: any)',
    is_active: 'only active (true) or revoked (false) keys',
  },
};

export const apiKeyEndpoints = [
  endpoint({
    id: 'apiKeys.create',
    method: 'POST',
    path: '/v1/api-keys',
    summary: 'Generate a public/secret key pair',
    auth: 'secret',
    body: apiKeyCreate,
    response: apiKey,
    status: 201,
    message: 'API key created',
    tag: 'API keys',
    cli: {
      command: ['keys', 'create'],
      example: 'mpay keys create --name ci-runner --allowed-ips 203.0.113.7',
      columns: ['id', 'name', 'public_key', 'secret_key', 'is_active', 'created_at'],
    },
  }),
  endpoint({
    id: 'apiKeys.list',
    method: 'GET',
    path: '/v1/api-keys',
    summary: 'List the merchant API keys',
    auth: 'secret',
    query: listQuery({ is_active: qBool().optional() }),
    response: apiKey,
    list: true,
    message: 'API keys retrieved',
    tag: 'API keys',
    cli: {
      command: ['keys', 'list'],
      example: 'mpay keys list --is-active true -o json',
      columns: ['id', 'name', 'public_key', 'is_active', 'allowed_ips', 'created_at'],
      importance: ['id', 'name', 'public_key', 'is_active', 'created_at', 'allowed_ips'],
    },
  }),
  endpoint({
    id: 'apiKeys.revoke',
    method: 'DELETE',
    path: '/v1/api-keys/{id}',
    summary: 'Revoke (deactivate) an API key',
    auth: 'secret',
    response: apiKey,
    status: 200,
    message: 'API key revoked',
    tag: 'API keys',
    cli: {
      command: ['keys', 'revoke'],
      example: 'mpay keys revoke 0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f --yes',
      columns: ['id', 'name', 'public_key', 'is_active'],
    },
  }),
] as const;
