// A request's `mid` and `siteId` must be the calling merchant's own: the bearer token says
// who calls, and an order stored under merchant B must not carry merchant A's ids (a partner
// integration that mixes them up, or a merchant probing another's). The merchant's site ids
// are cached per process for `cacheMs`, as the token's client status is, so the check adds no
// database round trip to the hot path once warm.
import { eq } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { sites } from '../db/schema.ts';
import { RescuedError } from '../errors.ts';

export interface Owner {
  merchantId: string;
  mid: string;
}

export type OwnIdsCheck = (owner: Owner, given: { mid?: string | undefined; siteId?: string | undefined }) => Promise<void>;

function mismatch(field: 'mid' | 'siteId'): RescuedError {
  const message = `${field} is not one of the calling merchant's (the bearer token's)`;
  return new RescuedError('ERR_API_MERCHANT_MISMATCH', undefined, [{ field, code: 'ERR_API_MERCHANT_MISMATCH', message }]);
}

export function createOwnIdsCheck(db: Db, opts: { cacheMs?: number; maxEntries?: number; now?: () => number } = {}): OwnIdsCheck {
  const cacheMs = opts.cacheMs ?? 5_000;
  const maxEntries = opts.maxEntries ?? 10_000;
  const now = opts.now ?? Date.now;
  const cache = new Map<string, { ids: Set<string>; until: number }>();

  async function siteIds(merchantId: string): Promise<Set<string>> {
    const hit = cache.get(merchantId);
    if (hit && hit.until > now()) return hit.ids;
    const rows = await db.select({ id: sites.id }).from(sites).where(eq(sites.merchantId, merchantId));
    const ids = new Set(rows.map((r) => r.id.toLowerCase()));
    if (cache.size >= maxEntries) cache.clear();
    cache.set(merchantId, { ids, until: now() + cacheMs });
    return ids;
  }

  return async (owner, given) => {
    if (given.mid !== undefined && given.mid.toLowerCase() !== owner.mid.toLowerCase()) throw mismatch('mid');
    if (given.siteId !== undefined && !(await siteIds(owner.merchantId)).has(given.siteId.toLowerCase())) throw mismatch('siteId');
  };
}
