// The learned-timing table (docs/engine.md "Learned timing"): outcomes added a group of
// attempts per statement, the sums the planner reads (one grouping-sets statement per scope),
// pruning, and the cells `rescued report` shows.
import { sql } from 'drizzle-orm';
import type { DbOrTx as Tx } from '../client.ts';
import { selectRows } from './claim-orders.ts';

/** One cell's outcomes to add: attempts made and approvals among them. */
export interface OutcomeRow {
  merchantId: string;
  family: string;
  brand: string;
  bin: string;
  weekday: number;
  localHour: number;
  dayBucket: number;
  attempts: number;
  approvals: number;
}

/** A cell is kept this long after its last outcome. */
export const LEARNED_MAX_AGE_DAYS = 400;
/** A merchant keeps at most this many cells (its least used go first): 24 hours × 7 days × 6 buckets for about 30 family × issuer pairs. */
export const LEARNED_MAX_CELLS_PER_MERCHANT = 30_240;
/** The table over every merchant keeps at most this many (about 200 family × issuer pairs in full). */
export const LEARNED_MAX_GLOBAL_CELLS = 201_600;

/** Adds the outcomes, cells summed first (one row may appear once per statement). */
export async function addOutcomes(tx: Tx, outcomes: OutcomeRow[], now: Date): Promise<void> {
  if (outcomes.length === 0) return;
  const summed = new Map<string, OutcomeRow>();
  for (const o of outcomes) {
    const key = [o.merchantId, o.family, o.brand, o.bin, o.weekday, o.localHour, o.dayBucket].join('|');
    const hit = summed.get(key);
    if (hit) {
      hit.attempts += o.attempts;
      hit.approvals += o.approvals;
    } else summed.set(key, { ...o });
  }
  // One statement: the merchant's cells, and through a data-modifying CTE the same outcomes
  // summed into the table over every merchant. Rows go in key order, so two statements that
  // share cells lock them in the same order.
  await tx.execute(sql`with r as (
      select * from json_to_recordset(${JSON.stringify([...summed.values()])}::json) as r("merchantId" uuid, "family" text, "brand" text, "bin" text,
        "weekday" smallint, "localHour" smallint, "dayBucket" smallint, "attempts" integer, "approvals" integer)),
    own as (
      insert into learned_timing (merchant_id, family, brand, bin, weekday, local_hour, day_bucket, attempts, approvals, updated_at)
      select "merchantId", "family", "brand", "bin", "weekday", "localHour", "dayBucket", "attempts", "approvals", ${now.toISOString()}::timestamptz
      from r order by 1, 2, 3, 4, 5, 6, 7
      on conflict (merchant_id, family, brand, bin, weekday, local_hour, day_bucket) do update
        set attempts = learned_timing.attempts + excluded.attempts, approvals = learned_timing.approvals + excluded.approvals, updated_at = excluded.updated_at
      returning 1)
    insert into learned_timing_global (family, brand, bin, weekday, local_hour, day_bucket, attempts, approvals, updated_at)
    select "family", "brand", "bin", "weekday", "localHour", "dayBucket", sum("attempts")::int, sum("approvals")::int, ${now.toISOString()}::timestamptz
    from r group by 1, 2, 3, 4, 5, 6 order by 1, 2, 3, 4, 5, 6
    on conflict (family, brand, bin, weekday, local_hour, day_bucket) do update
      set attempts = learned_timing_global.attempts + excluded.attempts, approvals = learned_timing_global.approvals + excluded.approvals, updated_at = excluded.updated_at`);
}

export interface GroupedRow {
  family: string | null;
  brand: string | null;
  bin: string | null;
  weekday: number | null;
  localHour: number | null;
  dayBucket: number | null;
  attempts: number;
  approvals: number;
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** The sums the planner reads, for one merchant or (null) over every merchant (its own table). */
export async function learnedSums(db: Tx, merchantId: string | null): Promise<GroupedRow[]> {
  const from = merchantId === null ? sql`learned_timing_global` : sql`learned_timing where merchant_id = ${merchantId}`;
  const rows = await selectRows(db, sql`select family, brand, bin, weekday, local_hour, day_bucket, sum(attempts)::int as attempts, sum(approvals)::int as approvals
    from ${from}
    group by grouping sets ((family), (family, brand), (family, brand, bin), (family, local_hour), (family, weekday), (family, day_bucket), (family, weekday, local_hour),
      (), (local_hour), (weekday), (day_bucket), (weekday, local_hour))`);
  return rows.map((r) => ({
    family: (r.family as string | null) ?? null, brand: (r.brand as string | null) ?? null, bin: (r.bin as string | null) ?? null,
    weekday: num(r.weekday), localHour: num(r.local_hour), dayBucket: num(r.day_bucket), attempts: Number(r.attempts), approvals: Number(r.approvals),
  }));
}

/** Drops cells unused for LEARNED_MAX_AGE_DAYS and, past the caps, the least used; returns how many. */
export async function pruneLearnedTiming(tx: Tx, now: Date): Promise<number> {
  const old = new Date(now.getTime() - LEARNED_MAX_AGE_DAYS * 86_400_000).toISOString();
  const own = await selectRows(tx, sql`with ranked as (
      select merchant_id, family, brand, bin, weekday, local_hour, day_bucket, updated_at,
        row_number() over (partition by merchant_id order by attempts desc, updated_at desc) as n
      from learned_timing)
    delete from learned_timing t using ranked r
    where (t.merchant_id, t.family, t.brand, t.bin, t.weekday, t.local_hour, t.day_bucket) = (r.merchant_id, r.family, r.brand, r.bin, r.weekday, r.local_hour, r.day_bucket)
      and (r.n > ${LEARNED_MAX_CELLS_PER_MERCHANT} or r.updated_at < ${old}::timestamptz)
    returning 1`);
  const global = await selectRows(tx, sql`with ranked as (
      select family, brand, bin, weekday, local_hour, day_bucket, updated_at, row_number() over (order by attempts desc, updated_at desc) as n
      from learned_timing_global)
    delete from learned_timing_global t using ranked r
    where (t.family, t.brand, t.bin, t.weekday, t.local_hour, t.day_bucket) = (r.family, r.brand, r.bin, r.weekday, r.local_hour, r.day_bucket)
      and (r.n > ${LEARNED_MAX_GLOBAL_CELLS} or r.updated_at < ${old}::timestamptz)
    returning 1`);
  return own.length + global.length;
}

export interface LearnedHourRow {
  family: string;
  localHour: number;
  attempts: number;
  approvals: number;
}

/** The report's view: attempts and approvals per family and local hour, and the table's size, for one merchant or all. */
export async function learnedHours(db: Tx, merchantId: string | undefined): Promise<{ hours: LearnedHourRow[]; cells: number }> {
  const where = merchantId === undefined ? sql`` : sql`where merchant_id = ${merchantId}`;
  const [total] = await selectRows(db, sql`select count(*)::int as n from learned_timing ${where}`);
  const hours = await selectRows(db, sql`select family, local_hour, sum(attempts)::int as attempts, sum(approvals)::int as approvals
    from learned_timing ${where} group by family, local_hour`);
  return {
    cells: Number(total?.n ?? 0),
    hours: hours.map((r) => ({ family: r.family as string, localHour: Number(r.local_hour), attempts: Number(r.attempts), approvals: Number(r.approvals) })),
  };
}
