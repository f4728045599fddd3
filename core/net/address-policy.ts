// Which network addresses a webhook may reach: public unicast only (SSRF guard; docs/webhooks.md).
import { BlockList, isIP } from 'node:net';

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, including the cloud metadata endpoint 169.254.169.254
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved and broadcast
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96], // NAT64
  ['64:ff9b:1::', 48], // local-use NAT64
  ['::', 96], // IPv4-compatible (deprecated) ::a.b.c.d
  ['::ffff:0:0:0', 96], // IPv4-translated
  ['2002::', 16], // 6to4: embeds an IPv4 address
  ['fec0::', 10], // site-local (deprecated)
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

/** True when `address` (an IP literal) is a public unicast address. */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 4) return !blocked.check(bare, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
    if (mapped) return isPublicAddress(mapped[1]!);
    return !blocked.check(bare, 'ipv6');
  }
  return false;
}

/** True for a host name that is obviously local (no DNS needed to refuse it). */
export function isLocalHostName(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost') || h.endsWith('.local') || h.endsWith('.internal');
}

/**
 * Why `url` may not be reached, known before any lookup: a scheme other than https (or http, where insecure targets
 * are allowed), or a local name or non-public IP literal (a literal never goes through the guarded lookup).
 */
export function urlRefusal(url: URL, allowInsecure: boolean, what: string): string | undefined {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (url.protocol !== 'https:' && !(allowInsecure && url.protocol === 'http:'))
    return `only ${allowInsecure ? 'http(s)' : 'https'} ${what} are allowed`;
  if (!allowInsecure && (isLocalHostName(host) || (isIP(host) && !isPublicAddress(host))))
    return `${host} is not a public address`;
  return undefined;
}
