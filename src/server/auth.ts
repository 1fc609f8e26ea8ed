import { BlockList, isIP } from 'node:net';
import type { AuthKind } from '../contract/endpoint.js';
import { json } from '../store/db.js';
import { ApiError } from './errors.js';
import type { AppDeps, Principal } from './context.js';

const CHALLENGE = { 'WWW-Authenticate': 'Basic realm="mpay", charset="UTF-8"' };

function parseBasic(header: string | undefined): { user: string; pass: string } | null {
  if (!header) return null;
  const m = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header);
  if (!m) return null;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  if (i < 0) return null;
  return { user: decoded.slice(0, i), pass: decoded.slice(i + 1) };
}

export function normalizeIp(ip: string): string {
  return ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip;
}

export function ipAllowed(ip: string, allowed: string[]): boolean {
  if (allowed.length === 0) return true;
  const list = new BlockList();
  for (const entry of allowed) {
    const [addr, bits] = entry.split('/') as [string, string | undefined];
    const type = isIP(addr) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(addr, type);
    else list.addSubnet(addr, Number(bits), type);
  }
  const n = normalizeIp(ip);
  return list.check(n, isIP(n) === 6 ? 'ipv6' : 'ipv4');
}

interface KeyRow {
  id: string;
  merchant_id: string;
  secret_hash: string;
  is_active: number;
  allowed_ips: string;
  clock_offset_ms: number;
}

/**
 * HTTP Basic with public_key:secret_key. The secret is compared in constant time against its
 * keyed hash. 401 for missing or wrong credentials, 403 for an inactive key, an IP outside
 * allowed_ips, or a public key alone where the secret is required.
 */
export async function authenticate(
  deps: AppDeps,
  kind: AuthKind,
  header: string | undefined,
  clientIp: string,
): Promise<Principal> {
  const creds = parseBasic(header);
  if (!creds || !creds.user) {
    throw new ApiError(
      'unauthorized',
      kind === 'public'
        ? 'Missing credentials: send Authorization: Basic base64(<PUBLIC_KEY>:)'
        : 'Missing credentials: send Authorization: Basic base64(<PUBLIC_KEY>:<SECRET_KEY>)',
      undefined,
      CHALLENGE,
    );
  }
  const row = await deps.db.get<KeyRow>(
    `SELECT k.id, k.merchant_id, k.secret_hash, k.is_active, k.allowed_ips, m.clock_offset_ms
       FROM api_keys k JOIN merchants m ON m.id = k.merchant_id WHERE k.public_key = ?`,
    [creds.user],
  );
  // Always spend one hash comparison so unknown keys and wrong secrets take the same time.
  const secretOk = deps.keyring.verifySecret(creds.pass, row?.secret_hash ?? '0'.repeat(64));
  if (!row) throw new ApiError('unauthorized', 'Invalid API key', undefined, CHALLENGE);
  if (creds.pass === '') {
    if (kind === 'secret') {
      throw new ApiError('forbidden', 'This operation needs the secret key: send <PUBLIC_KEY>:<SECRET_KEY>');
    }
  } else if (!secretOk) {
    throw new ApiError('unauthorized', 'Invalid API key', undefined, CHALLENGE);
  }
  if (!row.is_active) throw new ApiError('forbidden', 'This API key is inactive');
  if (!ipAllowed(clientIp, json.from<string[]>(row.allowed_ips, []))) {
    throw new ApiError('forbidden', 'This API key is not allowed from your IP address');
  }
  return { merchantId: row.merchant_id, apiKeyId: row.id, clockOffsetMs: Number(row.clock_offset_ms) };
}
