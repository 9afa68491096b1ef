// insertApiOrder for a group: the orders of evaluates whose keys are claimed, with their
// attempts and their idempotency records' answers, in one statement. Each row stands alone: an
// order whose orderId or key is already used is skipped (and reported so), the others are kept.
import { sql } from 'drizzle-orm';
import type { Db } from '../client.ts';
import type { AnsweredKey, NewApiAttempt, NewApiOrder } from './insert-api-order.ts';
import { ATTEMPT_COLUMNS, ORDER_COLUMNS, attemptJson, columnsOf, orderJson } from './evaluation-json.ts';
import { rowsOf } from './raw-rows.ts';

export interface ApiOrderWrite {
  order: NewApiOrder;
  attempt: NewApiAttempt | undefined;
  answered: AnsweredKey;
}

const o = columnsOf(ORDER_COLUMNS, 'x.o_row');
const a = columnsOf(ATTEMPT_COLUMNS, 'r');

const statement = (rows: string) => sql`
  with input as (
    select t.*, o_row from json_to_recordset(${rows}::json) as t(i int, id uuid, merchant_id uuid, key text, status_code int, response json, o json, a json),
      json_populate_record(null::orders, t.o) as o_row
  ),
  stored as (
    insert into orders ${o.names} select ${o.values} from input x on conflict do nothing returning id
  ),
  tried as (
    insert into attempts ${a.names} select ${a.values} from input x join stored s on s.id = x.id, json_populate_record(null::attempts, x.a) r
    where x.a is not null returning 1
  ),
  answered as (
    update idempotency_records r set state = 'done', status_code = x.status_code, response = x.response
    from input x join stored s on s.id = x.id
    where r.merchant_id = x.merchant_id and r.key = x.key
    returning 1
  )
  select x.i, (s.id is not null) as stored from input x left join stored s on s.id = x.id`;

/** True per row when its order was inserted; false when its orderId or idempotencyKey was already used. */
export async function insertApiOrders(db: Db, writes: ApiOrderWrite[]): Promise<boolean[]> {
  if (writes.length === 0) return [];
  const rows = JSON.stringify(writes.map((w, i) => ({
    i, id: w.order.id, merchant_id: w.order.merchantId, key: w.answered.key, status_code: w.answered.statusCode, response: w.answered.response,
    o: orderJson(w.order), ...(w.attempt ? { a: attemptJson(w.order, w.attempt) } : {}),
  })));
  const stored = new Set(rowsOf(await db.execute(statement(rows))).filter((r) => r.stored === true).map((r) => Number(r.i)));
  return writes.map((_, i) => stored.has(i));
}
