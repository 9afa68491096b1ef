// The merchant model's counters, for one merchant and summed over all merchants (the prior).
import { eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { merchantModelStats } from '../schema.ts';

export interface StatRow {
  dimension: string;
  bucket: string;
  approvals: number;
  total: number;
}

const DIMENSIONS = ['hour', 'day'];

export async function merchantStats(db: Db, merchantId: string): Promise<StatRow[]> {
  return db
    .select({ dimension: merchantModelStats.dimension, bucket: merchantModelStats.bucket, approvals: merchantModelStats.approvals, total: merchantModelStats.total })
    .from(merchantModelStats)
    .where(eq(merchantModelStats.merchantId, merchantId));
}

/** Hour and day counters over every merchant. */
export async function globalStats(db: Db): Promise<StatRow[]> {
  const rows = await db
    .select({
      dimension: merchantModelStats.dimension,
      bucket: merchantModelStats.bucket,
      approvals: sql<number>`sum(${merchantModelStats.approvals})::int`,
      total: sql<number>`sum(${merchantModelStats.total})::int`,
    })
    .from(merchantModelStats)
    .where(inArray(merchantModelStats.dimension, DIMENSIONS))
    .groupBy(merchantModelStats.dimension, merchantModelStats.bucket);
  return rows.map((r) => ({ ...r, approvals: Number(r.approvals), total: Number(r.total) }));
}
