import { describe, expect, it } from 'vitest';
import type { LookupAddress } from 'node:dns';
import { blockedReason, checkTarget, guardedLookup, type Resolver } from '../../src/server/webhooks/netguard.js';
import { generateSecret, sign } from '../../src/server/webhooks/signature.js';
import { Webhook } from 'standardwebhooks';

describe('address policy', () => {
  const production: [string, string | null][] = [
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', null],
    ['192.168.255.1', 'private'],
    ['169.254.169.254', 'cloud metadata'],
    ['169.254.1.1', 'link-local'],
    ['100.64.0.1', 'shared (CGNAT)'],
    ['100.127.255.255', 'shared (CGNAT)'],
    ['100.128.0.1', null],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['8.8.8.8', null],
    ['93.184.216.34', null],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fc00::1', 'private'],
    ['fdff:ffff::1', 'private'],
    ['fd00:ec2::254', 'cloud metadata'],
    ['100.100.100.200', 'cloud metadata'],
    ['fe80::1', 'link-local'],
    ['febf::1', 'link-local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:a9fe:a9fe', 'cloud metadata'],
    ['64:ff9b::a00:1', 'private'],
    ['2002:c0a8:0101::1', 'private'],
    ['[::1]', 'loopback'],
    ['2001:4860:4860::8888', null],
    ['::ffff:8.8.8.8', null],
  ];
  it.each(production)('production: %s → %s', (ip, reason) => {
    expect(blockedReason(ip, 'production')).toBe(reason);
  });

  it('sandbox allows loopback and private networks but not link-local or the metadata address', () => {
    for (const ip of ['127.0.0.1', '::1', '10.0.0.1', '192.168.0.2', 'fd00::1', '::ffff:127.0.0.1', '0.0.0.0']) expect(blockedReason(ip, 'sandbox'), ip).toBeNull();
    expect(blockedReason('169.254.169.254', 'sandbox')).toBe('cloud metadata');
    expect(blockedReason('::ffff:169.254.169.254', 'sandbox')).toBe('cloud metadata');
    expect(blockedReason('fe80::1', 'sandbox')).toBe('link-local');
  });

  // cloud metadata and instance-service addresses are refused in the sandbox too, in
  // every spelling (IPv6 long form, upper case, zone id, IPv4 embedded in IPv6)
  const metadata = [
    'fd00:ec2::254', // AWS IMDS over IPv6
    'FD00:EC2:0:0:0:0:0:254',
    'fd00:ec2::254%eth0',
    '[fd00:ec2::254]',
    'fd00:ec2::253', // AWS DNS over IPv6
    '100.100.100.200', // Alibaba Cloud
    '::ffff:100.100.100.200',
    '::ffff:6464:64c8',
    '64:ff9b::6464:64c8', // NAT64 of 100.100.100.200
    '2002:6464:64c8::1', // 6to4 of 100.100.100.200
    '168.63.129.16', // Azure WireServer
    '192.0.0.192', // Oracle Cloud
    '169.254.169.254',
    '64:ff9b::a9fe:a9fe',
    '2002:a9fe:a9fe::',
    '::ffff:0:a9fe:a9fe', // SIIT (RFC 6145)
    // local-use NAT64 (RFC 8215) under each prefix length RFC 6052 allows: /96 (at 64:ff9b:1::
    // and at another /96 of the block), /64, /56, /48
    '64:ff9b:1::a9fe:a9fe',
    '64:ff9b:1:a:b:c:a9fe:a9fe',
    '64:ff9b:1:0:a9:fea9:fe00:0',
    '64:ff9b:1:a9:fe:a9fe::',
    '64:ff9b:1:a9fe:a9:fe00::',
  ];
  it.each(metadata)('sandbox and production refuse the metadata address %s', (ip) => {
    expect(blockedReason(ip, 'sandbox')).toBe('cloud metadata');
    expect(blockedReason(ip, 'production')).toBe('cloud metadata');
  });

  it('the sandbox still allows a ULA LAN beside the AWS block and public addresses next to the metadata ones', () => {
    for (const ip of ['fd00:ec3::254', 'fd00::254', '100.100.100.201', '168.63.129.17', '64:ff9b::808:808', '2002:808:808::1']) {
      expect(blockedReason(ip, 'sandbox'), ip).toBeNull();
    }
    expect(blockedReason('100.100.100.201', 'production')).toBe('shared (CGNAT)');
    expect(blockedReason('fd00::254', 'production')).toBe('private');
  });

  // translated spellings with no fixed place, and special-purpose ranges outside the named groups
  const translated: [string, string | null, string | null][] = [
    // [address, production, sandbox]
    ['::ffff:0:7f00:1', 'loopback', null],
    ['::ffff:0:a00:1', 'private', null],
    ['::ffff:0:808:808', null, null],
    ['64:ff9b:1::7f00:1', 'local-use NAT64', null],
    ['64:ff9b:1::808:808', 'local-use NAT64', null],
    ['64:ff9b:1:808:8:800::', 'local-use NAT64', null],
    ['64:ff9b::808:808', null, null],
    ['64:ff9b:2::a9fe:a9fe', null, null],
    ['100::1', 'discard-only', null],
    ['100:0:0:1::1', null, null],
    ['2001:db8::1', 'special-purpose (reserved)', null],
    ['192.0.2.1', 'special-purpose (reserved)', null],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'special-purpose (teredo)', null],
    ['2606:4700:4700::1111', null, null],
    // a special-purpose IPv4 address in its translated spellings, and the deprecated compatible form
    ['::ffff:192.0.2.1', 'special-purpose (reserved)', null],
    ['::ffff:0:c000:201', 'special-purpose (reserved)', null],
    ['64:ff9b::c000:201', 'special-purpose (reserved)', null],
    ['2002:c000:201::1', 'special-purpose (reserved)', null],
    ['::8.8.8.8', 'special-purpose (IPv4-compatible)', null],
    ['2002:808:808::1', null, null],
  ];
  it.each(translated)('%s → production %s, sandbox %s', (ip, production, sandbox) => {
    expect(blockedReason(ip, 'production')).toBe(production);
    expect(blockedReason(ip, 'sandbox')).toBe(sandbox);
  });

  it('registration refuses metadata URLs in the sandbox, however the host is written', async () => {
    const nx: Resolver = (_h, _o, cb) => cb(Object.assign(new Error('nx'), { code: 'ENOTFOUND' }), []);
    for (const u of ['http://[fd00:ec2::254]/', 'http://100.100.100.200/', 'http://0x64.0x64.0x64.0xc8/', 'http://1684301000/', 'http://[::ffff:6464:64c8]/latest/meta-data']) {
      const err = await checkTarget(new URL(u), 'sandbox', nx);
      expect(err?.message, u).toContain('cloud metadata');
    }
  });

  const fixed =
    (addrs: string[]): Resolver =>
    (_h, _o, cb) =>
      cb(null, addrs.map((a): LookupAddress => ({ address: a, family: a.includes(':') ? 6 : 4 })));

  it('the connect-time lookup refuses a name when any of its addresses is blocked', async () => {
    const lookup = guardedLookup('production', fixed(['93.184.216.34', '10.0.0.7']));
    const err = await new Promise<Error | null>((res) => lookup('mixed.test', { all: true }, (e) => res(e)));
    expect(err?.message).toBe('mixed.test resolves to 10.0.0.7, a private address; webhooks may not be sent there');
    expect((err as { code?: string }).code).toBe('EADDRBLOCKED');
  });

  it('the connect-time lookup answers in the shape the socket asked for', async () => {
    const lookup = guardedLookup('production', fixed(['93.184.216.34', '2606:2800:220:1::1']));
    const all = await new Promise<unknown>((res) => lookup('ok.test', { all: true }, (_e, a) => res(a)));
    expect(all).toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1::1', family: 6 },
    ]);
    const one = await new Promise<unknown[]>((res) => lookup('ok.test', {}, (_e, a, f) => res([a, f])));
    expect(one).toEqual(['93.184.216.34', 4]);
  });

  it('registration check: names resolving to blocked addresses are refused, unresolvable names accepted', async () => {
    expect((await checkTarget(new URL('https://evil.test/'), 'production', fixed(['169.254.169.254'])))?.message).toContain('cloud metadata');
    expect(await checkTarget(new URL('https://fine.test/'), 'production', fixed(['93.184.216.34']))).toBeNull();
    const nx: Resolver = (_h, _o, cb) => cb(Object.assign(new Error('nx'), { code: 'ENOTFOUND' }), []);
    expect(await checkTarget(new URL('https://not-yet.test/'), 'production', nx)).toBeNull();
    expect(await checkTarget(new URL('http://127.0.0.1/'), 'sandbox', nx)).toBeNull();
  });
});

describe('signing', () => {
  it('signs "{id}.{timestamp}.{body}" with the decoded key, as the public verifier expects', () => {
    const secret = generateSecret();
    const ts = Math.floor(Date.now() / 1000);
    const body = '{"id":"x","type":"charge.captured","created_at":"2026-01-01T00:00:00.000Z","data":{}}';
    const ours = sign(secret, 'msg_1', ts, body);
    expect(ours).toBe(new Webhook(secret).sign('msg_1', new Date(ts * 1000), body));
    expect(new Webhook(secret).verify(body, { 'webhook-id': 'msg_1', 'webhook-timestamp': String(ts), 'webhook-signature': ours })).toEqual(JSON.parse(body));
  });
});
