// Recording a group of attempt results in the caller's transaction, a statement per step
// whatever the group's size: lock the orders, finish the attempts, move the orders. Rows
// travel as one JSON parameter (json_to_recordset / jsonb_array_elements), bound alike by
// postgres-js and PGlite. Per attempt, the same work was five statements.
import { sql } from 'drizzle-orm';
import type { DbOrTx as Tx } from '../client.ts';
import type { AttemptResult } from './attempts.ts';
import { selectRows, toWorkOrder, WORK_COLUMNS, type WorkOrder } from './claim-orders.ts';
import { uuidList } from './raw-rows.ts';
import type { OrderMove } from './move-order.ts';



/** The orders, locked for the transaction, in id order (two groups never wait on each other in a cycle). */
export async function lockOrders(tx: Tx, orderIds: string[]): Promise<Map<string, WorkOrder>> {
  if (orderIds.length === 0) return new Map();
  const rows = await selectRows(tx, sql`select ${WORK_COLUMNS} from orders where id in ${uuidList(orderIds)} order by id for update`);
  return new Map(rows.map((r) => [r.id as string, toWorkOrder(r)]));
}

/** Records each result on its attempt if still in flight; returns the ids recorded (the others were recorded by someone else). */
export async function finishAttempts(tx: Tx, results: Array<AttemptResult & { id: string }>): Promise<Set<string>> {
  if (results.length === 0) return new Set();
  const rows = results.map((r) => ({ ...r, finishedAt: r.finishedAt?.toISOString() ?? null }));
  const done = await selectRows(
    tx,
    sql`update attempts a set status = r."status", response_code = r."responseCode", advice_code = r."adviceCode", decline_class = r."declineClass",
        reason = r."reason", processor_ref = r."processorRef", latency_ms = r."latencyMs", finished_at = r."finishedAt",
        account_id = coalesce(r."accountId", a.account_id), route = coalesce(r."route", a.route), raw_code = r."rawCode", raw_message = r."rawMessage",
        network_transaction_id = r."networkTransactionId", unknown_since = null
      from json_to_recordset(${JSON.stringify(rows)}::json) as r("id" uuid, "status" text, "responseCode" text, "adviceCode" text, "declineClass" text,
        "reason" text, "processorRef" text, "latencyMs" integer, "finishedAt" timestamptz,
        "accountId" uuid, "route" text, "rawCode" text, "rawMessage" text, "networkTransactionId" text)
      where a.id = r."id" and a.status = 'in_flight'
      returning a.id`,
  );
  return new Set(done.map((r) => r.id as string));
}

export interface GuardedMove extends OrderMove {
  id: string;
  /** The order moves only if it is still in this status ... */
  from: string;
  /** ... and, when given, still leased by this owner ... */
  owner?: string;
  /**
   * ... and, when given, still charged under this credential ('' for the order's own card): a
   * card the merchant sent while the attempt was in flight sends the group to the locked path,
   * which plans the new card's first attempt instead of re-planning the old card's decline.
   */
  fromCredential?: string;
}

const FIELDS: Array<[keyof OrderMove, string, string]> = [
  ['statusReason', 'status_reason', 'text'],
  ['planReason', 'plan_reason', 'text'],
  ['nextAttemptAt', 'next_attempt_at', 'timestamptz'],
  ['attemptCount', 'attempt_count', 'integer'],
  ['confirmationId', 'confirmation_id', 'text'],
  ['finishedAt', 'finished_at', 'timestamptz'],
  ['credential', 'credential', 'text'],
  ['cardUpdates', 'card_updates', 'json'],
  ['awaitingCard', 'awaiting_card', 'json'],
  ['recoveredBy', 'recovered_by', 'text'],
  ['endedCards', 'ended_cards', 'json'],
];

const valueOf = (key: string, type: string) => (type === 'json' ? `nullif((m->'${key}')::text, 'null')::json` : `(m->>'${key}')::${type}`);

// A field absent from a move keeps its value (a move sets only what it names, as moveOrder).
const SET = sql.raw(FIELDS.map(([key, col, type]) => `${col} = case when m ? '${key}' then ${valueOf(key, type)} else o.${col} end`).join(', '));
const GUARD = sql.raw(`o.status = m->>'from' and (not m ? 'owner' or o.lease_owner = m->>'owner') and (not m ? 'fromCredential' or coalesce(o.credential, '') = m->>'fromCredential')`);

/**
 * Applies each move whose guard holds and drops the lease, as moveOrder does for one order: a
 * field absent from a move keeps its value. Returns the ids moved. The caller has checked
 * each move with assertTransition.
 */
export async function moveOrders(tx: Tx, moves: GuardedMove[], now: Date): Promise<Set<string>> {
  if (moves.length === 0) return new Set();
  const rows = await selectRows(
    tx,
    sql`update orders o set status = m->>'status', ${SET}, lease_owner = null, lease_expires_at = null, updated_at = ${now.toISOString()}::timestamptz
      from jsonb_array_elements(${JSON.stringify(moves)}::jsonb) as m
      where o.id = (m->>'id')::uuid and ${GUARD}
      returning o.id`,
  );
  return new Set(rows.map((r) => r.id as string));
}

/**
 * The common case in ONE statement: every order of the group moves if still in the status
 * and under the lease its move names, and its attempt is finished only then. Returns how
 * many orders moved and attempts were finished; the caller rolls back unless both are all
 * of them (one was cancelled meanwhile, or lost its lease) and records the group under locks.
 */
export async function finishAndMove(tx: Tx, results: Array<AttemptResult & { id: string; orderId: string }>, moves: GuardedMove[], now: Date): Promise<{ moved: number; finished: number }> {
  const rows = results.map((r) => ({ ...r, finishedAt: r.finishedAt?.toISOString() ?? null }));
  const [row] = await selectRows(
    tx,
    sql`with moved as (
      update orders o set status = m->>'status', ${SET}, lease_owner = null, lease_expires_at = null, updated_at = ${now.toISOString()}::timestamptz
      from jsonb_array_elements(${JSON.stringify(moves)}::jsonb) as m
      where o.id = (m->>'id')::uuid and ${GUARD}
      returning o.id
    ), finished as (
      update attempts a set status = r."status", response_code = r."responseCode", advice_code = r."adviceCode", decline_class = r."declineClass",
        reason = r."reason", processor_ref = r."processorRef", latency_ms = r."latencyMs", finished_at = r."finishedAt",
        account_id = coalesce(r."accountId", a.account_id), route = coalesce(r."route", a.route), raw_code = r."rawCode", raw_message = r."rawMessage",
        network_transaction_id = r."networkTransactionId", unknown_since = null
      from json_to_recordset(${JSON.stringify(rows)}::json) as r("id" uuid, "orderId" uuid, "status" text, "responseCode" text, "adviceCode" text,
        "declineClass" text, "reason" text, "processorRef" text, "latencyMs" integer, "finishedAt" timestamptz,
        "accountId" uuid, "route" text, "rawCode" text, "rawMessage" text, "networkTransactionId" text)
      where a.id = r."id" and a.status = 'in_flight' and r."orderId" in (select id from moved)
      returning a.id
    )
    select (select count(*) from moved)::int as moved, (select count(*) from finished)::int as finished`,
  );
  return { moved: Number(row?.moved ?? 0), finished: Number(row?.finished ?? 0) };
}
