// The dispatcher's claim (DESIGN.md §6, as graphile-worker's getJobs), in one transaction of
// two statements: first lock the endpoints that have due work (SKIP LOCKED, so replicas claiming
// at once take different endpoints), then, in a statement of its own, count each one's free
// slots under its concurrency cap, lock up to that many of its due deliveries (SKIP LOCKED) and
// lease them to this dispatcher. The count must come after the lock: under READ COMMITTED a
// statement reads with the snapshot taken when it began, so a count in the locking statement
// could miss the leases of a replica that committed between that moment and the lock, and
// lease past the cap (test/integration/webhooks/claim-race.test.ts). FOR NO KEY UPDATE on the
// endpoint does not block the outbox's inserts (their foreign key takes KEY SHARE). The
// event's payload and the endpoint's URL and sealed secrets come back with each delivery, so a
// POST needs no further read.
import { sql } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { rowsOf, uuidList } from './raw-rows.ts';

export interface ClaimedDelivery {
  id: string;
  eventId: string;
  endpointId: string;
  merchantId: string;
  attemptCount: number;
  isResent: boolean;
  payload: Record<string, unknown>;
  url: string;
  secretSealed: string;
  previousSecretSealed: string | null;
  previousSecretExpiresAt: Date | null;
}

export interface ClaimOptions {
  owner: string;
  now: Date;
  leaseUntil: Date;
  limit: number;
  perEndpoint: number;
  /**
   * This dispatcher's POSTs in flight per endpoint. Its own slots are counted from here, not
   * from its leased rows: a slot is free the moment its POST ends, before the attempt is
   * written. Other dispatchers' slots are their live leases (an over-count while their
   * writes are pending, so the cap holds).
   */
  mine?: ReadonlyMap<string, number>;
}

const asDate = (v: unknown) => (v === null || v === undefined ? null : v instanceof Date ? v : new Date(String(v)));

export async function claimWebhookDeliveries(db: Db, o: ClaimOptions): Promise<ClaimedDelivery[]> {
  const now = o.now.toISOString();
  const mine = JSON.stringify(Object.fromEntries(o.mine ?? []));
  const result = await db.transaction(async (tx) => {
    const locked = rowsOf(await tx.execute(sql`
      select e.id from webhook_endpoints e
      where e.enabled and e.url is not null
        and exists (select 1 from webhook_deliveries p
           where p.endpoint_id = e.id and p.status = 'pending' and p.next_attempt_at <= ${now}::timestamptz)
      for no key update of e skip locked`)).map((r) => String(r.id));
    if (locked.length === 0) return [];
    return tx.execute(sql`
    with ep as (
      select e.id,
        ${o.perEndpoint}::int - coalesce((${mine}::json ->> e.id::text)::int, 0) - (select count(*) from webhook_deliveries b
           where b.endpoint_id = e.id and b.status = 'delivering' and b.lease_expires_at > ${now}::timestamptz and b.lease_owner <> ${o.owner})::int as free
      from webhook_endpoints e
      where e.id in ${uuidList(locked)}
    ),
    picked as (
      select d.id from ep cross join lateral (
        select p.id from webhook_deliveries p
        where p.endpoint_id = ep.id and p.status = 'pending' and p.next_attempt_at <= ${now}::timestamptz
        order by p.next_attempt_at
        limit greatest(ep.free, 0)
        for update of p skip locked
      ) d
      limit ${o.limit}
    )
    update webhook_deliveries d
    set status = 'delivering', lease_owner = ${o.owner}, lease_expires_at = ${o.leaseUntil.toISOString()}::timestamptz
    from picked, webhook_events ev, webhook_endpoints e
    where d.id = picked.id and ev.id = d.event_id and e.id = d.endpoint_id
    returning d.id, d.event_id, d.endpoint_id, e.merchant_id, d.attempt_count, d.is_resent, ev.payload, e.url,
      e.secret_sealed, e.previous_secret_sealed, e.previous_secret_expires_at`);
  });
  return rowsOf(result).map((r) => ({
    id: String(r.id),
    eventId: String(r.event_id),
    endpointId: String(r.endpoint_id),
    merchantId: String(r.merchant_id),
    attemptCount: Number(r.attempt_count),
    isResent: r.is_resent === true,
    payload: (typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload) as Record<string, unknown>,
    url: String(r.url),
    secretSealed: String(r.secret_sealed),
    previousSecretSealed: r.previous_secret_sealed === null ? null : String(r.previous_secret_sealed),
    previousSecretExpiresAt: asDate(r.previous_secret_expires_at),
  }));
}
