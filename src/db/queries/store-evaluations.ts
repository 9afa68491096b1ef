// A group of evaluates decided without leaving rescued (a hard or data decline, an MIT, a
// sandbox charge), stored in one statement: for each request its idempotency record (answered
// at once), its order, its attempt and the sandbox's record of the charge. Nothing is written
// for a request whose key is held, whose orderId or order is taken, or whose order already has
// processor calls; those rows come back with what stopped them.
//
// The checks read the statement's snapshot; the inserts meet rows committed since (another
// instance's request with the same key or orderId). Such a race would leave a request half
// written, so the statement then fails as a whole (a division by zero is the only way to raise
// from plain SQL) and nothing of the group is kept: the caller runs its requests again one at
// a time. Within a group, keys and orderIds are distinct (the caller sees to it).
import { sql } from 'drizzle-orm';
import type { Db } from '../client.ts';
import type { NewApiAttempt, NewApiOrder } from './insert-api-order.ts';
import { ATTEMPT_COLUMNS, HELD_CTE, ORDER_COLUMNS, PROCESSOR_CALL_COLUMNS, TAKE_OVER, attemptJson, columnsOf, blockedBy, orderIdTaken, orderJson, type HeldKey } from './evaluation-json.ts';
import { rowsOf } from './raw-rows.ts';

export interface Evaluation {
  order: NewApiOrder;
  attempt: NewApiAttempt | undefined;
  /** The sandbox's record of the attempt's charge (processor_calls). */
  processorCall: { idempotencyKey: string; operation: string; reference: string; approved: boolean; response: unknown; createdAt: Date } | undefined;
  route: string;
  requestHash: string;
  expiresAt: Date;
  staleBefore: Date;
  statusCode: number;
  response: unknown;
}

export type Stored =
  | { kind: 'stored' }
  /** The key's record stands: replay, mismatch or in flight, as the caller reads it. */
  | { kind: 'held'; held: HeldKey }
  | { kind: 'order_id_taken' }
  /** Something else stands in the way (an order or a charge under this key): the caller's slower path decides. */
  | { kind: 'other' };

const o = columnsOf(ORDER_COLUMNS, 'x.o_row');
const a = columnsOf(ATTEMPT_COLUMNS, 'r');
const p = columnsOf(PROCESSOR_CALL_COLUMNS, 'r');

const statement = (rows: string) => sql`
  with input as (
    select t.*, o_row from json_to_recordset(${rows}::json) as t(i int, merchant_id uuid, key text, route text, request_hash text, now timestamptz,
      stale_before timestamptz, expires_at timestamptz, status_code int, response json, id uuid, order_id text, o json, a json, p json),
      json_populate_record(null::orders, t.o) as o_row
  ),
  ${HELD_CTE},
  ok as (
    select x.* from input x
    where not exists (select 1 from held h where h.i = x.i and not h.free)
      and not exists (select 1 from orders e where e.merchant_id = x.merchant_id and e.order_id = x.order_id limit 1)
      and not exists (select 1 from orders e where e.id = x.id limit 1)
      and not exists (select 1 from processor_calls c where c.reference = x.id::text limit 1)
  ),
  claimed as (
    insert into idempotency_records (merchant_id, key, route, request_hash, state, status_code, response, created_at, expires_at)
    select merchant_id, key, route, request_hash, 'done', status_code, response, now, expires_at from ok
    ${TAKE_OVER}
    returning merchant_id, key
  ),
  stored as (
    insert into orders ${o.names} select ${o.values} from ok x on conflict do nothing returning id
  ),
  tried as (
    insert into attempts ${a.names} select ${a.values} from ok x join stored s on s.id = x.id, json_populate_record(null::attempts, x.a) r
    where x.a is not null returning order_session_key
  ),
  charged as (
    insert into processor_calls ${p.names} select ${p.values} from ok x join stored s on s.id = x.id, json_populate_record(null::processor_calls, x.p) r
    where x.p is not null on conflict do nothing returning reference
  )
  select x.i, (c.key is not null) as claimed, (s.id is not null) as stored, h.held_route, h.held_hash, h.held_state, h.held_status, h.held_response,
    coalesce(not h.free, false) as held,
    coalesce(t.taken, false) as order_id_taken,
    1 / (case when (c.key is not null) <> (s.id is not null)
      or (s.id is not null and x.p is not null and not exists (select 1 from charged g where g.reference = x.id::text)) then 0 else 1 end) as whole
  from input x
  left join claimed c on c.merchant_id = x.merchant_id and c.key = x.key
  left join stored s on s.id = x.id
  left join held h on h.i = x.i
  ${sql.raw(orderIdTaken('t'))}`;

function rowJson(e: Evaluation, i: number): Record<string, unknown> {
  const pc = e.processorCall;
  return {
    i, merchant_id: e.order.merchantId, key: e.order.idempotencyKey, route: e.route, request_hash: e.requestHash, now: e.order.createdAt,
    stale_before: e.staleBefore, expires_at: e.expiresAt, status_code: e.statusCode, response: e.response, id: e.order.id, order_id: e.order.orderId,
    o: orderJson(e.order),
    ...(e.attempt ? { a: attemptJson(e.order, e.attempt) } : {}),
    ...(pc ? { p: { idempotency_key: pc.idempotencyKey, operation: pc.operation, reference: pc.reference, approved: pc.approved, response: pc.response, created_at: pc.createdAt } } : {}),
  };
}

function resultOf(row: Record<string, unknown>): Stored {
  if (row.stored === true) return { kind: 'stored' };
  return blockedBy(row) ?? { kind: 'other' };
}

/** One result per evaluation, in order. Throws when a concurrent writer raced the group (nothing was kept). */
export async function storeEvaluations(db: Db, group: Evaluation[]): Promise<Stored[]> {
  if (group.length === 0) return [];
  const rows = JSON.stringify(group.map(rowJson));
  const result = await db.execute(statement(rows));
  const byIndex = new Map(rowsOf(result).map((r) => [Number(r.i), r]));
  return group.map((_, i) => resultOf(byIndex.get(i) ?? {}));
}
