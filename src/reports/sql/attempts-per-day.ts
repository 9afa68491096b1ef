// Attempts per UTC day: those started (done) from the window's start, and those planned —
// the next attempt of each PENDING order, by its nextAttemptAt (an overdue one counts today).
//
// Index use: done, with a merchant, reads attempts_card_idx (merchant_id leads, started_at is
// in the key); across merchants it scans attempts once. Planned reads orders_due_idx, the
// partial index on next_attempt_at of SUBMITTED and PENDING orders the engine claims from, so
// its cost follows the open orders, never the finished ones.
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { rowsOf } from '../../db/queries/raw-rows.ts';
import { num, scopeWhere, type ReportScope } from './scope.ts';

export interface DoneDay {
  day: string;
  done: number;
  approved: number;
  declined: number;
}

export async function attemptsDonePerDay(db: Db, scope: ReportScope, from: Date): Promise<DoneDay[]> {
  const result = await db.execute(sql`
    select to_char(date_trunc('day', a.started_at, 'UTC'), 'YYYY-MM-DD') as day, count(*) as done,
      count(*) filter (where a.status = 'approved') as approved, count(*) filter (where a.status = 'declined') as declined
    from attempts a
    where ${scopeWhere('a', scope, undefined, [sql`a.started_at >= ${from.toISOString()}::timestamptz`])}
    group by 1 order by 1`);
  return rowsOf(result).map((r) => ({ day: String(r.day), done: num(r.done), approved: num(r.approved), declined: num(r.declined) }));
}

export async function attemptsPlannedPerDay(db: Db, scope: ReportScope): Promise<{ day: string; planned: number }[]> {
  const now = scope.now.toISOString();
  const result = await db.execute(sql`
    select to_char(date_trunc('day', greatest(o.next_attempt_at, ${now}::timestamptz), 'UTC'), 'YYYY-MM-DD') as day, count(*) as planned
    from orders o
    where ${scopeWhere('o', { ...scope, since: undefined }, undefined, [sql`o.status = 'PENDING'`, sql`o.next_attempt_at is not null`])}
    group by 1 order by 1`);
  return rowsOf(result).map((r) => ({ day: String(r.day), planned: num(r.planned) }));
}
