// `rescued webhooks replay`: a replay is a NEW delivery of the same event (same webhook-id, so
// a receiver that already processed it can tell), marked is_resent so its body says
// `IsResent: true`, to the merchant's current endpoint, due at once. The events are chosen by
// id or by a delivery's id (one statement), or by time: then counted first and replayed a
// chunk at a time, oldest first, so the command can show how far it is — all in one
// repeatable-read transaction, which sees the same events throughout and keeps all or nothing,
// as the one statement did.
import { sql, type SQL } from 'drizzle-orm';
import type { Db, DbOrTx } from '../client.ts';
import { rowsOf } from './raw-rows.ts';

export type ReplaySelector =
  | { eventId: string }
  | { deliveryId: string }
  | { since: Date; mid?: string | undefined; onlyDead: boolean };

type SinceSelector = Extract<ReplaySelector, { since: Date }>;

/** Events created since then, with the merchant and dead-only filters. */
function sinceWhere(s: SinceSelector): SQL {
  return sql`ev.created_at >= ${s.since.toISOString()}::timestamptz
      ${s.mid ? sql`and ev.merchant_id = (select id from merchants where mid = ${s.mid}::uuid)` : sql``}
      ${s.onlyDead ? sql`and exists (select 1 from webhook_deliveries d where d.event_id = ev.id and d.status = 'dead')
        and not exists (select 1 from webhook_deliveries d where d.event_id = ev.id and d.status in ('delivered', 'pending', 'delivering'))` : sql``}`;
}

function chosenEvents(s: Exclude<ReplaySelector, SinceSelector>): SQL {
  if ('eventId' in s) return sql`select ev.id, ev.merchant_id from webhook_events ev where ev.id = ${s.eventId}`;
  return sql`select ev.id, ev.merchant_id from webhook_events ev join webhook_deliveries d on d.event_id = ev.id where d.id = ${s.deliveryId}::uuid`;
}

export interface Replayed {
  deliveryId: string;
  webhookId: string;
}

export interface ReplayResult {
  events: number;
  replayed: Replayed[];
}

/** Events replayed per statement, with --since: a count to show every few hundred milliseconds. */
const CHUNK = 1000;

/** A new delivery of each chosen event to its merchant's endpoint (none when it has no URL). */
async function replayChosen(db: DbOrTx, chosen: SQL, now: Date): Promise<ReplayResult> {
  const result = await db.execute(sql`
    with chosen as (${chosen}),
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

/** The next chunk's events after `after` (created_at as exact text, id), oldest first. */
async function nextChunk(tx: DbOrTx, s: SinceSelector, after: { at: string; id: string } | undefined) {
  const result = await tx.execute(sql`
    select ev.id, to_char(ev.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at from webhook_events ev
    where ${sinceWhere(s)} ${after ? sql`and (ev.created_at, ev.id) > (${after.at}::timestamptz, ${after.id})` : sql``}
    order by ev.created_at, ev.id limit ${CHUNK}`);
  return rowsOf(result).map((r) => ({ id: String(r.id), at: String(r.at) }));
}

async function replaySince(db: Db, s: SinceSelector, now: Date, onProgress?: (done: number, total: number) => void): Promise<ReplayResult> {
  return db.transaction(async (tx) => {
    const [counted] = rowsOf(await tx.execute(sql`select count(*)::int as n from webhook_events ev where ${sinceWhere(s)}`));
    const total = Number(counted?.n ?? 0);
    const out: ReplayResult = { events: 0, replayed: [] };
    onProgress?.(0, total);
    for (let chunk = await nextChunk(tx, s, undefined); chunk.length > 0; chunk = await nextChunk(tx, s, chunk.at(-1))) {
      const ids = chunk.map((e) => e.id);
      const r = await replayChosen(tx, sql`select ev.id, ev.merchant_id from webhook_events ev where ev.id in (${sql.join(ids.map((id) => sql`${id}`), sql`, `)})`, now);
      out.events += r.events;
      out.replayed.push(...r.replayed);
      onProgress?.(out.events, total);
    }
    return out;
  }, { isolationLevel: 'repeatable read' });
}

/** With `since`, `onProgress` hears the events replayed so far and their total, after each chunk. */
export async function replayWebhookEvents(db: Db, s: ReplaySelector, now: Date, onProgress?: (done: number, total: number) => void): Promise<ReplayResult> {
  return 'since' in s ? replaySince(db, s, now, onProgress) : replayChosen(db, chosenEvents(s), now);
}
