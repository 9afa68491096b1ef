// Source-address checks against the merchants' allowed ranges (normalised CIDR text from
// src/merchants/cidr.ts). A server listening on `::` sees IPv4 clients as IPv4-mapped IPv6
// addresses (::ffff:203.0.113.7); they are compared as the IPv4 address they are.
import { BlockList, isIP } from 'node:net';

export function normaliseAddress(address: string | undefined): string {
  if (!address) return '';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address.toLowerCase();
}

export function addressInRanges(address: string, cidrs: readonly string[]): boolean {
  const family = isIP(address);
  if (family === 0 || cidrs.length === 0) return false;
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [net = '', prefix = ''] = cidr.split('/');
    const netFamily = isIP(net);
    if (netFamily !== family) continue;
    list.addSubnet(net, Number(prefix), family === 4 ? 'ipv4' : 'ipv6');
  }
  return list.check(address, family === 4 ? 'ipv4' : 'ipv6');
}
