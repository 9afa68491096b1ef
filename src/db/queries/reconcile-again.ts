// `rescued orders reconcile`: a parked order (its attempt's outcome still unknown after
// processor.reconcileTimeoutMs) goes back to the engine, which reconciles the attempt again
// — a replay of its key or a look-up first, never a new charge — with a fresh window. Used
// once the operator has fixed what kept the gateway from answering (credentials, an outage).
import { sql } from 'drizzle-orm';
import type { DbOrTx as Tx } from '../client.ts';
import { selectRows } from './claim-orders.ts';

export type ReconcileAgain = 'queued' | 'not_parked';

export async function reconcileAgain(db: Tx, orderSessionKey: string, now: Date): Promise<ReconcileAgain> {
  const at = now.toISOString();
  const rows = await selectRows(
    db,
    sql`with parked as (
      update orders set next_attempt_at = ${at}::timestamptz, status_reason = null, updated_at = ${at}::timestamptz
      where id = ${orderSessionKey} and status = 'PENDING' and status_reason = 'unreconciled' and next_attempt_at is null
      returning id
    )
    update attempts a set unknown_since = ${at}::timestamptz
    from parked where a.order_session_key = parked.id and a.status = 'in_flight'
    returning a.id`,
  );
  return rows.length > 0 ? 'queued' : 'not_parked';
}
