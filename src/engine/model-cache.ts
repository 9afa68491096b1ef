// The merchant model for the planner, read at most once per merchant every few minutes: it
// changes slowly (transmit counters), and reading it for every attempt would double the
// engine's statements.
import type { Db, DbOrTx as Tx } from '../db/client.ts';
import type { Clock } from '../clock.ts';
import { loadMerchantModel } from './model.ts';
import type { MerchantModel } from './plan-types.ts';


export type ModelSource = (db: Tx, merchantId: string) => Promise<MerchantModel | null>;

export function cachedModels(clock: Clock, ttlMs = 10 * 60_000): ModelSource {
  const cache = new Map<string, { model: MerchantModel; at: number }>();
  return async (db, merchantId) => {
    const now = clock.now().getTime();
    const hit = cache.get(merchantId);
    if (hit && now - hit.at < ttlMs && now >= hit.at) return hit.model;
    // Read through the caller's handle: inside a transaction on PGlite (one connection) a
    // read on the pool would wait for the transaction it is part of.
    const model = await loadMerchantModel(db as Db, merchantId);
    cache.set(merchantId, { model, at: now });
    return model;
  };
}
