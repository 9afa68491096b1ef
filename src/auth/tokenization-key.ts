// The credentials of POST /v1/tokenize: the merchant's `mid` and its tokenization key (the
// `environment` query parameter), which is stored as a SHA-256 digest. Tokenize carries no
// bearer token (the spec's example has no Authorization header): the key may sit in a
// checkout page, so it can only tokenize, never read a card or an order.
import type { Db } from '../db/client.ts';
import { findTokenizationKey } from '../db/queries/find-tokenization-key.ts';
import { RescuedError } from '../errors.ts';
import { digest } from './secrets.ts';

export interface TokenizationMerchant {
  merchantId: string;
  mid: string;
}

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// One answer for every failure (unknown mid, wrong key, key of another merchant, disabled
// merchant), so the answer does not tell which mids exist.
function refused(): RescuedError {
  const message = 'The mid and tokenization key (environment) do not identify an active merchant.';
  return new RescuedError('ERR_VAULT_INVALID_TOKENIZATION_KEY', message, [{ field: 'environment', code: 'ERR_VAULT_INVALID_TOKENIZATION_KEY', message }]);
}

/**
 * The key is looked up by its digest (a unique index), then must belong to `mid`. The
 * digest of a 256-bit random key reveals nothing through timing, so no constant-time
 * comparison is needed here.
 */
export async function authenticateTokenizationKey(db: Db, mid: string, key: string): Promise<TokenizationMerchant> {
  if (!GUID.test(mid) || key === '') throw refused();
  const row = await findTokenizationKey(db, digest(key));
  if (!row || row.mid !== mid.toLowerCase() || row.merchantStatus !== 'active') throw refused();
  return { merchantId: row.merchantId, mid: row.mid };
}

export interface TokenizationKeyCacheOptions {
  /** How long a good key is remembered per process (default 5 s, as a merchant's status). */
  cacheMs?: number;
  maxEntries?: number;
  now?: () => number;
}

/**
 * authenticateTokenizationKey with a short per-process memory of good keys, keyed by digest:
 * tokenize is called at every checkout, and the key look-up would otherwise be a second
 * statement beside the card's own. A disabled merchant or revoked key is refused within
 * `cacheMs`, the same bound as for access tokens. Failures are never remembered.
 */
export function createTokenizationKeyAuthenticator(db: Db, opts: TokenizationKeyCacheOptions = {}) {
  const cacheMs = opts.cacheMs ?? 5_000;
  const maxEntries = opts.maxEntries ?? 10_000;
  const now = opts.now ?? Date.now;
  const cache = new Map<string, { merchant: TokenizationMerchant; until: number }>();
  return async function authenticate(mid: string, key: string): Promise<TokenizationMerchant> {
    const hash = digest(key);
    const hit = cache.get(hash);
    if (hit && hit.until > now() && hit.merchant.mid === mid.toLowerCase()) return hit.merchant;
    const merchant = await authenticateTokenizationKey(db, mid, key);
    if (cache.size >= maxEntries) cache.clear();
    cache.set(hash, { merchant, until: now() + cacheMs });
    return merchant;
  };
}
