// Webhook deliveries not yet delivered, and the dead letters, per endpoint then summed.
// Index use: one look-up per endpoint in webhook_deliveries_endpoint_status_idx
// (endpoint_id, status); delivered rows, the bulk of the table, are never read. Endpoints are
// one per merchant, so the loop is as long as the merchant list.
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { rowsOf } from '../../db/queries/raw-rows.ts';
import type { WebhookBacklog } from '../schema.ts';
import { isoOrNull, num, scopeWhere, type ReportScope } from './scope.ts';

export async function webhookBacklog(db: Db, scope: ReportScope): Promise<WebhookBacklog> {
  const now = sql`${scope.now.toISOString()}::timestamptz`;
  const result = await db.execute(sql`
    select coalesce(sum(d.pending), 0) as pending, coalesce(sum(d.due_now), 0) as due_now, coalesce(sum(d.delivering), 0) as delivering,
      coalesce(sum(d.dead), 0) as dead, count(*) filter (where not e.enabled) as disabled_endpoints, min(d.oldest_pending) as oldest_pending
    from webhook_endpoints e
    cross join lateral (
      select count(*) filter (where w.status = 'pending') as pending,
        count(*) filter (where w.status = 'pending' and w.next_attempt_at <= ${now}) as due_now,
        count(*) filter (where w.status = 'delivering') as delivering,
        count(*) filter (where w.status = 'dead') as dead,
        min(w.created_at) filter (where w.status = 'pending') as oldest_pending
      from webhook_deliveries w
      where w.endpoint_id = e.id and w.status in ('pending', 'delivering', 'dead')
    ) d
    where ${scopeWhere('e', { ...scope, since: undefined })}`);
  const r = rowsOf(result)[0] ?? {};
  return {
    pending: num(r.pending), dueNow: num(r.due_now), delivering: num(r.delivering), dead: num(r.dead),
    disabledEndpoints: num(r.disabled_endpoints), oldestPendingAt: isoOrNull(r.oldest_pending),
  };
}
