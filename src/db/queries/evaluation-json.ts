// The rows of a group of evaluates, as one JSON parameter. A multi-row statement with a
// parameter per value changes its text with the group's size and goes past the prepared-
// statement bound (src/db/prepared.ts): two round trips, and a new plan each time. One JSON
// array keeps the statement text fixed (prepared once per connection, one round trip) whatever
// the group's size; json_populate_record reads each element as a row of its table, so the
// column types come from the table itself.
import { sql, type SQL } from 'drizzle-orm';
import type { NewApiAttempt, NewApiOrder } from './insert-api-order.ts';

export const ORDER_COLUMNS = [
  'id', 'merchant_id', 'order_id', 'idempotency_key', 'kind', 'status', 'status_reason', 'amount', 'currency', 'card_token', 'card_brand',
  'card_bin', 'card_last4', 'expires_at', 'decline_code', 'decline_source', 'declined_at', 'decline_advice', 'prior_attempts', 'request', 'next_attempt_at', 'plan_reason', 'attempt_count',
  'confirmation_id', 'created_at', 'updated_at', 'finished_at',
] as const;

export const ATTEMPT_COLUMNS = [
  'order_session_key', 'merchant_id', 'card_token', 'attempt_no', 'idempotency_key', 'status', 'amount', 'currency', 'response_code',
  'advice_code', 'decline_class', 'reason', 'processor_ref', 'latency_ms', 'plan_reason', 'started_at', 'finished_at', 'account_id',
  'route', 'raw_code', 'raw_message', 'network_transaction_id',
] as const;

export const PROCESSOR_CALL_COLUMNS = ['idempotency_key', 'operation', 'reference', 'approved', 'response', 'created_at'] as const;

/** `(cols) select (rec).col, …`: an insert's column list and the values read from a populated record. */
export function columnsOf(columns: readonly string[], record: string): { names: SQL; values: SQL } {
  return { names: sql.raw(`(${columns.join(', ')})`), values: sql.raw(columns.map((c) => `(${record}).${c}`).join(', ')) };
}

export function orderJson(o: NewApiOrder): Record<string, unknown> {
  return {
    id: o.id, merchant_id: o.merchantId, order_id: o.orderId, idempotency_key: o.idempotencyKey, kind: o.kind, status: o.status,
    status_reason: o.statusReason ?? null, amount: o.amount, currency: o.currency, card_token: o.cardToken, card_brand: o.cardBrand ?? null,
    card_bin: o.cardBin ?? null, card_last4: o.cardLast4 ?? null, expires_at: o.expiresAt ?? null, decline_code: o.declineCode,
    decline_source: o.declineSource, declined_at: o.declinedAt ?? null, decline_advice: o.declineAdvice ?? null, prior_attempts: o.priorAttempts ?? null,
    request: o.request, next_attempt_at: o.nextAttemptAt ?? null, plan_reason: o.planReason ?? null,
    attempt_count: o.attemptCount ?? 0, confirmation_id: o.confirmationId ?? null, created_at: o.createdAt, updated_at: o.createdAt,
    finished_at: o.finishedAt ?? null,
  };
}

/** The attempt of order `o`: the order's card, amount and currency, as insertApiOrder writes them. */
export function attemptJson(o: NewApiOrder, a: NewApiAttempt): Record<string, unknown> {
  return {
    order_session_key: o.id, merchant_id: o.merchantId, card_token: o.cardToken, attempt_no: a.attemptNo, idempotency_key: a.idempotencyKey,
    status: a.status, amount: o.amount, currency: o.currency, response_code: a.responseCode ?? null, advice_code: a.adviceCode ?? null,
    decline_class: a.declineClass ?? null, reason: a.reason ?? null, processor_ref: a.processorRef ?? null, latency_ms: a.latencyMs ?? null,
    plan_reason: a.planReason ?? null, started_at: a.startedAt, finished_at: a.finishedAt ?? null, account_id: a.accountId ?? null,
    route: a.route ?? null, raw_code: a.rawCode ?? null, raw_message: a.rawMessage ?? null, network_transaction_id: a.networkTransactionId ?? null,
  };
}

/** An idempotency record's state as the statements of a group read it. */
export interface HeldKey {
  route: string;
  hash: string;
  state: string;
  statusCode: number | null;
  response: unknown;
}

export function heldOf(row: Record<string, unknown>): HeldKey | undefined {
  if (row.held_route === null || row.held_route === undefined) return undefined;
  const response = typeof row.held_response === 'string' ? JSON.parse(row.held_response) : row.held_response;
  return { route: String(row.held_route), hash: String(row.held_hash), state: String(row.held_state), statusCode: row.held_status === null ? null : Number(row.held_status), response };
}

/** What kept a row of a group from being written, when it was the key's record or the orderId. */
export function blockedBy(row: Record<string, unknown>): { kind: 'held'; held: HeldKey } | { kind: 'order_id_taken' } | undefined {
  const held = heldOf(row);
  if (held && row.held === true) return { kind: 'held', held };
  if (row.order_id_taken === true) return { kind: 'order_id_taken' };
  return undefined;
}

/**
 * Look-ups per input row go through a LATERAL subquery with LIMIT 1: the planner cannot turn
 * those into a hash join, which (estimating 100 rows for json_to_recordset) it chose for a
 * plain join or EXISTS, reading the whole of idempotency_records or orders once per group —
 * a cost that grows with the tables (seen in the plans of the evaluate bench).
 */
export const orderIdTaken = (alias: string) => `left join lateral (select true as taken from orders e
    where e.merchant_id = x.merchant_id and e.order_id = x.order_id limit 1) ${alias} on true`;

/**
 * The key's current record, per input row (`x.i`), and whether a new request may take it:
 * expired, or in flight past `stale_before` with the same body (its instance died). The same
 * rule as claimIdempotency's.
 */
export const HELD_CTE = sql.raw(`held as (
    select x.i, h.route as held_route, h.request_hash as held_hash, h.state as held_state, h.status_code as held_status, h.response as held_response,
      (h.expires_at < x.now or (h.state = 'in_flight' and h.created_at < x.stale_before and h.request_hash = x.request_hash)) as free
    from input x cross join lateral (select * from idempotency_records r where r.merchant_id = x.merchant_id and r.key = x.key limit 1) h
  )`);

/** The claim's ON CONFLICT: take over only a record `held` saw free and that nobody changed since. */
export const TAKE_OVER = sql.raw(`on conflict (merchant_id, key) do update set route = excluded.route, request_hash = excluded.request_hash,
      state = excluded.state, status_code = excluded.status_code, response = excluded.response, created_at = excluded.created_at, expires_at = excluded.expires_at
    where exists (select 1 from ok where ok.merchant_id = excluded.merchant_id and ok.key = excluded.key
      and (idempotency_records.expires_at < ok.now
        or (idempotency_records.state = 'in_flight' and idempotency_records.created_at < ok.stale_before and idempotency_records.request_hash = ok.request_hash)))`);
