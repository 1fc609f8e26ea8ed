import { timingSafeEqual } from 'node:crypto';
import { BlockList, isIP } from 'node:net';
import type { AuthKind } from '../contract/endpoint.js';
import { json } from '../store/db.js';
import { ApiError } from './errors.js';
import { clockOffset, type AppDeps, type Principal } from './context.js';

const CHALLENGE = { challenge: 'Basic realm="mpay", charset="UTF-8"' };

/** A public key as mpay makes them (services/merchants.ts generateKeyPair). */
const PUBLIC_KEY_RE = /^pk_(?:test|live)_[0-9a-f]{32}$/;

/**
 * The 401 of a wrong secret for a public key that exists: the one failure the per-key limits
 * count (an unknown or malformed key is kept nowhere).
 */
export class WrongSecretError extends ApiError {
  constructor(readonly publicKey: string) {
    super('unauthorized', 'Invalid API key', undefined, CHALLENGE);
  }
}

function parseBasicHeader(header: string): { user: string; pass: string } | null {
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

/** The addresses and CIDR ranges of allowed_ips as a BlockList; null when any address may call. */
export function blockListOf(allowed: string[]): BlockList | null {
  if (allowed.length === 0) return null;
  const list = new BlockList();
  for (const entry of allowed) {
    const [addr, bits] = entry.split('/') as [string, string | undefined];
    const type = isIP(addr) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(addr, type);
    else list.addSubnet(addr, Number(bits), type);
  }
  return list;
}

export function ipIn(list: BlockList | null, ip: string): boolean {
  if (!list) return true;
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
  wallet_id: string | null;
}

interface CachedKey {
  row: KeyRow;
  allowed: BlockList | null;
  /** the secret this process last verified against row.secret_hash (memory only) */
  verified: Buffer | null;
}

/**
 * API keys read by this process, valid while the store's change token stays the same: any
 * commit — on this connection or by another process on the same file — clears it, so a
 * revoked key, a new allowed_ips or a moved merchant clock is seen by the next request.
 * Stores that cannot tell (PostgreSQL, where replicas write) give no token and are read
 * every time.
 */
export class AuthCache {
  private token: string | undefined;
  private readonly keys = new Map<string, CachedKey>();
  /** Authorization headers parsed lately (clients send the same one with every request) */
  private readonly headers = new Map<string, { user: string; pass: string } | null>();

  /** The credentials of an Authorization header (Basic), parsed once per header seen lately. */
  parseBasic(header: string | undefined): { user: string; pass: string } | null {
    if (!header) return null;
    const known = this.headers.get(header);
    if (known !== undefined) return known;
    const creds = parseBasicHeader(header);
    if (header.length <= 256) {
      if (this.headers.size >= 1024) this.headers.clear();
      this.headers.set(header, creds);
    }
    return creds;
  }

  /** The cached key for a public key, if the store has not changed since it was read. */
  lookup(token: string, publicKey: string): CachedKey | undefined {
    if (token !== this.token) {
      this.keys.clear();
      this.token = token;
      return undefined;
    }
    return this.keys.get(publicKey);
  }

  remember(token: string, publicKey: string, row: KeyRow): CachedKey {
    const entry = keyEntry(row);
    if (token !== this.token) return entry;
    if (this.keys.size >= 10_000) this.keys.clear();
    this.keys.set(publicKey, entry);
    return entry;
  }
}

function keyEntry(row: KeyRow): CachedKey {
  return { row, allowed: blockListOf(json.from<string[]>(row.allowed_ips, [])), verified: null };
}

function sameSecret(verified: Buffer | null, pass: string): boolean {
  if (!verified) return false;
  const b = Buffer.from(pass, 'utf8');
  return b.length === verified.length && timingSafeEqual(b, verified);
}

/**
 * Keys carry their mode in their prefix (`pk_test_`/`sk_test_` made by the sandbox,
 * `pk_live_`/`sk_live_` by production): a key of the other mode is refused before any lookup, so
 * a database created in sandbox mode gives no access to a production server, and a live key
 * never works against the sandbox.
 */
function refuseOtherMode(mode: AppDeps['mode'], publicKey: string, secret: string): void {
  const wrong = mode === 'production' ? 'test' : 'live';
  if (!publicKey.startsWith(`pk_${wrong}_`) && !secret.startsWith(`sk_${wrong}_`)) return;
  throw new ApiError(
    'unauthorized',
    mode === 'production'
      ? 'This is a test key (pk_test_/sk_test_): a production server accepts only live keys (pk_live_/sk_live_), made by mpay admin merchants create --production'
      : 'This is a live key (pk_live_/sk_live_): the sandbox accepts only test keys (pk_test_/sk_test_)',
    undefined,
    CHALLENGE,
  );
}

/**
 * HTTP Basic with public_key:secret_key. The secret is compared in constant time against its
 * keyed hash. 401 for missing or wrong credentials, 403 for an inactive key, an IP outside
 * allowed_ips, or a public key alone where the secret is required.
 *
 * A key the cache holds (the store unchanged since it was read) is checked at once, with no
 * promise in between (the request path awaits only when the key must be read). `token` is the
 * store's change token (undefined: none, the cache is not used), read by the caller in the same
 * synchronous run as this call (the request path reads it once for the cache and its read memo).
 */
export function authenticate(
  deps: AppDeps,
  kind: AuthKind,
  header: string | undefined,
  clientIp: string,
  cache: AuthCache,
  token: string | undefined,
): Principal | Promise<Principal> {
  const creds = cache.parseBasic(header);
  if (!creds?.user) {
    throw new ApiError(
      'unauthorized',
      kind === 'public'
        ? 'Missing credentials: send Authorization: Basic base64(<PUBLIC_KEY>:)'
        : 'Missing credentials: send Authorization: Basic base64(<PUBLIC_KEY>:<SECRET_KEY>)',
      undefined,
      CHALLENGE,
    );
  }
  refuseOtherMode(deps.mode, creds.user, creds.pass);
  if (!PUBLIC_KEY_RE.test(creds.user)) {
    throw new ApiError('unauthorized', 'Invalid API key: a public key is pk_test_ or pk_live_ followed by 32 hexadecimal digits', undefined, CHALLENGE);
  }
  // the change token names the state the read below sees: that read runs at once (no await
  // between it and the token's read)
  const cached = token === undefined ? undefined : cache.lookup(token, creds.user);
  if (cached) return check(deps, kind, creds, cached, clientIp);
  return deps.db
    .get<KeyRow>(
      `SELECT k.id, k.merchant_id, k.secret_hash, k.is_active, k.allowed_ips, m.clock_offset_ms, w.id AS wallet_id
         FROM api_keys k JOIN merchants m ON m.id = k.merchant_id
         LEFT JOIN wallets w ON w.owner_type = 'merchant' AND w.owner_id = k.merchant_id AND w.currency = 'BRL'
        WHERE k.public_key = ?`,
      [creds.user],
    )
    .then((row) => check(deps, kind, creds, row && (token === undefined ? keyEntry(row) : cache.remember(token, creds.user, row)), clientIp));
}

function check(deps: AppDeps, kind: AuthKind, creds: { user: string; pass: string }, entry: CachedKey | undefined, clientIp: string): Principal {
  // Always spend one hash comparison so unknown keys and wrong secrets take the same time
  // (a secret equal to the one already verified for this key is compared in constant time).
  const secretOk = sameSecret(entry?.verified ?? null, creds.pass) || deps.keyring.verifySecret(creds.pass, entry?.row.secret_hash ?? '0'.repeat(64));
  if (!entry) throw new ApiError('unauthorized', 'Invalid API key', undefined, CHALLENGE);
  const { row } = entry;
  if (creds.pass === '') {
    if (kind === 'secret') {
      throw new ApiError('forbidden', 'This operation needs the secret key: send <PUBLIC_KEY>:<SECRET_KEY>');
    }
  } else if (!secretOk) {
    throw new WrongSecretError(creds.user);
  } else if (!entry.verified) entry.verified = Buffer.from(creds.pass, 'utf8');
  if (!row.is_active) throw new ApiError('forbidden', 'This API key is inactive');
  if (!ipIn(entry.allowed, clientIp)) {
    throw new ApiError('forbidden', 'This API key is not allowed from your IP address');
  }
  return {
    merchantId: row.merchant_id,
    apiKeyId: row.id,
    clockOffsetMs: clockOffset(deps, row.clock_offset_ms),
    credential: creds.pass === '' ? 'public' : 'secret',
    walletId: row.wallet_id ?? undefined,
  };
}
