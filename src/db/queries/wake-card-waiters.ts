// The wake-up of one attempt per card at a time (src/engine/card-busy.ts): the PENDING orders
// of the given cards that come due within `until` are made due now, in one statement. The
// range on next_attempt_at lets orders_due_idx bound the rows read by what is due in the next
// minute, not by how many orders a card has.
import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../client.ts';
import { cardKeysJson } from './card-histories.ts';
import { rowsOf } from './raw-rows.ts';

/**
 * Cards are keyed as the claim counts them: the order's credential, else its card token. With
 * `idleSince`, only the cards with no attempt in flight that started after it (the lease's
 * start) are woken: the claim's second look (src/engine/card-busy.ts, wakeIfIdle).
 */
export async function wakeCardWaiters(db: DbOrTx, cards: readonly { merchantId: string; cardToken: string }[], now: Date, until: Date, idleSince?: Date): Promise<number> {
  if (cards.length === 0) return 0;
  const idle = idleSince
    ? sql`and not exists (select 1 from attempts a where a.merchant_id = k.m and a.card_token = k.t and a.status = 'in_flight'
        and a.started_at > ${idleSince.toISOString()}::timestamptz)`
    : sql``;
  const result = await db.execute(sql`update orders o set next_attempt_at = ${now.toISOString()}::timestamptz
    from json_to_recordset(${cardKeysJson(cards)}::json) as k(m uuid, t text)
    where o.status = 'PENDING' and o.merchant_id = k.m and coalesce(o.credential, o.card_token) = k.t
      and o.next_attempt_at > ${now.toISOString()}::timestamptz and o.next_attempt_at <= ${until.toISOString()}::timestamptz
      ${idle}
    returning o.id`);
  return rowsOf(result).length;
}
