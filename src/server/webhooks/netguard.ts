import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Mode } from '../services/context.js';

/**
 * Outbound address policy for webhook deliveries (SSRF protection).
 *
 * Everywhere: cloud metadata and instance-service addresses (169.254.169.254, AWS's
 * fd00:ec2::/32, Alibaba's 100.100.100.200, Azure's WireServer 168.63.129.16, Oracle's
 * 192.0.0.192) and link-local (169.254/16, fe80::/10) are refused.
 * production: also loopback, private (RFC 1918, fc00::/7), shared/CGNAT (100.64/10), unspecified
 * (0.0.0.0/8, ::), multicast and reserved ranges, the whole local-use NAT64 block, and every
 * other special-purpose range of IANA's registries (ipaddr.js `range()`: discard-only 100::/64,
 * documentation, benchmarking, Teredo, ORCHID …).
 * sandbox: developers test against localhost and their LAN, so only the first group is refused.
 * An IPv4 range is refused in its IPv6 spellings too: mapped (::ffff:a.b.c.d), compatible
 * (::a.b.c.d), SIIT's IPv4-translated (::ffff:0:a.b.c.d, RFC 6145), NAT64 (64:ff9b::/96),
 * local-use NAT64 (64:ff9b:1::/48, RFC 8215, whose operator picks the prefix length: the
 * IPv4 address is read at each place RFC 6052 allows) and 6to4 (2002::/16).
 *
 * The ranges are node's own `net.BlockList` (one per reason, asked in order, so the most
 * specific reason is the one named). The check runs on the resolved address at connect time
 * (`guardedLookup` is given to the socket), so a name that resolves to a public address at
 * registration and to a private one later (DNS rebinding) is still refused.
 */

type Reason = 'cloud metadata' | 'link-local' | 'loopback' | 'unspecified' | 'private' | 'shared (CGNAT)' | 'multicast' | 'reserved';

/** [CIDR, reason]; a reason's ranges are asked in this order of reasons, first match wins. */
type Rule = readonly [cidr: string, reason: Reason];

const EVERYWHERE: readonly Rule[] = [
  ['169.254.169.254/32', 'cloud metadata'], // AWS, GCP, Azure, DigitalOcean, OpenStack …
  ['100.100.100.200/32', 'cloud metadata'], // Alibaba Cloud
  ['168.63.129.16/32', 'cloud metadata'], // Azure WireServer
  ['192.0.0.192/32', 'cloud metadata'], // Oracle Cloud
  ['fd00:ec2::/32', 'cloud metadata'], // AWS over IPv6: IMDS ::254, DNS ::253, NTP ::123
  ['169.254.0.0/16', 'link-local'],
  ['fe80::/10', 'link-local'],
];

const PRODUCTION_ONLY: readonly Rule[] = [
  ['127.0.0.0/8', 'loopback'],
  ['::1/128', 'loopback'],
  ['0.0.0.0/8', 'unspecified'],
  ['::/128', 'unspecified'],
  ['10.0.0.0/8', 'private'],
  ['172.16.0.0/12', 'private'],
  ['192.168.0.0/16', 'private'],
  ['fc00::/7', 'private'],
  ['fec0::/10', 'private'],
  ['100.64.0.0/10', 'shared (CGNAT)'],
  ['224.0.0.0/4', 'multicast'],
  ['ff00::/8', 'multicast'],
  ['192.0.0.0/24', 'reserved'],
  ['198.18.0.0/15', 'reserved'],
  ['240.0.0.0/4', 'reserved'],
];

const ORDER: readonly Reason[] = ['cloud metadata', 'link-local', 'loopback', 'unspecified', 'private', 'shared (CGNAT)', 'multicast', 'reserved'];

/**
 * The IPv6 spellings of an IPv4 subnet at fixed places: mapped, compatible, SIIT (RFC 6145),
 * NAT64's well-known prefix (RFC 6052) and 6to4 (RFC 3056). Local-use NAT64 has no fixed
 * place (localNat64V4).
 */
function v6Forms(v4: string, bits: number): [string, number][] {
  const [a, b, c, d] = v4.split('.').map(Number) as [number, number, number, number];
  const hex = (hi: number, lo: number) => ((hi << 8) | lo).toString(16);
  return [
    [`::ffff:${v4}`, 96 + bits],
    [`::${v4}`, 96 + bits],
    [`::ffff:0:${v4}`, 96 + bits],
    [`64:ff9b::${v4}`, 96 + bits],
    [`2002:${hex(a, b)}:${hex(c, d)}::`, 16 + bits],
  ];
}

// parsed on first use: every embedded command loads this module (bench/startup)
let localNat64: [ipaddr.IPv6, number] | undefined;

/**
 * ipaddr.js's reading of an address, from its canonical hex form for IPv6 (the URL parser's):
 * ipaddr.js reads a dotted tail after "::" alone (`::a.b.c.d`, IPv4-compatible) as IPv4-mapped.
 */
function parsed(ip: string): ipaddr.IPv4 | ipaddr.IPv6 {
  return ipaddr.parse(isIP(ip) === 6 ? new URL(`http://[${ip}]/`).hostname.slice(1, -1) : ip);
}

/**
 * The IPv4 addresses an address of the local-use NAT64 block (64:ff9b:1::/48, RFC 8215) may
 * stand for: its operator chooses a prefix of 48, 56, 64 or 96 bits inside the block, and RFC
 * 6052 puts the IPv4 address at a different place for each (skipping bits 64–71). Which one a
 * translator uses cannot be known from here, so each reading is a candidate; none when the
 * address is outside the block.
 */
function localNat64V4(ip: string): string[] {
  const addr = parsed(ip);
  localNat64 ??= ipaddr.IPv6.parseCIDR('64:ff9b:1::/48');
  if (!addr.match(localNat64)) return [];
  const b = addr.toByteArray();
  return [
    [b[6], b[7], b[9], b[10]],
    [b[7], b[9], b[10], b[11]],
    [b[9], b[10], b[11], b[12]],
    [b[12], b[13], b[14], b[15]],
  ].map((octets) => octets.join('.'));
}

/**
 * Production only: the special-purpose range an address is in, by ipaddr.js's copy of IANA's
 * registries, when it is not an ordinary unicast address. A translated spelling (mapped, SIIT,
 * NAT64's well-known prefix, 6to4) is judged by the IPv4 address it carries; the deprecated
 * IPv4-compatible form (::a.b.c.d) reaches nothing and is refused whole.
 */
function specialPurpose(ip: string): string | null {
  const addr = parsed(ip);
  // ipaddr.js's types lag its table (no 'discard'): read the name as a string
  const range: string = addr.range();
  if (addr.kind() === 'ipv6') {
    const b = addr.toByteArray();
    if (range === 'ipv4Mapped' || range === 'rfc6145' || range === 'rfc6052') return specialPurpose(b.slice(12).join('.'));
    if (range === '6to4') return specialPurpose(b.slice(2, 6).join('.'));
    if (range === 'unicast' && b.slice(0, 12).every((x) => x === 0)) return 'special-purpose (IPv4-compatible)';
  }
  if (range === 'unicast') return null;
  return range === 'discard' ? 'discard-only' : `special-purpose (${range})`;
}

type Policy = readonly { reason: Reason; list: BlockList }[];

function policyOf(rules: readonly Rule[]): Policy {
  const lists = new Map<Reason, BlockList>();
  for (const [cidr, reason] of rules) {
    const list = lists.get(reason) ?? new BlockList();
    lists.set(reason, list);
    const [net, bits] = cidr.split('/') as [string, string];
    if (isIP(net) === 4) {
      list.addSubnet(net, Number(bits), 'ipv4');
      for (const [v6, b] of v6Forms(net, Number(bits))) list.addSubnet(v6, b, 'ipv6');
    } else {
      list.addSubnet(net, Number(bits), 'ipv6');
    }
  }
  return ORDER.filter((r) => lists.has(r)).map((reason) => ({ reason, list: lists.get(reason)! }));
}

// Built on first use, not at load: every embedded command loads this module (through the
// webhook services), and building the lists (isIP's first call compiles its IPv6 pattern) would
// add to each command's start-up (`npm run bench:startup` times the embedded read).
let policies: Record<Mode, Policy> | undefined;
function policy(mode: Mode): Policy {
  policies ??= { production: policyOf([...EVERYWHERE, ...PRODUCTION_ONLY]), sandbox: policyOf(EVERYWHERE) };
  return policies[mode];
}

/** Why `ip` may not be called in `mode` ("loopback", "private", ...), or null when it may. */
export function blockedReason(ip: string, mode: Mode): string | null {
  // brackets of a URL host and an IPv6 zone id (fe80::1%eth0) are not part of the address
  const clean = ip.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const fam = isIP(clean);
  if (!fam) return null;
  const type = fam === 4 ? 'ipv4' : 'ipv6';
  const listed = policy(mode).find((p) => p.list.check(clean, type))?.reason;
  if (listed) return listed;
  if (fam === 6) {
    const candidates = localNat64V4(clean);
    if (candidates.length) {
      // what is refused everywhere is refused at any place the IPv4 address may be; production
      // refuses the block as a whole (it exists to reach addresses of the operator's own network)
      for (const v4 of candidates) {
        const reason = policy('sandbox').find((p) => p.list.check(v4, 'ipv4'))?.reason; // the sandbox's policy is the everywhere one
        if (reason) return reason;
      }
      return mode === 'production' ? 'local-use NAT64' : null;
    }
  }
  return mode === 'production' ? specialPurpose(clean) : null;
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
