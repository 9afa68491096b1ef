// Against server-side request forgery: a webhook URL is merchant input, and the daemon POSTs
// to it from inside the operator's network. In production only https is allowed and every
// destination must be a global unicast address; sandbox also allows http and loopback
// (a receiver on the developer's machine). The check runs on the RESOLVED addresses at
// delivery time, inside the connection's own DNS lookup, and the connection is made to the
// address that was checked, so a DNS answer that changes between check and connect
// (rebinding) cannot send the POST elsewhere. `merchant set-webhook` runs the same check
// early to give the operator a clear error.
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { RescuedError } from '../errors.ts';

export type Mode = 'sandbox' | 'production';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

// ipaddr.js names the special ranges it knows and calls every other address `unicast`,
// including IPv6 space that is not global: the IPv4-compatible ::a.b.c.d (::7f00:1 is
// 127.0.0.1), the deprecated site-local fec0::/10, NAT64 local-use 64:ff9b:1::/48 (RFC 8215;
// 64:ff9b:1::a9fe:a9fe reaches 169.254.169.254 through a local translator), SRv6 5f00::/16
// (RFC 9602). Global unicast IPv6 is 2000::/3 (RFC 4291 §2.4), less the documentation prefix
// 3fff::/20 (RFC 9637) that ipaddr.js does not know yet.
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');
const NOT_GLOBAL_V6: readonly (readonly [name: string, cidr: [ipaddr.IPv6, number]])[] = [
  ['ipv4Compatible', ipaddr.IPv6.parseCIDR('::/96')],
  ['nat64LocalUse', ipaddr.IPv6.parseCIDR('64:ff9b:1::/48')],
  ['srv6', ipaddr.IPv6.parseCIDR('5f00::/16')],
  ['siteLocal', ipaddr.IPv6.parseCIDR('fec0::/10')],
  ['documentation', ipaddr.IPv6.parseCIDR('3fff::/20')],
];

/**
 * Why an address may not be a destination, or undefined when it may. ipaddr.js names the
 * special ranges (private, loopback, linkLocal, uniqueLocal, carrierGradeNat, multicast,
 * unspecified, broadcast, reserved, the IPv6 transition ranges that embed an IPv4 address …);
 * only a global unicast address — none of them, and for IPv6 inside 2000::/3 — is allowed,
 * plus `loopback` in sandbox mode. IPv4-mapped IPv6 addresses are judged as the IPv4 address
 * they carry.
 */
export function refusedRange(address: string, mode: Mode): string | undefined {
  if (!ipaddr.isValid(address)) return 'invalid';
  const ip = ipaddr.process(address);
  const range = ip.range();
  if (range === 'loopback' && mode === 'sandbox') return undefined;
  if (range !== 'unicast') return range;
  if (ip.kind() === 'ipv4') return undefined;
  const named = NOT_GLOBAL_V6.find(([, cidr]) => ip.match(cidr));
  if (named) return named[0];
  return ip.match(GLOBAL_UNICAST_V6) ? undefined : 'nonGlobal';
}

/** Scheme and shape: https (and http in sandbox), no credentials in the URL. */
export function checkUrlShape(text: string, mode: Mode): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new RescuedError('ERR_WEBHOOK_URL_UNSAFE', `"${text}" is not a URL.`);
  }
  const allowed = mode === 'production' ? ['https:'] : ['https:', 'http:'];
  if (!allowed.includes(url.protocol)) throw new RescuedError('ERR_WEBHOOK_URL_UNSAFE', `Webhook URLs must use ${allowed.map((p) => p.slice(0, -1)).join(' or ')} in ${mode} mode.`);
  if (url.username || url.password) throw new RescuedError('ERR_WEBHOOK_URL_UNSAFE', 'Webhook URLs must not carry credentials.');
  return url;
}

/** The URL's host as a bare name or address (IPv6 literals lose their brackets). */
export const bareHost = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

function refuse(host: string, address: string, range: string): never {
  const what = host === address ? address : `${host} resolves to ${address}, which`;
  throw new RescuedError('ERR_WEBHOOK_URL_UNSAFE', `${what} is a ${range} address; webhooks go only to public addresses${range === 'loopback' ? ' (loopback is allowed in sandbox mode)' : ''}.`);
}

/**
 * Resolves the host and checks every address it resolves to (one bad answer refuses all:
 * a name with a private address among its records is not trusted). Returns the address to
 * connect to.
 */
export async function resolveDestination(host: string, mode: Mode, resolve: Resolver = systemResolver): Promise<ResolvedAddress> {
  const literal = isIP(host);
  const addresses = literal ? [{ address: host, family: literal as 4 | 6 }] : await resolve(host);
  if (addresses.length === 0) throw new RescuedError('ERR_WEBHOOK_URL_UNSAFE', `${host} does not resolve.`);
  for (const a of addresses) {
    const range = refusedRange(a.address, mode);
    if (range) refuse(host, a.address, range);
  }
  return addresses[0]!;
}

/**
 * The check of `merchant set-webhook`: shape, then the resolved addresses. A name that does
 * not resolve (yet) is refused in production, accepted in sandbox; either way every delivery
 * checks again.
 */
export async function checkWebhookUrl(text: string, mode: Mode, resolve: Resolver = systemResolver): Promise<URL> {
  const url = checkUrlShape(text, mode);
  const host = bareHost(url);
  let addresses: ResolvedAddress[];
  try {
    addresses = isIP(host) ? [] : await resolve(host);
  } catch (err) {
    if (mode === 'sandbox') return url;
    throw new RescuedError('ERR_WEBHOOK_URL_UNSAFE', `${host} does not resolve (${(err as NodeJS.ErrnoException).code ?? 'DNS error'}); set the URL once its DNS records exist.`);
  }
  await resolveDestination(host, mode, async () => addresses);
  return url;
}

/**
 * A `lookup` for http.request / https.request: resolves, checks, and hands the socket only
 * the checked address. Node's connection code may ask for every address (`all: true`, for
 * Happy Eyeballs) or one; both get the one that was checked.
 */
export function pinnedLookup(mode: Mode, resolve: Resolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    resolveDestination(hostname, mode, resolve).then(
      (a) => {
        if ((options as { all?: boolean }).all) (callback as unknown as (err: null, list: ResolvedAddress[]) => void)(null, [a]);
        else callback(null, a.address, a.family);
      },
      (err: Error) => callback(err as NodeJS.ErrnoException, '', 0),
    );
  };
}
