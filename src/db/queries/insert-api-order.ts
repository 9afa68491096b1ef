// One evaluate's writes in one statement: the order, its attempt (a CIT soft decline is
// attempted once at once) and the idempotency record's answer. One round trip keeps the
// real-time path short; the unique indexes decide duplicates.
import { sql } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { attempts, idempotencyRecords, orders } from '../schema.ts';
import { rowsOf } from './raw-rows.ts';

export type NewApiOrder = Omit<typeof orders.$inferInsert, 'id'> & { id: string; createdAt: Date };
export type NewApiAttempt = Omit<typeof attempts.$inferInsert, 'orderSessionKey' | 'merchantId' | 'cardToken' | 'amount' | 'currency'>;

export interface AnsweredKey {
  key: string;
  statusCode: number;
  response: unknown;
}

const ts = (d: Date | null | undefined) => (d ? d.toISOString() : null);

/** True when the order was inserted; false when its orderId or idempotencyKey was already used. */
export async function insertApiOrder(db: Db, o: NewApiOrder, attempt: NewApiAttempt | undefined, answered: AnsweredKey): Promise<boolean> {
  const attemptSql = attempt
    ? sql`, a as (
        insert into ${attempts} (order_session_key, merchant_id, card_token, attempt_no, idempotency_key, status, amount, currency,
          response_code, advice_code, decline_class, reason, processor_ref, latency_ms, plan_reason, started_at, finished_at,
          account_id, route, raw_code, raw_message, network_transaction_id)
        select o.id, o.merchant_id, o.card_token, ${attempt.attemptNo}, ${attempt.idempotencyKey}, ${attempt.status}, o.amount, o.currency,
          ${attempt.responseCode ?? null}, ${attempt.adviceCode ?? null}, ${attempt.declineClass ?? null}, ${attempt.reason ?? null},
          ${attempt.processorRef ?? null}, ${attempt.latencyMs ?? null}, ${attempt.planReason ?? null}, ${ts(attempt.startedAt)}, ${ts(attempt.finishedAt)},
          ${attempt.accountId ?? null}::uuid, ${attempt.route ?? null}, ${attempt.rawCode ?? null}, ${attempt.rawMessage ?? null}, ${attempt.networkTransactionId ?? null}
        from o returning 1)`
    : sql``;
  const result = await db.execute(sql`
    with o as (
      insert into ${orders} (id, merchant_id, order_id, idempotency_key, kind, status, status_reason, amount, currency, card_token, card_brand,
        card_bin, card_last4, expires_at, decline_code, decline_source, declined_at, decline_advice, prior_attempts, request, next_attempt_at, plan_reason, attempt_count, confirmation_id,
        created_at, updated_at, finished_at)
      values (${o.id}, ${o.merchantId}, ${o.orderId}, ${o.idempotencyKey}, ${o.kind}, ${o.status}, ${o.statusReason ?? null}, ${o.amount},
        ${o.currency}, ${o.cardToken}, ${o.cardBrand ?? null}, ${o.cardBin ?? null}, ${o.cardLast4 ?? null}, ${ts(o.expiresAt)},
        ${o.declineCode}, ${o.declineSource}, ${ts(o.declinedAt)}, ${o.declineAdvice ?? null}, ${o.priorAttempts == null ? null : JSON.stringify(o.priorAttempts)}::json,
        ${JSON.stringify(o.request)}::json, ${ts(o.nextAttemptAt)}, ${o.planReason ?? null},
        ${o.attemptCount ?? 0}, ${o.confirmationId ?? null}, ${ts(o.createdAt)}, ${ts(o.createdAt)}, ${ts(o.finishedAt)})
      on conflict do nothing
      returning id, merchant_id, card_token, amount, currency
    )${attemptSql}, i as (
      update ${idempotencyRecords} set state = 'done', status_code = ${answered.statusCode}, response = ${JSON.stringify(answered.response)}::json
      where merchant_id = ${o.merchantId} and key = ${answered.key} and exists (select 1 from o)
      returning 1
    )
    select count(*)::int as n from o`);
  return Number(rowsOf(result)[0]?.n) === 1;
}
