// The source address as the authentication throttle counts it. An IPv4 address is itself
// (also when it arrives IPv4-mapped, `::ffff:203.0.113.7`, as on a dual-stack socket). An
// IPv6 address counts by its /64: a host or a site is handed a whole /64 (RFC 6177, SLAAC
// needs one), so its 2^64 addresses are one source, not 2^64 fresh budgets for one attacker.
import { createHash } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';

/** The eight 16-bit groups of an IPv6 address (a dotted IPv4 tail counts as two), or undefined. */
function ipv6Groups(address: string): number[] | undefined {
  const halves = address.split('::');
  if (halves.length > 2) return undefined;
  const parse = (part: string): number[] =>
    part === ''
      ? []
      : part.split(':').flatMap((g) => {
          if (!g.includes('.')) return [Number.parseInt(g, 16)];
          const [a, b, c, d] = g.split('.').map(Number) as [number, number, number, number];
          return [(a << 8) | b, (c << 8) | d];
        });
  const head = parse(halves[0]!);
  const tail = halves.length === 2 ? parse(halves[1]!) : [];
  const groups = halves.length === 2 ? [...head, ...Array<number>(8 - head.length - tail.length).fill(0), ...tail] : head;
  return groups.length === 8 ? groups : undefined;
}

/** The key the throttle counts `address` under: never contains '|', at most ~45 characters. */
export function sourceKey(address: string): string {
  const plain = address.replace(/%.*$/, ''); // a zone (fe80::1%eth0) names our interface, not the peer
  if (isIPv4(plain)) return plain;
  const groups = isIPv6(plain) ? ipv6Groups(plain) : undefined;
  if (groups) {
    const mapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
    if (mapped) return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.');
    return `${groups.slice(0, 4).map((g) => g.toString(16)).join(':')}::/64`;
  }
  // Not an address (a proxy's header gone wrong): still one bounded key per distinct text.
  return `?${createHash('sha256').update(address).digest('base64url')}`;
}
