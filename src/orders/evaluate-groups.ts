// Group commit for CIT/MIT evaluate: the statements of requests that arrive while one group is
// at the database are sent together as the next group, one statement per step (store, claim,
// write), so the round trips per request fall as the load rises. There is no timer: a request
// that finds the database idle goes at once (setImmediate, the same turn of the event loop), so
// a lone request waits for nothing. One group per step is in flight at a time per database
// handle; its statement costs about the same for one row as for fifty.
//
// Within a group, a request's key and orderId must be distinct from the others' (a multi-row
// ON CONFLICT may not touch a row twice): a later request repeating one is answered `other`
// / `again`, and its caller takes the one-at-a-time path, which meets the first one's rows.
import type { Db } from '../db/client.ts';
import { grouped } from '../group.ts';
import { claimIdempotencyMany, type GroupClaim, type GroupClaimed } from '../db/queries/claim-idempotency-many.ts';
import { insertApiOrders, type ApiOrderWrite } from '../db/queries/insert-api-orders.ts';
import { storeEvaluations, type Evaluation, type Stored } from '../db/queries/store-evaluations.ts';

export interface EvaluateGroups {
  /** A decision made without a gateway, with everything it writes (see storeEvaluations). Rejects when the group raced another writer. */
  store(e: Evaluation): Promise<Stored>;
  /** A durable in-flight claim before a gateway call. */
  claim(c: GroupClaim): Promise<GroupClaimed>;
  /** The order, attempt and answer after the gateway's answer; false when the orderId or key was taken meanwhile. */
  write(w: ApiOrderWrite): Promise<boolean>;
}

const MAX_GROUP = 100;
// Four groups per step at the database at once: enough to keep a pool of connections busy
// while a group waits for its commit, few enough that a group still gathers the requests
// arriving meanwhile (docs/performance.md, "HTTP API: CIT evaluate").
const OPTIONS = { maxSize: MAX_GROUP, maxInFlight: 4 };

/**
 * Runs `flush` on the items whose identities (every string `idsOf` gives) are first in the
 * group; the others get `repeated` without reaching the database.
 */
export function firstOnly<I, O>(idsOf: (item: I) => string[], repeated: O, flush: (items: I[]) => Promise<O[]>): (items: I[]) => Promise<O[]> {
  return async (items) => {
    const seen = new Set<string>();
    const first: number[] = [];
    items.forEach((item, i) => {
      const ids = idsOf(item);
      if (ids.some((id) => seen.has(id))) return;
      ids.forEach((id) => seen.add(id));
      first.push(i);
    });
    if (first.length === items.length) return flush(items);
    const out = await flush(first.map((i) => items[i]!));
    const results = items.map((): O => repeated);
    first.forEach((i, j) => (results[i] = out[j]!));
    return results;
  };
}

const keyId = (merchantId: string, key: string) => `k\u0000${merchantId}\u0000${key}`;
const orderIdId = (merchantId: string, orderId: string) => `o\u0000${merchantId}\u0000${orderId}`;

function create(db: Db): EvaluateGroups {
  const store = grouped(
    firstOnly((e: Evaluation) => [keyId(e.order.merchantId, e.order.idempotencyKey), orderIdId(e.order.merchantId, e.order.orderId)], { kind: 'other' } as Stored, (items) => storeEvaluations(db, items)),
    OPTIONS,
  );
  const claim = grouped(
    firstOnly((c: GroupClaim) => [keyId(c.merchantId, c.key)], { kind: 'again' } as GroupClaimed, (items) => claimIdempotencyMany(db, items)),
    OPTIONS,
  );
  const write = grouped((items: ApiOrderWrite[]) => insertApiOrders(db, items), OPTIONS);
  return { store, claim, write };
}

const byDb = new WeakMap<Db, EvaluateGroups>();

/** The groups of one database handle, shared by every app on it in this process. */
export function evaluateGroups(db: Db): EvaluateGroups {
  let g = byDb.get(db);
  if (!g) byDb.set(db, (g = create(db)));
  return g;
}
