// The outcome of many POSTs in one statement: each attempt becomes a webhook_attempts row and
// moves its delivery on (delivered, pending with its next time, dead), and a 410 disables the
// endpoint. The rows travel as one json parameter (as insert-orders.ts measured, the cheapest
// way to hand PostgreSQL many rows). A delivery whose lease this dispatcher no longer holds
// (it expired and the delivery was claimed again) keeps its new state; the attempt is still
// recorded, because it happened.
import { sql } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { rowsOf } from './raw-rows.ts';

export interface AttemptRecord {
  deliveryId: string;
  endpointId: string;
  attemptNo: number;
  attemptedAt: Date;
  statusCode: number | null;
  latencyMs: number;
  /** What went wrong without an HTTP answer (never a secret); null when the receiver answered. */
  error: string | null;
  /** The delivery's state afterwards. */
  status: 'delivered' | 'pending' | 'dead';
  nextAttemptAt: Date | null;
  /** A 410: the endpoint is disabled until `rescued webhooks enable`. */
  disableEndpoint: boolean;
}

/** Returns how many deliveries were moved on (the others had lost their lease). */
export async function recordWebhookAttempts(db: Db, owner: string, records: readonly AttemptRecord[]): Promise<number> {
  if (records.length === 0) return 0;
  const rows = JSON.stringify(records.map((r) => ({
    id: r.deliveryId, endpoint_id: r.endpointId, attempt_no: r.attemptNo, attempted_at: r.attemptedAt.toISOString(), status_code: r.statusCode,
    latency_ms: r.latencyMs, error: r.error, status: r.status, next_attempt_at: r.nextAttemptAt?.toISOString() ?? null, disable: r.disableEndpoint,
  })));
  const result = await db.execute(sql`
    with v as (
      select * from json_to_recordset(${rows}::json) as v(id uuid, endpoint_id uuid, attempt_no int, attempted_at timestamptz,
        status_code int, latency_ms int, error text, status text, next_attempt_at timestamptz, disable boolean)
    ),
    ins as (
      insert into webhook_attempts (delivery_id, attempt_no, attempted_at, status_code, latency_ms, error)
      select id, attempt_no, attempted_at, status_code, latency_ms, error from v
    ),
    dis as (
      update webhook_endpoints e set enabled = false, updated_at = now(),
        disabled_reason = 'the receiver answered 410 Gone at ' || to_char(v.attempted_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
      from v where v.disable and e.id = v.endpoint_id
    ),
    upd as (
      update webhook_deliveries d set status = v.status, attempt_count = v.attempt_no, next_attempt_at = v.next_attempt_at,
        lease_owner = null, lease_expires_at = null, last_status_code = v.status_code, last_error = v.error,
        finished_at = case when v.status in ('delivered', 'dead') then v.attempted_at end
      from v where d.id = v.id and d.status = 'delivering' and d.lease_owner = ${owner}
      returning d.id
    )
    select count(*)::int as n from upd`);
  return Number(rowsOf(result)[0]?.n ?? 0);
}
