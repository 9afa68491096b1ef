// The engine's queue now: open MIT orders by what they wait for, and CIT challenges.
// Index use: orders_open_expiry_idx, the partial index whose predicate is exactly these four
// statuses, so the statement reads the open orders only, however many are final.
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { rowsOf } from '../../db/queries/raw-rows.ts';
import type { Queue } from '../schema.ts';
import { isoOrNull, num, scopeWhere, type ReportScope } from './scope.ts';

export async function queueDepth(db: Db, scope: ReportScope): Promise<Queue> {
  const now = sql`${scope.now.toISOString()}::timestamptz`;
  const result = await db.execute(sql`
    select count(*) filter (where o.status = 'SUBMITTED') as to_plan,
      count(*) filter (where o.status = 'PENDING' and o.next_attempt_at <= ${now}) as due_now,
      count(*) filter (where o.status = 'PENDING' and o.next_attempt_at > ${now}) as scheduled,
      count(*) filter (where o.status = 'PENDING' and o.next_attempt_at is null and o.plan_reason is distinct from 'awaiting_updated_card') as parked,
      count(*) filter (where o.status = 'PENDING' and o.next_attempt_at is null and o.plan_reason = 'awaiting_updated_card') as awaiting_card,
      count(*) filter (where o.status = 'PROCESSING') as in_flight,
      count(*) filter (where o.status = 'CHALLENGE') as awaiting_challenge,
      min(o.next_attempt_at) filter (where o.status in ('SUBMITTED', 'PENDING') and o.next_attempt_at <= ${now}) as oldest_due
    from orders o
    where ${scopeWhere('o', { ...scope, since: undefined }, undefined, [sql`o.status in ('SUBMITTED', 'PENDING', 'PROCESSING', 'CHALLENGE')`])}`);
  const r = rowsOf(result)[0] ?? {};
  const q = { toPlan: num(r.to_plan), dueNow: num(r.due_now), scheduled: num(r.scheduled), parked: num(r.parked), awaitingCard: num(r.awaiting_card), inFlight: num(r.in_flight) };
  return { depth: q.toPlan + q.dueNow + q.scheduled + q.parked + q.awaitingCard + q.inFlight, ...q, awaitingChallenge: num(r.awaiting_challenge), oldestDueAt: isoOrNull(r.oldest_due) };
}
