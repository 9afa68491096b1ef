// The console's requests that change something (sign-in, sign-out, and any POST added later)
// are taken only from the console's own pages: a page elsewhere cannot make an operator's
// browser sign out, or sign in with a token of its choosing (login CSRF). SameSite=Strict
// already keeps the session cookie off cross-site requests; this refuses the request itself.
//
// The browser says where a request comes from in two headers, checked in this order:
// - `Sec-Fetch-Site` (Chrome 76, Firefox 90, Safari 16.4; sent to HTTPS and loopback origins):
//   only `same-origin`, and `none` (typed or bookmarked by the operator), pass. `same-site`
//   is refused too: a neighbouring host or port is not the console.
// - Otherwise `Origin`, which browsers send on every POST: it must name the host the request
//   was sent to (`Host`, or `X-Forwarded-Host` from a trusted proxy). `Origin: null` (a
//   sandboxed frame, a data: URL) is refused. The console's pages set
//   `Referrer-Policy: same-origin` because under `no-referrer` a browser sends `Origin: null`
//   even on its own form posts.
// A request with neither header is not from a browser page (curl, a script with the bearer
// token) and passes: a forged request is sent by a browser, and browsers send Origin on POST.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { RescuedError } from '../../errors.ts';
import type { Logger } from '../../log.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const ALLOWED_FETCH_SITES = new Set(['same-origin', 'none']);

const one = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

/** `host[:port]` as a URL of `protocol` would write it: lower case, the scheme's default port dropped. */
function canonicalHost(protocol: string, host: string): string | undefined {
  try {
    return new URL(`${protocol}//${host}`).host;
  } catch {
    return undefined;
  }
}

/** Why the request is not from the console's own origin, or undefined when it is (or from no browser page). */
export function crossSiteReason(headers: FastifyRequest['headers'], host: string): string | undefined {
  const site = one(headers['sec-fetch-site']);
  if (site !== undefined) return ALLOWED_FETCH_SITES.has(site) ? undefined : `Sec-Fetch-Site: ${site.slice(0, 20)}`;
  const origin = one(headers.origin);
  if (origin === undefined) return undefined;
  let from: URL;
  try {
    from = new URL(origin);
  } catch {
    return 'Origin is not an origin';
  }
  if (from.origin === 'null') return 'Origin: null';
  return from.host === canonicalHost(from.protocol, host) ? undefined : 'Origin is another host';
}

/** Refuses (403 ERR_CONSOLE_CROSS_SITE) every console request that is not GET/HEAD/OPTIONS and comes from another origin. */
export function sameOriginOnly(app: FastifyInstance, log: Logger): void {
  app.addHook('onRequest', async (request) => {
    if (SAFE_METHODS.has(request.method)) return;
    const reason = crossSiteReason(request.headers, request.host);
    if (!reason) return;
    // The origin is logged cut short: it is the forger's text, not ours.
    log.warn({ remoteAddress: request.ip, method: request.method, path: request.url.split('?', 1)[0], origin: one(request.headers.origin)?.slice(0, 100), reason }, 'console cross-site request refused');
    throw new RescuedError('ERR_CONSOLE_CROSS_SITE');
  });
}
