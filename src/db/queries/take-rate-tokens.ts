// The shared token bucket (table rate_buckets): refill by elapsed time, then take up to `want`
// tokens, in one statement under the row's lock, so every replica draws from one bucket.
import { sql } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { rateBuckets } from '../schema.ts';
import { rowsOf } from './raw-rows.ts';

export interface Taken {
  granted: number;
  /** Tokens in the bucket before taking (after refill). */
  available: number;
}

export async function takeRateTokens(db: Db, key: string, want: number, ratePerSecond: number, burst: number, now: Date): Promise<Taken> {
  const at = now.toISOString();
  for (let tries = 0; tries < 2; tries++) {
    const result = await db.execute(sql`
      update ${rateBuckets} b set tokens = s.avail - least(${want}::float8, floor(s.avail)), updated_at = greatest(b.updated_at, ${at}::timestamptz)
      from (
        select key, least(${burst}::float8, tokens + greatest(0, extract(epoch from (${at}::timestamptz - updated_at)))::float8 * ${ratePerSecond}::float8) as avail
        from ${rateBuckets} where key = ${key} for update
      ) s
      where b.key = s.key
      returning least(${want}::float8, floor(s.avail))::int as granted, s.avail as avail`);
    const [row] = rowsOf(result);
    if (row) return { granted: Number(row.granted), available: Number(row.avail) };
    // A new bucket starts full.
    await db.insert(rateBuckets).values({ key, tokens: burst, updatedAt: now }).onConflictDoNothing();
  }
  return { granted: 0, available: 0 };
}
