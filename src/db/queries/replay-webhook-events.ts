// `rescued webhooks replay`: a replay is a NEW delivery of the same event (same webhook-id, so
// a receiver that already processed it can tell), marked is_resent so its body says
// `IsResent: true`, to the merchant's current endpoint, due at once. One statement: the
// events are chosen by id, by a delivery's id, or by time.
import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { rowsOf } from './raw-rows.ts';

export type ReplaySelector =
  | { eventId: string }
  | { deliveryId: string }
  | { since: Date; mid?: string | undefined; onlyDead: boolean };

function chosenEvents(s: ReplaySelector): SQL {
  if ('eventId' in s) return sql`select ev.id, ev.merchant_id from webhook_events ev where ev.id = ${s.eventId}`;
  if ('deliveryId' in s) return sql`select ev.id, ev.merchant_id from webhook_events ev join webhook_deliveries d on d.event_id = ev.id where d.id = ${s.deliveryId}::uuid`;
  return sql`select ev.id, ev.merchant_id from webhook_events ev
    where ev.created_at >= ${s.since.toISOString()}::timestamptz
      ${s.mid ? sql`and ev.merchant_id = (select id from merchants where mid = ${s.mid}::uuid)` : sql``}
      ${s.onlyDead ? sql`and exists (select 1 from webhook_deliveries d where d.event_id = ev.id and d.status = 'dead')
        and not exists (select 1 from webhook_deliveries d where d.event_id = ev.id and d.status in ('delivered', 'pending', 'delivering'))` : sql``}`;
}

export interface Replayed {
  deliveryId: string;
  webhookId: string;
}

export async function replayWebhookEvents(db: Db, s: ReplaySelector, now: Date): Promise<{ events: number; replayed: Replayed[] }> {
  const result = await db.execute(sql`
    with chosen as (${chosenEvents(s)}),
    ins as (
      insert into webhook_deliveries (event_id, endpoint_id, status, is_resent, next_attempt_at)
      select c.id, e.id, 'pending', true, ${now.toISOString()}::timestamptz
      from chosen c join webhook_endpoints e on e.merchant_id = c.merchant_id and e.url is not null
      returning id, event_id
    )
    select (select count(*)::int from chosen) as events, ins.id, ins.event_id from (select 1) one left join ins on true`);
  const rows = rowsOf(result);
  return {
    events: Number(rows[0]?.events ?? 0),
    replayed: rows.filter((r) => r.id !== null && r.id !== undefined).map((r) => ({ deliveryId: String(r.id), webhookId: String(r.event_id) })),
  };
}
