import type { Db } from '../db/client.ts';
import { findApiClient } from '../db/queries/find-api-client.ts';
import { RescuedError } from '../errors.ts';
import { digest, matchesDigest } from './secrets.ts';
import type { TokenClaims } from './tokens.ts';

// Compared against when the client id is unknown, so both failures take the same time.
const DUMMY_DIGEST = digest('rescued-unknown-client');

/** Checks a client id and secret; the claims of the token to issue, or ERR_AUTH_INVALID_CLIENT. */
export async function authenticateClient(db: Db, clientId: string, clientSecret: string): Promise<TokenClaims> {
  const client = await findApiClient(db, clientId);
  const ok = matchesDigest(clientSecret, client?.secretHash ?? DUMMY_DIGEST);
  if (!client || !ok) throw new RescuedError('ERR_AUTH_INVALID_CLIENT', 'Unknown client or wrong secret.');
  if (client.merchantStatus !== 'active') throw new RescuedError('ERR_AUTH_INVALID_CLIENT', 'The merchant is disabled.');
  return { merchantId: client.merchantId, mid: client.mid, clientId: client.clientId };
}
