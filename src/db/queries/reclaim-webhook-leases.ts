// Deliveries whose lease ran out (their dispatcher died or hung) go back to pending, due at
// once; one statement over the partial lease index.
import { sql } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { rowsOf } from './raw-rows.ts';

/** Returns how many deliveries came back. */
export async function reclaimExpiredWebhookLeases(db: Db, now: Date): Promise<number> {
  const result = await db.execute(sql`
    update webhook_deliveries set status = 'pending', lease_owner = null, lease_expires_at = null,
      next_attempt_at = least(coalesce(next_attempt_at, ${now.toISOString()}::timestamptz), ${now.toISOString()}::timestamptz)
    where status = 'delivering' and lease_expires_at <= ${now.toISOString()}::timestamptz
    returning id`);
  return rowsOf(result).length;
}
