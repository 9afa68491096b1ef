// `rescued webhooks enable`: an endpoint disabled by a 410 takes deliveries again. The
// deliveries that waited for it were left due (at the time of the 410), so they go at once.
import { sql } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { rowsOf } from './raw-rows.ts';

/** `ref` is an endpoint id or a merchant's mid. Undefined when neither names an endpoint. */
export async function enableWebhookEndpoint(db: Db, ref: string): Promise<{ endpointId: string; mid: string; url: string | null; waiting: number } | undefined> {
  const result = await db.execute(sql`
    with e as (
      update webhook_endpoints e set enabled = true, disabled_reason = null, updated_at = now()
      from merchants m
      where m.id = e.merchant_id and (e.id = ${ref}::uuid or m.mid = ${ref}::uuid)
      returning e.id, e.url, m.mid
    )
    select e.id, e.url, e.mid, (select count(*)::int from webhook_deliveries w where w.endpoint_id = e.id and w.status = 'pending') as waiting from e`);
  const row = rowsOf(result)[0];
  return row ? { endpointId: String(row.id), mid: String(row.mid), url: row.url === null ? null : String(row.url), waiting: Number(row.waiting) } : undefined;
}
