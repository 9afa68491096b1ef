// The idempotency claims of a group of evaluates that must call a gateway, in one statement:
// each key is taken in flight (or an expired or abandoned record taken over), unless its
// record stands or its orderId is already one of the merchant's orders. The commit is an
// ordinary, durable one: another replica must see the claim before the gateway is called, or
// a retry sent there could charge a gateway that does not dedupe keys a second time.
import { sql } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { HELD_CTE, TAKE_OVER, blockedBy, orderIdTaken, type HeldKey } from './evaluation-json.ts';
import { rowsOf } from './raw-rows.ts';
import type { ClaimInput } from './idempotency.ts';

/** A claim of the grouped path: claimIdempotency's, always with its orderId. */
export type GroupClaim = ClaimInput & { orderId: string };

export type GroupClaimed =
  | { kind: 'claimed' }
  | { kind: 'held'; held: HeldKey }
  | { kind: 'order_id_taken' }
  /** A record appeared after the statement's snapshot: claim this one again on its own. */
  | { kind: 'again' };

const statement = (rows: string) => sql`
  with input as (
    select t.* from json_to_recordset(${rows}::json) as t(i int, merchant_id uuid, key text, route text, request_hash text, now timestamptz,
      stale_before timestamptz, expires_at timestamptz, order_id text)
  ),
  ${HELD_CTE},
  taken as (
    select x.i from input x ${sql.raw(orderIdTaken('t'))} where t.taken
  ),
  ok as (
    select x.* from input x
    where not exists (select 1 from held h where h.i = x.i and not h.free) and not exists (select 1 from taken k where k.i = x.i)
  ),
  claimed as (
    insert into idempotency_records (merchant_id, key, route, request_hash, state, status_code, response, created_at, expires_at)
    select merchant_id, key, route, request_hash, 'in_flight', null::int, null::json, now, expires_at from ok
    ${TAKE_OVER}
    returning merchant_id, key
  )
  select x.i, (c.key is not null) as claimed, coalesce(not h.free, false) as held, (k.i is not null) as order_id_taken,
    h.held_route, h.held_hash, h.held_state, h.held_status, h.held_response
  from input x
  left join claimed c on c.merchant_id = x.merchant_id and c.key = x.key
  left join held h on h.i = x.i
  left join taken k on k.i = x.i`;

function resultOf(row: Record<string, unknown>): GroupClaimed {
  if (row.claimed === true) return { kind: 'claimed' };
  return blockedBy(row) ?? { kind: 'again' };
}

/** One result per claim, in order; the keys of one call are distinct (the caller sees to it). */
export async function claimIdempotencyMany(db: Db, claims: GroupClaim[]): Promise<GroupClaimed[]> {
  if (claims.length === 0) return [];
  const rows = JSON.stringify(claims.map((c, i) => ({
    i, merchant_id: c.merchantId, key: c.key, route: c.route, request_hash: c.requestHash, now: c.now, stale_before: c.staleBefore, expires_at: c.expiresAt, order_id: c.orderId,
  })));
  const byIndex = new Map(rowsOf(await db.execute(statement(rows))).map((r) => [Number(r.i), r]));
  return claims.map((_, i) => resultOf(byIndex.get(i) ?? {}));
}
