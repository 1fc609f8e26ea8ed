import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';
import { isIP } from 'node:net';
import type { Mode } from '../context.js';

/**
 * Outbound address policy for webhook deliveries (SSRF protection).
 *
 * production: loopback, private (RFC 1918, fc00::/7), link-local (169.254/16, fe80::/10, which
 * holds the cloud metadata address 169.254.169.254), shared/CGNAT (100.64/10), unspecified
 * (0.0.0.0/8, ::), multicast and reserved ranges are refused, including IPv4 addresses
 * embedded in IPv6 (::ffff:a.b.c.d, 64:ff9b::/96, 2002::/16).
 * sandbox: developers test against localhost and their LAN, so only link-local (and with it
 * the metadata address) is refused.
 *
 * The check runs on the resolved address at connect time (`guardedLookup` is given to the
 * socket), so a name that resolves to a public address at registration and to a private one
 * later (DNS rebinding) is still refused.
 */

interface Range {
  bytes: number[];
  bits: number;
  reason: string;
}

function v4bytes(ip: string): number[] {
  return ip.split('.').map(Number);
}

function v6bytes(ip: string): number[] {
  let s = ip.toLowerCase();
  const pct = s.indexOf('%');
  if (pct >= 0) s = s.slice(0, pct);
  let tail: number[] = [];
  const lastColon = s.lastIndexOf(':');
  const maybeV4 = s.slice(lastColon + 1);
  if (maybeV4.includes('.')) {
    tail = v4bytes(maybeV4);
    s = s.slice(0, lastColon + 1) + '0:0';
  }
  const [head, rest] = s.split('::') as [string, string | undefined];
  const parse = (part: string) => (part ? part.split(':').filter((x) => x !== '').map((h) => parseInt(h, 16)) : []);
  const h = parse(head);
  const r = rest === undefined ? [] : parse(rest);
  const groups = rest === undefined ? h : [...h, ...new Array(8 - h.length - r.length).fill(0), ...r];
  const out: number[] = [];
  for (const g of groups) out.push((g >> 8) & 0xff, g & 0xff);
  if (tail.length) out.splice(12, 4, ...tail);
  return out;
}

const cidr = (net: string, bits: number, reason: string): Range => ({
  bytes: isIP(net) === 4 ? v4bytes(net) : v6bytes(net),
  bits,
  reason,
});

const V4_PRODUCTION: Range[] = [
  cidr('169.254.169.254', 32, 'cloud metadata'),
  cidr('0.0.0.0', 8, 'unspecified'),
  cidr('10.0.0.0', 8, 'private'),
  cidr('100.64.0.0', 10, 'shared (CGNAT)'),
  cidr('127.0.0.0', 8, 'loopback'),
  cidr('169.254.0.0', 16, 'link-local'),
  cidr('172.16.0.0', 12, 'private'),
  cidr('192.0.0.0', 24, 'reserved'),
  cidr('192.168.0.0', 16, 'private'),
  cidr('198.18.0.0', 15, 'reserved'),
  cidr('224.0.0.0', 4, 'multicast'),
  cidr('240.0.0.0', 4, 'reserved'),
];
const V6_PRODUCTION: Range[] = [
  cidr('::', 128, 'unspecified'),
  cidr('::1', 128, 'loopback'),
  cidr('fc00::', 7, 'private'),
  cidr('fe80::', 10, 'link-local'),
  cidr('fec0::', 10, 'private'),
  cidr('ff00::', 8, 'multicast'),
];
const V4_SANDBOX: Range[] = [cidr('169.254.169.254', 32, 'cloud metadata'), cidr('169.254.0.0', 16, 'link-local')];
const V6_SANDBOX: Range[] = [cidr('fe80::', 10, 'link-local')];

function inRange(bytes: number[], r: Range): boolean {
  if (bytes.length !== r.bytes.length) return false;
  let bits = r.bits;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if (((bytes[i] ?? 0) & mask) !== ((r.bytes[i] ?? 0) & mask)) return false;
  }
  return true;
}

/** The IPv4 address carried inside an IPv6 one (mapped, compatible, NAT64, 6to4), if any. */
function embeddedV4(b: number[]): number[] | null {
  const zero = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  if (zero(0, 10) && b[10] === 0xff && b[11] === 0xff) return b.slice(12, 16);
  if (zero(0, 12) && !zero(12, 16) && !(zero(12, 15) && b[15] === 1)) return b.slice(12, 16);
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zero(4, 12)) return b.slice(12, 16);
  if (b[0] === 0x20 && b[1] === 0x02) return b.slice(2, 6);
  return null;
}

/** Why `ip` may not be called in `mode` ("loopback", "private", ...), or null when it may. */
export function blockedReason(ip: string, mode: Mode): string | null {
  const fam = isIP(ip.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  if (!fam) return null;
  const clean = ip.replace(/^\[|\]$/g, '');
  const v4 = mode === 'production' ? V4_PRODUCTION : V4_SANDBOX;
  const v6 = mode === 'production' ? V6_PRODUCTION : V6_SANDBOX;
  if (fam === 4) return v4.find((r) => inRange(v4bytes(clean), r))?.reason ?? null;
  const b = v6bytes(clean);
  const inner = embeddedV4(b);
  if (inner) {
    const r = v4.find((x) => inRange(inner, x));
    if (r) return r.reason;
  }
  return v6.find((r) => inRange(b, r))?.reason ?? null;
}

export class BlockedAddressError extends Error {
  readonly code = 'EADDRBLOCKED';
  constructor(host: string, address: string, reason: string) {
    super(
      host === address
        ? `${address} is a ${reason} address; webhooks may not be sent there`
        : `${host} resolves to ${address}, a ${reason} address; webhooks may not be sent there`,
    );
  }
}

export type Resolver = (
  hostname: string,
  options: LookupAllOptions,
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

export const systemResolver: Resolver = (h, o, cb) => dnsLookup(h, o, cb);

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net/tls sockets that resolves with `resolver` and refuses the connection when
 * any resolved address is blocked for `mode`.
 */
export function guardedLookup(mode: Mode, resolver: Resolver = systemResolver) {
  return (hostname: string, options: LookupOneOptions | LookupAllOptions | number, callback: LookupCallback): void => {
    const opts = typeof options === 'number' ? { family: options } : (options ?? {});
    resolver(hostname, { ...opts, all: true }, (err, addresses) => {
      if (err) return callback(err, '');
      if (!addresses.length) {
        const e = Object.assign(new Error(`${hostname} did not resolve to any address`), { code: 'ENOTFOUND' });
        return callback(e, '');
      }
      for (const a of addresses) {
        const reason = blockedReason(a.address, mode);
        if (reason) return callback(new BlockedAddressError(hostname, a.address, reason), '');
      }
      if ((opts as LookupAllOptions).all) return callback(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}

/** The host of a URL without IPv6 brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/** A blocked IP literal in the URL's host (sockets do not call lookup for those). */
export function literalBlocked(url: URL, mode: Mode): BlockedAddressError | null {
  const host = hostOf(url);
  if (!isIP(host)) return null;
  const reason = blockedReason(host, mode);
  return reason ? new BlockedAddressError(host, host, reason) : null;
}

/**
 * Registration-time check: the URL's host, or every address its name resolves to now, must be
 * allowed. A name that does not resolve (within 3 s) is accepted (DNS may not be published
 * yet); the connect-time check still applies to every delivery.
 */
export async function checkTarget(url: URL, mode: Mode, resolver: Resolver = systemResolver): Promise<BlockedAddressError | null> {
  const lit = literalBlocked(url, mode);
  if (lit || isIP(hostOf(url))) return lit;
  const host = hostOf(url);
  // a slow resolver must not hold the request: after 3 s the name counts as not resolving yet
  const addresses = await new Promise<LookupAddress[]>((res) => {
    const t = setTimeout(() => res([]), 3_000);
    resolver(host, { all: true }, (err, a) => {
      clearTimeout(t);
      res(err ? [] : a);
    });
  });
  for (const a of addresses) {
    const reason = blockedReason(a.address, mode);
    if (reason) return new BlockedAddressError(host, a.address, reason);
  }
  return null;
}
