// The engine's claim with its attempt rows, in ONE statement: due PENDING orders are picked
// (`FOR UPDATE SKIP LOCKED`, so two instances never take the same order), moved to
// PROCESSING under this instance's lease, and given their in-flight attempt row. A reclaimed
// order whose attempt is already in flight (its instance died after starting it) keeps that
// row: the insert skips it (`on conflict do nothing`) and the final select finds it, so the
// retry reuses its idempotency key. Before, the claim and each attempt row were separate
// round trips (one per order); now a batch of 200 costs one.
import { sql } from 'drizzle-orm';
import type { DbOrTx as Tx } from '../client.ts';
import { selectRows, toWorkOrder, type WorkOrder } from './claim-orders.ts';
import { dateOf, uuidList } from './raw-rows.ts';

/** The in-flight attempt a claimed order runs. */
export interface ClaimedAttempt {
  id: string;
  attemptNo: number;
  idempotencyKey: string;
  status: string;
  amount: number;
  currency: string;
  startedAt: Date;
  /** The account the attempt was pinned to before its call (null: not yet, or the sandbox). */
  accountId: string | null;
  /** Set when its call's outcome became unknown; cleared when reconciled. */
  unknownSince: Date | null;
}

export interface Claimed {
  order: WorkOrder;
  attempt: ClaimedAttempt;
  /** True when this claim created the attempt (nothing was sent yet); false: reused after a lost lease. */
  fresh: boolean;
}

export async function claimWithAttempts(db: Tx, owner: string, now: Date, leaseUntil: Date, limit: number): Promise<Claimed[]> {
  const at = now.toISOString();
  const rows = await selectRows(
    db,
    sql`with due as (
      select id from orders
      where status = 'PENDING' and next_attempt_at <= ${at}::timestamptz
      order by next_attempt_at
      limit ${limit}
      for update skip locked
    ), claimed as (
      update orders o set status = 'PROCESSING', lease_owner = ${owner}, lease_expires_at = ${leaseUntil.toISOString()}::timestamptz, updated_at = ${at}::timestamptz
      from due where o.id = due.id
      returning o.id, o.merchant_id, o.batch_id, o.order_id, o.status, o.amount, o.currency, o.card_token, o.card_brand, o.card_bin, o.expires_at,
        o.decline_code, o.decline_source, o.request, o.plan_reason, o.attempt_count, o.created_at, o.lease_owner, o.next_attempt_at,
        o.credential, o.card_updates
    ), fresh as (
      insert into attempts (order_session_key, merchant_id, card_token, attempt_no, idempotency_key, status, amount, currency, plan_reason, started_at)
      select c.id, c.merchant_id, coalesce(c.credential, c.card_token), c.attempt_count + 1, c.id::text || ':' || (c.attempt_count + 1)::text, 'in_flight',
        c.amount, c.currency, c.plan_reason, ${at}::timestamptz
      from claimed c
      on conflict (order_session_key, attempt_no) do nothing
      returning id, order_session_key, attempt_no, idempotency_key, status, amount, currency, started_at
    )
    select c.*, (f.id is not null) as fresh,
      coalesce(f.id, a.id) as a_id, coalesce(f.attempt_no, a.attempt_no) as a_no, coalesce(f.idempotency_key, a.idempotency_key) as a_key,
      coalesce(f.status, a.status) as a_status, coalesce(f.amount, a.amount) as a_amount, coalesce(f.currency, a.currency) as a_currency,
      coalesce(f.started_at, a.started_at) as a_started_at, a.account_id as a_account_id, a.unknown_since as a_unknown_since
    from claimed c
    left join fresh f on f.order_session_key = c.id
    left join attempts a on f.id is null and a.order_session_key = c.id and a.attempt_no = c.attempt_count + 1
    order by c.next_attempt_at, c.id`,
  );
  return rows.map((r) => ({
    order: toWorkOrder(r),
    fresh: r.fresh === true,
    attempt: {
      id: r.a_id as string,
      attemptNo: Number(r.a_no),
      idempotencyKey: r.a_key as string,
      status: r.a_status as string,
      amount: Number(r.a_amount),
      currency: r.a_currency as string,
      startedAt: dateOf(r.a_started_at),
      accountId: (r.a_account_id as string | null) ?? null,
      unknownSince: r.a_unknown_since == null ? null : dateOf(r.a_unknown_since),
    },
  }));
}

/** Forgets attempt rows this claim created but did not send (the card's caps or the deadline said no). */
export async function dropUnsentAttempts(tx: Tx, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await tx.execute(sql`delete from attempts where id in ${uuidList(ids)} and status = 'in_flight'`);
}

/** Pins attempts to the accounts chosen for them, before their calls (one statement). */
export async function pinAttempts(db: Tx, pins: { id: string; accountId: string; route: string }[]): Promise<void> {
  if (pins.length === 0) return;
  await db.execute(sql`update attempts a set account_id = p."accountId", route = p."route"
    from json_to_recordset(${JSON.stringify(pins)}::json) as p("id" uuid, "accountId" uuid, "route" text)
    where a.id = p."id" and a.status = 'in_flight'`);
}

/** The attempt's call may have reached the gateway without an answer: reconcile before anything else. */
export async function markUnknown(db: Tx, id: string, accountId: string | null, at: Date): Promise<void> {
  await db.execute(sql`update attempts set unknown_since = coalesce(unknown_since, ${at.toISOString()}::timestamptz), account_id = coalesce(account_id, ${accountId}::uuid)
    where id = ${id} and status = 'in_flight'`);
}

/** An in-flight attempt sent again after a look-up found nothing: its send time is now. */
export async function restartAttempt(db: Tx, id: string, at: Date): Promise<void> {
  await db.execute(sql`update attempts set started_at = ${at.toISOString()}::timestamptz where id = ${id} and status = 'in_flight'`);
}
