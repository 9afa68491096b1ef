// Reads client credentials from a token request in every form DESIGN.md §2 accepts:
// RFC 6749 §2.3.1 HTTP Basic or body parameters (form or JSON) with
// grant_type=client_credentials, and the JSON body {"appKey","appSecret"}.
import { RescuedError } from '../errors.ts';

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
  /** How the client authenticated: decides the WWW-Authenticate scheme of a 401. */
  method: 'basic' | 'body' | 'appKey';
}

function fromBasic(header: string | undefined): { id: string; secret: string } | undefined {
  if (!header || !/^basic /i.test(header)) return undefined;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw new RescuedError('ERR_AUTH_INVALID_CLIENT', 'The Basic credentials are malformed.');
  // RFC 6749 §2.3.1: id and secret are form-urlencoded before base64.
  const unform = (s: string) => {
    try {
      return decodeURIComponent(s.replace(/\+/g, ' '));
    } catch {
      return s;
    }
  };
  return { id: unform(decoded.slice(0, colon)), secret: unform(decoded.slice(colon + 1)) };
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

export function readClientCredentials(authorization: string | undefined, body: unknown): ClientCredentials {
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const appKey = str(b.appKey);
  if (appKey !== undefined) {
    const appSecret = str(b.appSecret);
    if (appSecret === undefined) throw new RescuedError('ERR_AUTH_INVALID_CLIENT', 'appSecret is missing.');
    return { clientId: appKey, clientSecret: appSecret, method: 'appKey' };
  }
  const grantType = str(b.grant_type);
  if (grantType === undefined) throw new RescuedError('ERR_AUTH_INVALID_REQUEST', 'grant_type is missing.');
  if (grantType !== 'client_credentials') throw new RescuedError('ERR_AUTH_UNSUPPORTED_GRANT_TYPE');
  const basic = fromBasic(authorization);
  const bodyId = str(b.client_id);
  if (basic && bodyId !== undefined) {
    throw new RescuedError('ERR_AUTH_INVALID_REQUEST', 'Use one client authentication method, not both Basic and body parameters.');
  }
  if (basic) return { clientId: basic.id, clientSecret: basic.secret, method: 'basic' };
  const bodySecret = str(b.client_secret);
  if (bodyId === undefined || bodySecret === undefined) throw new RescuedError('ERR_AUTH_INVALID_CLIENT', 'No client credentials were sent.');
  return { clientId: bodyId, clientSecret: bodySecret, method: 'body' };
}
