import { isIP, type BlockList } from 'node:net';
import { blockListOf, ipIn, normalizeIp } from '../auth.js';
import { clientOf } from '../rateLimit.js';
import type { CoreRequest } from './request.js';

/**
 * The address of one X-Forwarded-For hop: as it is, or without the port some proxies append
 * (`203.0.113.7:51234`, `[2001:db8::7]:443`, `[2001:db8::7]`). An IPv6 address without brackets
 * is read whole (its last group is not a port). Anything else is returned as it is, and is not
 * an address.
 */
function hopAddress(hop: string): string {
  const m = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(hop) ?? /^(\d{1,3}(?:\.\d{1,3}){3}):(\d{1,5})$/.exec(hop);
  if (!m) return normalizeIp(hop);
  if (m[2] !== undefined && Number(m[2]) > 65535) return hop;
  return normalizeIp(m[1]!);
}

/**
 * Who is calling: the peer's address, or, when the peer is a trusted proxy (--trust-proxy), the
 * right-most X-Forwarded-For hop that is not a trusted proxy, with or without a port (left
 * parts are the client's own claims and are not believed; a hop that is not an address ends
 * the walk). `client` is that address as every per-client limit counts it (`clientOf`: an IPv6
 * address by its /64).
 */
export class ClientAddresses {
  private readonly trusted: BlockList | null;

  /** `trustProxy`: the proxies whose X-Forwarded-For is believed, fixed for the app's life */
  constructor(trustProxy: readonly string[] | undefined) {
    this.trusted = trustProxy?.length ? blockListOf([...trustProxy]) : null;
  }

  of(req: CoreRequest): { clientIp: string; client: string } {
    const clientIp = this.ipOf(req);
    return { clientIp, client: clientOf(clientIp) };
  }

  private ipOf(req: CoreRequest): string {
    const peer = normalizeIp(req.peerAddress ?? '127.0.0.1');
    const trusted = this.trusted;
    if (!trusted || !ipIn(trusted, peer)) return peer;
    const forwarded = req.header('x-forwarded-for');
    if (!forwarded) return peer;
    const hops = forwarded.split(',');
    let ip = peer;
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hopAddress(hops[i]!.trim());
      if (!isIP(hop)) break;
      ip = hop;
      if (!ipIn(trusted, hop)) break;
    }
    return ip;
  }
}
